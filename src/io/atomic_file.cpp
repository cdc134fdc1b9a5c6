// AtomicFile: temporary file + fsync + rename, so a failed run never leaves a partial or
// partially replaced output, and check_output, which decides from what is at the path now
// how it is written (see atomic_file.hpp). POSIX calls (lstat, readlink, faccessat, open O_EXCL,
// fsync, rename) because the standard library offers no atomic replace, no way to make data
// durable before the rename and no effective-permission check.
#include "io/atomic_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <vector>

#include "strata/error.hpp"

namespace strata::io {

namespace {

namespace fs = std::filesystem;

// ---- the registry of open temporaries (read by signal handlers) ------------------------

constexpr int kTempSlots = 256;
std::atomic<const char*> g_temps[kTempSlots];
static_assert(std::atomic<const char*>::is_always_lock_free,
              "the registry must be usable from a signal handler");

void register_temporary(const char* p) noexcept {
  for (auto& slot : g_temps) {
    const char* empty = nullptr;
    if (slot.compare_exchange_strong(empty, p)) return;
  }  // full: this temporary is not removed on a signal (best effort; 256 open at once is not a real
     // case)
}

void unregister_temporary(const char* p) noexcept {
  for (auto& slot : g_temps) {
    const char* mine = p;
    if (slot.compare_exchange_strong(mine, nullptr)) return;
  }
}

// ---- path checks -------------------------------------------------------------------------

// The process umask, read without changing it: umask(2) can only be read by setting it,
// which would race with other threads creating files.
mode_t current_umask() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line))
    if (line.rfind("Umask:", 0) == 0) return mode_t(std::strtoul(line.c_str() + 6, nullptr, 8));
  return 022;
}

// Best effort: makes the rename itself durable. Failure here loses nothing already written.
void sync_directory(const std::string& dir) {
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  ::fsync(fd);
  ::close(fd);
}

std::string parent_of(const std::string& path) {
  const fs::path p = fs::path(path).parent_path();
  return p.empty() ? std::string(".") : p.string();
}

std::string octal_mode(mode_t m) {
  char b[16];
  std::snprintf(b, sizeof b, "%04o", unsigned(m & 07777));
  return b;
}

bool same_file(const struct stat& a, int fd) {
  struct stat b {};
  return ::fstat(fd, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

// Follows the symlinks of the last component, as open(2) would, also when the final target
// does not exist yet (a dangling link is created through, as `>` does).
std::string follow_links(const std::string& path, const std::string& shown) {
  std::string p = path;
  for (int hops = 0;; ++hops) {
    struct stat st {};
    if (::lstat(p.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) return p;
    if (hops == 40) throw Error("cannot write " + shown + ": too many levels of symbolic links");
    std::vector<char> buf(PATH_MAX + 1);
    const ssize_t n = ::readlink(p.c_str(), buf.data(), buf.size() - 1);
    if (n < 0)
      throw Error("cannot write " + shown + ": cannot read the symbolic link '" + p +
                  "': " + std::strerror(errno));
    const std::string link(buf.data(), std::size_t(n));
    p = link.front() == '/' ? link : (fs::path(parent_of(p)) / link).string();
  }
}

void require_writable_directory(const std::string& dir, const std::string& shown) {
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0) {
    const int err = errno;
    if (err == ENOENT)
      throw Error("cannot write " + shown + ": directory '" + dir + "' does not exist (" +
                  std::strerror(err) + ")");
    throw Error("cannot write " + shown + ": directory '" + dir + "': " + std::strerror(err));
  }
  if (!S_ISDIR(st.st_mode))
    throw Error("cannot write " + shown + ": '" + dir + "' is not a directory");
  if (::faccessat(AT_FDCWD, dir.c_str(), W_OK | X_OK, AT_EACCESS) != 0)
    throw Error("cannot write " + shown + ": cannot create files in directory '" + dir +
                "': " + std::strerror(errno));
}

}  // namespace

void require_creatable_directory(const std::string& dir, const std::string& shown) {
  struct stat st {};
  if (::stat(dir.c_str(), &st) == 0 || errno != ENOENT)
    return require_writable_directory(dir, shown);
  // The nearest ancestor that exists, stat'ed (st is its: up to and including the root).
  fs::path p = fs::absolute(dir);
  while (::stat(p.c_str(), &st) != 0) {
    if (errno != ENOENT || !p.has_relative_path())
      throw Error("cannot write " + shown + ": '" + p.string() + "': " + std::strerror(errno));
    p = p.parent_path();
  }
  if (!S_ISDIR(st.st_mode))
    throw Error("cannot write " + shown + ": '" + p.string() + "' is not a directory");
  if (::faccessat(AT_FDCWD, p.c_str(), W_OK | X_OK, AT_EACCESS) != 0)
    throw Error("cannot write " + shown + ": cannot create directory '" + dir + "' in '" +
                p.string() + "': " + std::strerror(errno));
}

OutputTarget check_output(const std::string& path) {
  OutputTarget t;
  t.path = path;
  const std::string shown = "'" + path + "'";
  if (path.empty() || path.back() == '/' || !fs::path(path).has_filename() ||
      fs::path(path).filename() == "." || fs::path(path).filename() == "..")
    throw Error("cannot write " + shown + ": not a file name");

  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) {
    // Something is there (symlinks followed by stat): one of this process's standard
    // streams, a device, a FIFO, a directory, or a regular file.
    for (int fd : {1, 2})
      if (same_file(st, fd) && !S_ISDIR(st.st_mode)) {
        t.kind = OutputTarget::Kind::stream;
        t.resolved = path;
        t.stream_fd = fd;
        return t;
      }
    if (S_ISDIR(st.st_mode)) throw Error("cannot write " + shown + ": it is a directory");
    if (S_ISBLK(st.st_mode) || S_ISSOCK(st.st_mode))
      throw Error("cannot write " + shown + ": it is a " +
                  (S_ISBLK(st.st_mode) ? "block device" : "socket") +
                  "; outputs go to regular files, character devices (/dev/null) or pipes");
    if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode)) {
      if (::faccessat(AT_FDCWD, path.c_str(), W_OK, AT_EACCESS) != 0)
        throw Error("cannot write " + shown + ": " + std::strerror(errno));
      t.kind = OutputTarget::Kind::stream;
      t.resolved = path;
      return t;
    }
    if (!S_ISREG(st.st_mode))
      throw Error("cannot write " + shown + ": it is not a regular file, device or pipe");
    t.resolved = follow_links(path, shown);
    const std::string via =
        t.resolved == path ? shown : shown + " (a link to '" + t.resolved + "')";
    if ((st.st_mode & 0222) == 0)
      throw Error("cannot write " + via + ": it is read-only (mode " + octal_mode(st.st_mode) +
                  "); strata does not replace a read-only file, even as root: make it writable "
                  "(chmod u+w) or "
                  "remove it first");
    if (::faccessat(AT_FDCWD, t.resolved.c_str(), W_OK, AT_EACCESS) != 0)
      throw Error("cannot write " + via + ": " + std::strerror(errno));
    require_writable_directory(parent_of(t.resolved), via);  // the temporary goes beside it
    t.kind = st.st_nlink > 1 ? OutputTarget::Kind::in_place : OutputTarget::Kind::replace;
    return t;
  }
  const int err = errno;
  if (err != ENOENT) {
    if (err == ELOOP) throw Error("cannot write " + shown + ": too many levels of symbolic links");
    if (err == ENOTDIR)
      throw Error("cannot write " + shown + ": a component of the path is not a directory");
    throw Error("cannot write " + shown + ": " + std::strerror(err));
  }
  // Nothing there: a new file, where a dangling symlink points if the path is one.
  t.resolved = follow_links(path, shown);
  const std::string via = t.resolved == path ? shown : shown + " (a link to '" + t.resolved + "')";
  require_creatable_directory(parent_of(t.resolved), via);
  t.kind = OutputTarget::Kind::create;
  return t;
}

AtomicFile::AtomicFile(const std::string& path) : path_(path), target_(check_output(path)) {
  if (target_.kind == OutputTarget::Kind::stream)
    open_stream();
  else
    open_temporary();
}

void AtomicFile::open_stream() {
  int fd = -1;
  if (target_.stream_fd >= 0) {
    std::fflush(target_.stream_fd == 1 ? stdout
                                       : stderr);  // keep the order of what was printed before
    fd = ::dup(target_.stream_fd);
  } else {
    fd =
        ::open(path_.c_str(), O_WRONLY | O_NOCTTY | O_CLOEXEC);  // a FIFO waits for its reader here
  }
  if (fd < 0) fail("cannot open it for writing", errno);
  file_ = ::fdopen(fd, "wb");
  if (!file_) {
    const int err = errno;
    ::close(fd);
    fail("cannot open it for writing", err);
  }
}

void AtomicFile::open_temporary() {
  // Hidden, and in the target's directory so that rename() never crosses filesystems.
  const fs::path target(target_.resolved);
  std::string temp_name = target.filename().string();
  temp_name.insert(0, 1, '.');  // not "." + name: GCC 12 flags that with a bogus -Wrestrict
  temp_name += ".tmp.XXXXXX";
  // The name is registered before the file exists (not mkstemp, which creates it first): a
  // signal at any moment finds every temporary that may be on disk in the registry.
  make_parent_directories();
  const std::string stem = (fs::path(parent_of(target_.resolved)) / temp_name).string();
  static std::atomic<unsigned> sequence{0};
  std::mt19937 random(std::random_device{}() ^ (unsigned(::getpid()) << 8) ^ sequence++);
  const char letters[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  int fd = -1;
  for (int attempt = 0; fd < 0; ++attempt) {
    temp_path_ = stem;
    for (std::size_t i = temp_path_.size() - 6; i < temp_path_.size(); ++i)
      temp_path_[i] = letters[random() % 62];
    register_temporary(temp_path_.c_str());
    fd = ::open(temp_path_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd >= 0) break;
    const int err = errno;
    unregister_temporary(temp_path_.c_str());
    temp_path_.clear();
    if (err != EEXIST || attempt == 100)
      fail("cannot create a temporary file in '" + parent_of(target_.resolved) + "'", err);
  }
  file_ = ::fdopen(fd, "wb");
  if (!file_) {
    const int err = errno;
    ::close(fd);
    fail("cannot open the temporary file '" + temp_path_ + "'", err);
  }
  // The temporary is created 0600; give the output the mode (and, where allowed, the owner) of the
  // file it replaces, or the mode an ordinary create would, so atomic writing is invisible.
  struct stat st {};
  mode_t mode = 0666 & ~current_umask();
  if (target_.kind != OutputTarget::Kind::create && ::stat(target_.resolved.c_str(), &st) == 0) {
    mode = st.st_mode & 07777;
    if (::fchown(fd, st.st_uid, st.st_gid) != 0) {
      // Not root, and the file belongs to someone else: the replacement is ours, as with cp.
    }
  }
  if (::fchmod(fd, mode) != 0) fail("cannot set the file mode", errno);
}

void AtomicFile::make_parent_directories() {
  std::vector<fs::path> missing;
  for (fs::path p = fs::absolute(parent_of(target_.resolved)); p.has_relative_path();
       p = p.parent_path()) {
    struct stat st {};
    if (::stat(p.c_str(), &st) == 0) break;
    missing.push_back(p);
  }
  for (auto d = missing.rbegin(); d != missing.rend(); ++d) {
    if (::mkdir(d->c_str(), 0777) == 0)
      created_dirs_.push_back(d->string());
    else if (errno != EEXIST)
      fail("cannot create directory '" + d->string() + "'", errno);
  }
}

void AtomicFile::remove_created_directories() noexcept {
  // rmdir removes a directory only when it is empty: one that has gained files stays.
  for (auto d = created_dirs_.rbegin(); d != created_dirs_.rend(); ++d) ::rmdir(d->c_str());
  created_dirs_.clear();
}

void AtomicFile::drop_temporary() noexcept {
  if (temp_path_.empty()) return;
  ::unlink(temp_path_.c_str());  // before leaving the registry: a signal in between finds it
  unregister_temporary(temp_path_.c_str());
  temp_path_.clear();
}

AtomicFile::~AtomicFile() {
  if (file_) std::fclose(file_);
  if (!committed_) {
    drop_temporary();
    remove_created_directories();
  }
}

void AtomicFile::write(const void* data, std::size_t bytes) {
  require(file_ != nullptr, "cannot write '" + path_ + "': the file was already committed");
  if (bytes == 0) return;
  if (std::fwrite(data, 1, bytes, file_) != bytes) fail("write failed", errno);
}

void AtomicFile::write_at(std::uint64_t offset, const void* data, std::size_t bytes) {
  require(seekable(), "cannot write '" + path_ + "' out of order: " +
                          (file_ ? "it is a stream" : "the file was already committed"));
  if (std::fflush(file_) != 0) fail("write failed", errno);
  const auto* p = static_cast<const char*>(data);
  while (bytes > 0) {
    const ssize_t n = ::pwrite(::fileno(file_), p, bytes, off_t(offset));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) fail("write failed", n < 0 ? errno : EIO);
    p += n, offset += std::uint64_t(n), bytes -= std::size_t(n);
  }
}

void AtomicFile::commit() {
  require(file_ != nullptr, "cannot commit '" + path_ + "': the file was already committed");
  if (std::fflush(file_) != 0) fail("write failed", errno);
  const bool stream = target_.kind == OutputTarget::Kind::stream;
  if (!stream && ::fsync(::fileno(file_)) != 0) fail("fsync failed", errno);
  const int closed = std::fclose(file_);
  file_ = nullptr;  // fclose releases the stream even when it fails
  if (closed != 0) fail("close failed", errno);
  if (stream) {
    committed_ = true;
    return;
  }
  if (target_.kind == OutputTarget::Kind::in_place) {
    copy_into_target();
  } else if (std::rename(temp_path_.c_str(), target_.resolved.c_str()) != 0) {
    fail("cannot rename the temporary file '" + temp_path_ + "' over it", errno);
  }
  committed_ = true;
  unregister_temporary(temp_path_.c_str());
  sync_directory(parent_of(target_.resolved));
}

// A file with several hard links: rewritten in place (truncate, copy, fsync), so that every
// name sees the new contents, as `>` would. Only the copy itself can leave it incomplete.
void AtomicFile::copy_into_target() {
  const int in = ::open(temp_path_.c_str(), O_RDONLY | O_CLOEXEC);
  if (in < 0) fail("cannot reopen the temporary file '" + temp_path_ + "'", errno);
  const int out = ::open(target_.resolved.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC);
  if (out < 0) {
    const int err = errno;
    ::close(in);
    fail("cannot open it to write in place (it has several hard links)", err);
  }
  std::vector<char> buf(1 << 20);
  int err = 0;
  for (;;) {
    const ssize_t n = ::read(in, buf.data(), buf.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      err = n < 0 ? errno : 0;
      break;
    }
    for (ssize_t done = 0; done < n && err == 0;) {
      const ssize_t w = ::write(out, buf.data() + done, std::size_t(n - done));
      if (w < 0 && errno != EINTR) err = errno;
      if (w > 0) done += w;
    }
    if (err) break;
  }
  if (err == 0 && ::fsync(out) != 0) err = errno;
  ::close(in);
  if (::close(out) != 0 && err == 0) err = errno;
  if (err != 0) {
    // The target is torn; the complete data stays in the temporary for the user.
    unregister_temporary(temp_path_.c_str());
    const std::string kept = temp_path_;
    temp_path_.clear();
    throw Error("cannot write '" + path_ +
                "': writing it in place (it has several hard links) failed part-way: " +
                std::strerror(err) + "; its contents are incomplete, the complete data is in '" +
                kept + "'");
  }
  drop_temporary();
}

void AtomicFile::fail(const std::string& what, int err) {
  // Clean up here too: when called from the constructor the destructor never runs.
  if (file_) std::fclose(file_);
  file_ = nullptr;
  drop_temporary();
  if (!committed_) remove_created_directories();
  throw Error("cannot write '" + path_ + "': " + what + ": " + std::strerror(err));
}

int remove_temporaries() noexcept {
  int removed = 0;
  for (auto& slot : g_temps) {
    const char* p = slot.exchange(nullptr);
    if (p && ::unlink(p) == 0) ++removed;
  }
  return removed;
}

bool same_file(const std::string& a, const std::string& b) {
  namespace fs = std::filesystem;
  if (a == b) return true;
  std::error_code e1, e2;
  if (fs::weakly_canonical(a, e1) == fs::weakly_canonical(b, e2) && !e1 && !e2) return true;
  std::error_code e3;
  return fs::exists(a, e3) && fs::exists(b, e3) && fs::equivalent(a, b, e3) && !e3;
}

}  // namespace strata::io

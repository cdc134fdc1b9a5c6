// RunDirectory (see run_directory.hpp). flock(2) rather than a pid file: the kernel drops
// the lock when the holder dies, so a killed run never leaves the directory locked.
#include "io/run_directory.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>

#include "io/atomic_file.hpp"
#include "strata/error.hpp"

namespace strata::io {

namespace {

namespace fs = std::filesystem;
constexpr const char* kLock = ".strata.lock";

// The file a temporary stands for (".<name>.tmp.XXXXXX", as AtomicFile names them), or "".
std::string temporary_of(const std::string& name) {
  const auto at = name.rfind(".tmp.");
  if (name.size() < 2 || name[0] != '.' || at == std::string::npos || at < 2 || name.size() != at + 5 + 6) return "";
  return name.substr(1, at - 1);
}

bool numbered(const std::string& name, const RunSubdir& d) {
  if (name.compare(0, d.prefix.size(), d.prefix) != 0) return false;
  for (const std::string& suffix : d.suffixes) {
    if (name.size() <= d.prefix.size() + suffix.size() ||
        name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0)
      continue;
    const std::string digits =
        name.substr(d.prefix.size(), name.size() - d.prefix.size() - suffix.size());
    if (digits.find_first_not_of("0123456789") == std::string::npos) return true;
  }
  return false;
}

bool listed(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

struct Contents {
  std::vector<std::string> run;      // the run's files (relative paths), including stale temporaries
  std::vector<std::string> stale;    // of those, the temporaries
  std::vector<std::string> foreign;  // anything else
};

Contents survey(const std::string& dir, const RunFiles& f) {
  Contents c;
  std::error_code ec;
  // subdir: the RunSubdir the name is in (null: the directory itself).
  auto ours = [&](const std::string& name, const RunSubdir* subdir) {
    return subdir ? listed(subdir->files, name) || numbered(name, *subdir) : listed(f.files, name);
  };
  auto classify = [&](const std::string& name, const RunSubdir* subdir) {
    const std::string of = temporary_of(name);
    const bool temp = !of.empty() && ours(of, subdir);
    const std::string rel = subdir ? subdir->name + "/" + name : name;
    if (ours(name, subdir) || temp)
      c.run.push_back(rel);
    else
      c.foreign.push_back(rel);
    if (temp) c.stale.push_back(rel);
  };
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    if (name == kLock) continue;
    if (listed(f.run_dirs, name) && e.is_directory(ec) && !e.is_symlink(ec)) continue;
    const auto sub = std::find_if(f.subdirs.begin(), f.subdirs.end(),
                                  [&](const RunSubdir& d) { return d.name == name; });
    if (sub != f.subdirs.end() && e.is_directory(ec) && !e.is_symlink(ec)) {
      for (const auto& s : fs::directory_iterator(e.path(), ec))
        classify(s.path().filename().string(), &*sub);
      continue;
    }
    classify(name, nullptr);
  }
  if (ec) throw Error("cannot list output directory '" + dir + "': " + ec.message());
  std::sort(c.run.begin(), c.run.end());
  std::sort(c.foreign.begin(), c.foreign.end());
  return c;
}

std::string some(const std::vector<std::string>& names) {
  std::string s;
  for (std::size_t i = 0; i < names.size() && i < 6; ++i) s += (i ? ", " : "") + names[i];
  if (names.size() > 6) s += " and " + std::to_string(names.size() - 6) + " more";
  return s;
}

// Refuses what the mode does not allow in the directory.
void check_contents(const std::string& dir, const Contents& c, const RunFiles& f, RunDirectory::Mode mode) {
  using Mode = RunDirectory::Mode;
  if (c.run.empty() && c.foreign.empty()) return;
  if (mode == Mode::fresh)
    throw Error("output directory '" + dir + "' is not empty (it holds " + some(c.foreign.empty() ? c.run : c.foreign) +
                "): a run writes into an empty directory, so that every file in it belongs to that run; " +
                (c.foreign.empty() ? f.when_not_empty
                                   : std::string("move them or use another --out-dir (--overwrite replaces only a "
                                                 "previous run's files)")));
  if (!c.foreign.empty())
    throw Error("output directory '" + dir + "' holds files strata did not write (" + some(c.foreign) + "): " +
                (mode == Mode::overwrite ? "--overwrite replaces only a previous run's files" :
                                           "a continued run writes beside its own files only") +
                "; move them or use another --out-dir");
}

// In overwrite mode, none of the previous run's files (which it removes) is one the run reads.
void check_inputs_kept(const std::string& dir, const Contents& c, const RunFiles& f, RunDirectory::Mode mode) {
  if (mode != RunDirectory::Mode::overwrite) return;
  for (const std::string& rel : c.run)
    for (const auto& [what, path] : f.inputs) {
      if (!path.empty() && same_file((fs::path(dir) / rel).string(), path))
        throw Error(what + " '" + path + "' is the previous run's " + rel + " in '" + dir +
                    "', which --overwrite removes before the run (and a failed run would leave it gone): copy it "
                    "elsewhere and give that path");
    }
}

// Whether a live run holds the lock (without creating the lock file). The look is a shared
// lock, which a run's exclusive one refuses but another look does not: every rank of a job
// checks the same directories at once (wave::check_shots), and with an exclusive look one
// rank's check took another's for a live run ("in use by another strata run").
bool locked_by_another(const std::string& dir) {
  const int fd = ::open((fs::path(dir) / kLock).c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  const bool busy = ::flock(fd, LOCK_SH | LOCK_NB) != 0 && errno == EWOULDBLOCK;
  ::close(fd);  // releases it if we took it
  return busy;
}

[[noreturn]] void in_use(const std::string& dir) {
  throw Error("output directory '" + dir + "' is in use by another strata run (it holds the lock " +
              (fs::path(dir) / kLock).string() + "): wait for it to finish, or use another --out-dir");
}

}  // namespace

void RunDirectory::preflight(const std::string& dir, const RunFiles& files, Mode mode) {
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0) {
    if (errno != ENOENT) throw Error("output directory '" + dir + "': " + std::strerror(errno));
    // Created later: the nearest existing ancestor must let us (as for any output file).
    return require_creatable_directory(dir, "output directory '" + dir + "'");
  }
  if (!S_ISDIR(st.st_mode)) throw Error("output directory '" + dir + "' exists and is not a directory");
  if (::faccessat(AT_FDCWD, dir.c_str(), W_OK | X_OK, AT_EACCESS) != 0)
    throw Error("cannot write into output directory '" + dir + "': " + std::strerror(errno));
  if (locked_by_another(dir)) in_use(dir);
  const Contents c = survey(dir, files);
  check_contents(dir, c, files, mode);
  check_inputs_kept(dir, c, files, mode);
}

RunDirectory::RunDirectory(const std::string& dir, const RunFiles& files, Mode mode) : dir_(dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw Error("cannot create output directory '" + dir + "': " + ec.message());
  const std::string lock = (fs::path(dir) / kLock).string();
  lock_fd_ = ::open(lock.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (lock_fd_ < 0) throw Error("cannot create the lock file '" + lock + "': " + std::strerror(errno));
  if (::flock(lock_fd_, LOCK_EX | LOCK_NB) != 0) {
    const int err = errno;
    ::close(lock_fd_);
    lock_fd_ = -1;
    if (err == EWOULDBLOCK) in_use(dir);
    throw Error("cannot lock output directory '" + dir + "': " + std::strerror(err));
  }
  try {
    // Again under the lock: another run may have filled it since the preflight.
    const Contents c = survey(dir, files);
    check_contents(dir, c, files, mode);
    check_inputs_kept(dir, c, files, mode);
    for (const std::string& rel : c.stale) fs::remove(fs::path(dir) / rel, ec);
    if (mode == Mode::overwrite) {
      for (const std::string& rel : c.run)
        if (!fs::remove(fs::path(dir) / rel, ec) && ec)
          throw Error("cannot remove the previous run's '" + (fs::path(dir) / rel).string() + "': " + ec.message());
      for (const RunSubdir& d :
           files.subdirs)  // the subdirectories it emptied (never one with other files)
        if (fs::is_directory(fs::symlink_status(fs::path(dir) / d.name, ec)) &&
            fs::is_empty(fs::path(dir) / d.name, ec))
          fs::remove(fs::path(dir) / d.name, ec);
    } else {
      for (const std::string& rel : c.run)
        if (std::find(c.stale.begin(), c.stale.end(), rel) == c.stale.end()) previous_.push_back(rel);
    }
  } catch (...) {
    ::close(lock_fd_);
    throw;
  }
}

RunDirectory::~RunDirectory() {
  if (lock_fd_ >= 0) ::close(lock_fd_);  // releases the flock; the empty lock file stays (see header)
}

}  // namespace strata::io

// AtomicFile: temporary file + fsync + rename, so a failed run never leaves a partial or
// partially replaced output. POSIX calls (mkstemp, fsync, rename) because the standard
// library offers no atomic replace and no way to make data durable before the rename.
#include "core/atomic_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <vector>

#include "strata/error.hpp"

namespace strata::io {

namespace {

// The process umask, read without changing it: umask(2) can only be read by setting it,
// which would race with other threads creating files.
mode_t current_umask() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line))
    if (line.rfind("Umask:", 0) == 0) return mode_t(std::stoul(line.substr(6), nullptr, 8));
  return 022;
}

// mkstemp creates 0600; give the output the mode an ordinary create would (or the mode of
// the file it replaces), so atomic writing is invisible to the user.
mode_t output_mode(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode)) return st.st_mode & 07777;
  return 0666 & ~current_umask();
}

// Best effort: makes the rename itself durable. Failure here loses nothing already written.
void sync_directory(const std::string& dir) {
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY);
  if (fd < 0) return;
  ::fsync(fd);
  ::close(fd);
}

}  // namespace

AtomicFile::AtomicFile(const std::string& path) : path_(path) {
  namespace fs = std::filesystem;
  const fs::path target(path);
  if (path.empty() || !target.has_filename())
    throw Error("cannot write '" + path + "': not a file name");
  const fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
  // Hidden, and in the same directory so that rename() never crosses filesystems.
  std::string temp_name = target.filename().string();
  temp_name.insert(0, 1, '.');  // not "." + name: GCC 12 flags that with a bogus -Wrestrict
  temp_name += ".tmp.XXXXXX";
  temp_path_ = (dir / temp_name).string();

  std::vector<char> name(temp_path_.begin(), temp_path_.end());
  name.push_back('\0');
  const int fd = ::mkstemp(name.data());
  if (fd < 0) {
    const int err = errno;
    temp_path_.clear();  // nothing was created
    std::error_code ec;
    if ((err == ENOENT || err == ENOTDIR) && !fs::is_directory(dir, ec))
      throw Error("cannot write '" + path + "': directory '" + dir.string() +
                  "' does not exist (" + std::strerror(err) + ")");
    fail("cannot create a temporary file in '" + dir.string() + "'", err);
  }
  temp_path_.assign(name.data());
  file_ = ::fdopen(fd, "wb");
  if (!file_) {
    const int err = errno;
    ::close(fd);
    fail("cannot open the temporary file '" + temp_path_ + "'", err);
  }
  if (::fchmod(fd, output_mode(path)) != 0) fail("cannot set the file mode", errno);
}

AtomicFile::~AtomicFile() {
  if (file_) std::fclose(file_);
  if (!committed_ && !temp_path_.empty()) ::unlink(temp_path_.c_str());
}

void AtomicFile::write(const void* data, std::size_t bytes) {
  require(file_ != nullptr, "cannot write '" + path_ + "': the file was already committed");
  if (bytes == 0) return;
  if (std::fwrite(data, 1, bytes, file_) != bytes) fail("write failed", errno);
}

void AtomicFile::commit() {
  require(file_ != nullptr, "cannot commit '" + path_ + "': the file was already committed");
  if (std::fflush(file_) != 0) fail("write failed", errno);
  if (::fsync(::fileno(file_)) != 0) fail("fsync failed", errno);
  const int closed = std::fclose(file_);
  file_ = nullptr;  // fclose releases the stream even when it fails
  if (closed != 0) fail("close failed", errno);
  if (std::rename(temp_path_.c_str(), path_.c_str()) != 0)
    fail("cannot rename the temporary file '" + temp_path_ + "' over it", errno);
  committed_ = true;
  const std::filesystem::path parent = std::filesystem::path(path_).parent_path();
  sync_directory(parent.empty() ? "." : parent.string());
}

void AtomicFile::fail(const std::string& what, int err) {
  // Clean up here too: when called from the constructor the destructor never runs.
  if (file_) std::fclose(file_);
  file_ = nullptr;
  if (!temp_path_.empty()) ::unlink(temp_path_.c_str());
  temp_path_.clear();
  throw Error("cannot write '" + path_ + "': " + what + ": " + std::strerror(err));
}

}  // namespace strata::io

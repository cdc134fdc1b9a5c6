// AtomicFile: writes an output file so that readers see either the old file or the complete
// new one, never a half-written one. Data goes to a hidden temporary in the same directory
// (same filesystem, so the final rename is atomic); commit() renames it over the target.
#pragma once

#include <cstddef>
#include <cstdio>
#include <string>

namespace strata::io {

class AtomicFile {
public:
  // Creates `.<basename>.tmp.XXXXXX` next to `path`. Throws Error naming the path and the OS
  // error when the directory is missing or not writable.
  explicit AtomicFile(const std::string& path);
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;
  // Without a commit() (an exception, an early return) the temporary is removed and any
  // existing file at `path` is left as it was.
  ~AtomicFile();

  // The open temporary, for writers that want stdio; errors surface at commit() at latest.
  std::FILE* get() { return file_; }
  // Throws Error (path + strerror) on a short write, e.g. a full disk.
  void write(const void* data, std::size_t bytes);
  // Flushes, fsyncs and closes the temporary, then renames it over `path`. Throws Error on
  // any failure, in which case the temporary is removed and `path` is untouched.
  void commit();

  const std::string& path() const { return path_; }
  const std::string& temp_path() const { return temp_path_; }

private:
  [[noreturn]] void fail(const std::string& what, int err);

  std::string path_;
  std::string temp_path_;
  std::FILE* file_ = nullptr;
  bool committed_ = false;
};

}  // namespace strata::io

// AtomicFile: writes an output file so that readers see either the old file or the complete
// new one, never a half-written one. Data goes to a hidden temporary in the target's
// directory (same filesystem, so the final rename is atomic); commit() renames it over the
// target. What "the target" is follows what `>` in a shell would write to: symlinks are
// followed, a character device or FIFO (/dev/null, /dev/stdout, a pipe) is written through,
// a file with several hard links is rewritten in place so that every link sees the new
// data, and a directory, block device, socket or read-only file is refused.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace strata::io {

// How an output path will be written, decided from what is there now.
struct OutputTarget {
  enum class Kind {
    create,    // nothing there yet: temporary + rename
    replace,   // a regular file with one link: temporary + rename (mode and owner kept)
    in_place,  // a regular file with several hard links: staged, then copied into it
    stream,    // a character device, a FIFO or this process's stdout/stderr: written through
  };
  Kind kind = Kind::create;
  std::string path;      // as given
  std::string resolved;  // the file the data lands in (symlinks followed); == path for streams
  int stream_fd = -1;    // stream: this process's fd 1 or 2 when the target is one of them
};

// Checks, without creating or changing anything, that `path` can be written: its directory
// exists and is writable, or is missing and can be created (its nearest existing ancestor a
// writable directory: AtomicFile creates it), and the target (symlinks followed) is new, a
// writable regular file, a character device or a FIFO. Refused with an Error naming the
// path: a directory, a block device, a socket, a symlink loop, a file without write
// permission for this process, and a file whose permission bits grant nobody write access
// (a read-only file is refused even for root, who could override the bits: strata never
// replaces a file marked read-only). Verbs call this for every output before any work.
OutputTarget check_output(const std::string& path);

// Checks, without creating anything, that files can be made in directory `dir`: it exists
// and is a directory this process can write into, or it is missing and its nearest existing
// ancestor is one (the missing directories can be made there: AtomicFile makes them when it
// opens, RunDirectory its output directory). Refused with an Error "cannot write SHOWN: ..."
// naming the ancestor and the OS's reason (a component it cannot search included).
void require_creatable_directory(const std::string& dir, const std::string& shown);

// Whether two paths name one file: the same path or spelling of it, or two paths to one
// existing file (a symlink, a hard link). What the output checks and --overwrite compare.
bool same_file(const std::string& a, const std::string& b);

class AtomicFile {
public:
  // Runs check_output(path), creates the target's missing parent directories (removed again,
  // when empty, if the file is never committed) and opens the temporary
  // `.<basename>.tmp.XXXXXX` next to the resolved target (or, for a stream, the target itself:
  // opening a FIFO waits for a reader as `>` does). Throws Error naming the path and the OS error.
  explicit AtomicFile(const std::string& path);
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;
  // Without a commit() (an exception, an early return) the temporary is removed and any
  // existing file at `path` is left as it was. A stream target has received what was
  // written so far: a pipe or device cannot take data back.
  ~AtomicFile();

  // The open temporary, for writers that want stdio; errors surface at commit() at latest.
  std::FILE* get() { return file_; }
  // Throws Error (path + strerror) on a short write, e.g. a full disk.
  void write(const void* data, std::size_t bytes);
  // Whether write_at can go back over what was written: a regular file's temporary, not a
  // stream (a pipe or device has taken its bytes already).
  bool seekable() const { return file_ != nullptr && target_.kind != OutputTarget::Kind::stream; }
  // Overwrites `bytes` already written at `offset` (a value known only once the rest is
  // written, such as a digest), leaving the write position at the end. Requires seekable();
  // throws Error as write() does.
  void write_at(std::uint64_t offset, const void* data, std::size_t bytes);
  // Flushes, fsyncs and closes the temporary, then renames it over the target (or copies it
  // into a hard-linked target). Throws Error on any failure, in which case the temporary is
  // removed and the target is untouched (a copy in place that fails part-way is the one
  // exception: the message says so).
  void commit();

  const std::string& path() const { return path_; }
  const std::string& temp_path() const { return temp_path_; }
  const OutputTarget& target() const { return target_; }

private:
  [[noreturn]] void fail(const std::string& what, int err);
  void open_temporary();
  void open_stream();
  void copy_into_target();
  void drop_temporary() noexcept;
  void make_parent_directories();
  void remove_created_directories() noexcept;

  std::string path_;
  OutputTarget target_;
  std::string temp_path_;
  std::vector<std::string> created_dirs_;  // by this file, outermost first
  std::FILE* file_ = nullptr;
  bool committed_ = false;
};

// Every temporary an AtomicFile has open is registered until it is committed or removed, so
// that a signal handler can remove them all before the process exits: async-signal-safe
// (unlink(2) over a fixed table, no allocation, no locks). Returns how many were removed.
int remove_temporaries() noexcept;

}  // namespace strata::io

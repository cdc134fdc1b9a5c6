// RunDirectory: an output directory that holds the files of one run. A run takes an
// exclusive lock on it (`.strata.lock`, flock: released by the kernel when the process
// ends, however it ends), so a second run into it is refused while the first is alive; and
// it starts only in an empty directory, unless told to replace the previous run's files
// (overwrite) or to continue them (resume). Which files are "a run's" is the caller's list:
// anything else in the directory is never removed, and makes overwrite refuse.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace strata::io {

// A subdirectory of a run's outputs, and the names of its files: `files`, and
// <prefix><digits><suffix> for each of `suffixes` (numbered snapshots).
struct RunSubdir {
  std::string name;
  std::vector<std::string> files;
  std::string prefix;
  std::vector<std::string> suffixes;
};

struct RunFiles {
  std::vector<std::string> files;  // names directly in the directory
  // Subdirectories of outputs (snapshots/; plots/, which `python -m strata.plot` writes):
  // their files are the run's, removed by overwrite with the subdirectory if it is left empty.
  std::vector<RunSubdir> subdirs;
  // Subdirectories that are runs of their own (the shots of `strata wave --shots`): each is
  // checked, locked and emptied by its own RunDirectory, so here they are neither entered
  // nor removed, and do not make the directory count as holding files.
  std::vector<std::string> run_dirs;
  // The files the run reads (what, path: "--config", "c.json"): overwrite refuses to remove
  // one of them (a previous run's config.json given as the configuration would be gone,
  // and lost if the new run fails).
  std::vector<std::pair<std::string, std::string>> inputs;
  // What to do about a directory that is not empty when the run needs it empty (the ways the
  // caller's command offers), said after what it holds.
  std::string when_not_empty =
      "use --overwrite to replace a previous run's files, --restart to continue it, or another --out-dir";
};

class RunDirectory {
public:
  enum class Mode {
    fresh,      // the directory must be absent or empty
    overwrite,  // a previous run's files are removed (after the lock is taken)
    resume,     // a previous run's files stay (the caller checks they are the same run's)
  };

  // Checks without creating or changing anything: not in use by another run, a directory
  // (or creatable), writable, and empty unless the mode allows its contents. Throws Error
  // naming the directory, what is in it and what to do.
  static void preflight(const std::string& dir, const RunFiles& files, Mode mode);

  // Creates the directory, takes the lock (refused when held), checks again under the lock,
  // then in overwrite mode removes the previous run's files; in every mode it removes stale
  // temporaries of the run's files (`.<name>.tmp.XXXXXX`, left by a killed run: no other
  // run can be writing them while the lock is held).
  RunDirectory(const std::string& dir, const RunFiles& files, Mode mode);
  ~RunDirectory();
  RunDirectory(const RunDirectory&) = delete;
  RunDirectory& operator=(const RunDirectory&) = delete;

  const std::string& path() const { return dir_; }
  // The run's files found in it when it was taken (paths relative to it), for resume checks.
  const std::vector<std::string>& previous() const { return previous_; }

private:
  std::string dir_;
  int lock_fd_ = -1;
  std::vector<std::string> previous_;
};

}  // namespace strata::io

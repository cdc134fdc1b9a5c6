// A wave run's output directory: the files a run writes there (what its io::RunDirectory
// may replace or continue; shots.cpp checks each shot's directory with the same list), the
// mode RunOptions asks for, and rank 0's hold on it for the run (taken once every check has
// passed: a continued run's previous files checked to be its own, the snapshots folder made,
// model.png drawn before the first step). OutputList is the run's record of what it wrote
// (Report::outputs).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "io/run_directory.hpp"
#include "strata/wave.hpp"

namespace strata::wave {

// ranks: a distributed run writes one checkpoint per rank. With the configuration and options,
// the files the run reads (RunFiles::inputs: RunOptions::config_file, model.file), which
// --overwrite must not remove.
io::RunFiles run_files(int ranks = 1);
io::RunFiles run_files(int ranks, const Config& c, const RunOptions& opt);
// The files a run reads: those given (named by what gave them), and the model's file.
RunInputs run_inputs(const Config& c, RunInputs given);

// fresh, overwrite or resume (a restart); refuses --overwrite with --restart.
io::RunDirectory::Mode directory_mode(const RunOptions& opt);

std::string path_join(const std::string& dir, const std::string& name);

// The files a run wrote, in order, each once.
struct OutputList {
  std::vector<std::string>& files;
  void wrote(const std::string& path);
};

// Rank 0's lock on OUT_DIR while the run goes on (the other ranks hold nothing).
class RunDirectoryHold {
 public:
  void take(const Config& c, const Plan& p, const io::RunFiles& files, io::RunDirectory::Mode mode,
            OutputList& out);

 private:
  std::optional<io::RunDirectory> dir_;
};

}  // namespace strata::wave

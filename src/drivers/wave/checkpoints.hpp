// When and where a wave run checkpoints (the file format is the solver's,
// solvers/wave/checkpoint.hpp): every output.checkpoint_every steps and after the last,
// each rank its own file (rank 0's OUT_DIR/checkpoint.strata, rank r's beside it as
// checkpoint.strata.rank<r>), and the last checkpoint a --restart can continue from (this
// run's newest, or the one it started from), which an interruption or a blown-up wavefield
// names. A restart's file is checked to be there before the Solver allocates.
#pragma once

#include <string>

#include "drivers/wave/job.hpp"
#include "drivers/wave/progress.hpp"
#include "drivers/wave/run_directory.hpp"
#include "strata/wave.hpp"

namespace strata::wave {

// A rank's checkpoint file: rank 0's at `path`, rank r's beside it.
std::string rank_checkpoint(const std::string& path, int rank);

// Throws Error unless rank `rank`'s file of the checkpoint at `path` is a regular file.
void require_restart_file(const std::string& path, int rank);

class Checkpoints {
 public:
  Checkpoints(const Config& c, const RunOptions& opt, int first_step);
  // Whether step n ends with a checkpoint: a multiple of checkpoint_every, and the final
  // state too, so that a finished run can be extended without recomputing.
  bool due(int n) const;
  // Every rank's file of step n (collective); the run goes on once all are in.
  void save(detail::SolverImpl& s, const Ranks& ranks, int n, PhaseTimes& times, OutputList& out);

  // The checkpoint a --restart can continue from ("" and -1: none).
  const std::string& last() const { return last_; }
  int last_step() const { return last_step_; }
  // A restart's state is not valid until it has been checked: forget it until then.
  void forget_restart() { last_.clear(); }
  void trust_restart(const std::string& path) { last_ = path; }

 private:
  const Config& c_;
  std::string path_;  // OUT_DIR/checkpoint.strata
  std::string last_;
  int last_step_ = -1;
};

}  // namespace strata::wave

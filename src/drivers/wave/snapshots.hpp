// A wave run's snapshots: u at every output.snapshot_every-th step, as
// OUT_DIR/snapshots/u_STEP + .npy/.vti/.png as the configuration asks. In one process they
// are plain files; over several ranks the .npy and .vti are one file of the whole grid that
// every rank writes its rows into, and the .png slice is gathered to rank 0, which draws it.
#pragma once

#include <string>
#include <vector>

#include "drivers/wave/job.hpp"
#include "drivers/wave/run_directory.hpp"
#include "solvers/wave/partition.hpp"
#include "strata/wave.hpp"

namespace strata::wave {

class SnapshotWriter {
 public:
  // part: this rank's box of a distributed run (null: the whole grid here).
  SnapshotWriter(const Config& c, const Partition* part, const Ranks& ranks, OutputList& out);
  bool due(int n) const { return c_.snapshot_every && n % c_.snapshot_every == 0; }
  // u (this rank's box, dense) at step n, time t; collective over the ranks.
  template <class T>
  void write(const std::vector<T>& u, int n, double t);

 private:
  const Config& c_;
  const Partition* part_;
  const Ranks& ranks_;
  OutputList& out_;
  std::string dir_;  // OUT_DIR/snapshots
};

}  // namespace strata::wave

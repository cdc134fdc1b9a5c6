// A wave run's checkpoints (checkpoints.hpp): their files per rank and their schedule.
#include "drivers/wave/checkpoints.hpp"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>

#include "solvers/wave/solver.hpp"

namespace strata::wave {

std::string rank_checkpoint(const std::string& path, int rank) {
  return rank == 0 ? path : path + ".rank" + std::to_string(rank);
}

void require_restart_file(const std::string& checkpoint, int rank) {
  const std::string path = rank_checkpoint(checkpoint, rank);
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0)
    throw Error("cannot read checkpoint '" + path + "': " + std::strerror(errno));
  if (!S_ISREG(st.st_mode)) throw Error("checkpoint '" + path + "' is not a regular file");
}

Checkpoints::Checkpoints(const Config& c, const RunOptions& opt, int first_step)
    : c_(c),
      path_(path_join(c.out_dir, "checkpoint.strata")),
      last_(opt.restart),
      last_step_(opt.restart.empty() ? -1 : first_step) {}

bool Checkpoints::due(int n) const {
  return c_.checkpoint_every && (n % c_.checkpoint_every == 0 || n == c_.steps);
}

void Checkpoints::save(detail::SolverImpl& s, const Ranks& ranks, int n, PhaseTimes& times,
                       OutputList& out) {
  const Clock::time_point t0 = Clock::now();
  s.save_checkpoint(rank_checkpoint(path_, ranks.rank()));
  if (ranks.many) ranks.job.barrier();  // every rank's file is in before the run goes on
  times.add_since("checkpoints", t0);
  for (int r = 0; r < ranks.size(); ++r) out.wrote(rank_checkpoint(path_, r));
  last_ = path_;
  last_step_ = n;
}

}  // namespace strata::wave

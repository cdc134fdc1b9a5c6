// The wavefield's NaN/Inf check: u is checked after a restart, at every snapshot and
// checkpoint (before it is written), before the results, and in between at least every
// ~10 s of stepping (or 20x the cost of the last check, so checking stays under ~5% of a
// run). The check runs where u lives; only a failure copies u, to say how many values are
// not finite, the box that holds them and the first one, with the last valid checkpoint.
// Over several ranks rank 0 decides when, and the first failing rank's words stop them all.
#pragma once

#include "drivers/wave/checkpoints.hpp"
#include "drivers/wave/job.hpp"
#include "drivers/wave/progress.hpp"
#include "solvers/wave/solver.hpp"

namespace strata::wave {

template <class T>
class FiniteCheck {
 public:
  FiniteCheck(SolverT<T>& s, const Ranks& ranks, PhaseTimes& times, const Checkpoints& checkpoints)
      : s_(s), ranks_(ranks), times_(times), checkpoints_(checkpoints), finite_at_(s.step()) {}

  // Whether the time since the last check calls for one (rank 0's word, on every rank).
  bool due() const;
  // Checks u at step n; throws Error naming the places when it is not finite everywhere.
  void require(int n);
  // A state read from a file: not known to be finite at any step before it is checked.
  void forget() { finite_at_ = -1; }
  bool checked_at(int n) const { return finite_at_ == n; }

 private:
  SolverT<T>& s_;
  const Ranks& ranks_;
  PhaseTimes& times_;
  const Checkpoints& checkpoints_;
  int finite_at_;  // the last step u was checked finite at (-1: none)
  double cost_ = 0;
  Clock::time_point checked_ = Clock::now();
};

}  // namespace strata::wave

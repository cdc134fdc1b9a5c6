// When an iteration of solve_poisson stops, and the words that say why. The iteration
// stops when its own residual meets the tolerance (the caller then decides on the
// residual of the solution recomputed from scratch), at max_iter, on divergence (a
// stationary method whose residual grew tenfold above its best), or at the rounding floor:
// the residual already below eps * sum|A| * ||u|| (what rounding the solution to the
// arithmetic leaves, about 10x above the floors measured: docs/poisson.md) and no 1%
// progress for a while. Multigrid watches more closely: once a cycle gains less than 2x
// there, the residual is rounding noise while the smooth error still falls, so it goes on
// until the residual's smooth part (restricted to the next level) gains less than 1.5x.
// A plateau anywhere else is not a reason to stop (CG's residual is not monotone).
#pragma once

#include <chrono>
#include <functional>
#include <string>

#include "strata/poisson.hpp"

namespace strata::poisson {

enum class Stop { met, max_iter, floor, diverged };

struct MonitorSetup {
  double fnorm = 1;      // ||f||: residuals are reported relative to it
  double target = 0;     // the absolute tolerance max(rtol ||f||, atol)
  double eps = 0;        // unit roundoff of the arithmetic the solution is held in
  double coef_sum = 0;   // sum |A's coefficients|
  int max_iter = 1;
  bool stationary = true;  // mg, fmg, jacobi: the residual falls every iteration
  bool fast = false;       // multigrid: a cycle gaining less than 2x starts the smooth test
  int patience = 5;        // iterations without 1% progress before the floor test
  const char* precision = "fp64";
};

class Monitor {
public:
  Monitor(const MonitorSetup& setup, PoissonReport& report,
          const std::function<void(const PoissonIteration&)>& on_iteration);

  // Records iteration `it` (counted over the whole solve) with the method's residual norm;
  // `solution_norm` gives ||u|| of the current solution and `smooth_norm` the norm of the
  // residual's smooth part (multigrid; may be empty), both called only near the floor.
  // Returns true when the iteration must stop (then reason() says why).
  bool record(int it, double rnorm, const std::function<double()>& solution_norm,
              const std::function<double()>& smooth_norm = {});
  Stop reason() const { return reason_; }
  // The method starts over from the recomputed residual (its norm): progress and growth
  // are measured from there.
  void restart(double rnorm);

  // The residual norm rounding a solution of norm unorm leaves (about 6x above it for
  // smooth solutions: docs/poisson.md).
  double floor(double unorm) const { return s_.eps * s_.coef_sum * unorm; }
  const MonitorSetup& setup() const { return s_; }

  // Whether the solution's recomputed residual is at the rounding floor: the iteration
  // stalled there, or the method's own residual met the tolerance (or solved directly)
  // and the recomputed one is below the floor estimate.
  bool at_floor(double true_rnorm, double unorm, bool direct) const;
  // The report's message once the solution's residual `true_rnorm` is known.
  std::string message(double true_rnorm, double unorm) const;

private:
  MonitorSetup s_;
  PoissonReport& rep_;
  const std::function<void(const PoissonIteration&)>& cb_;
  Stop reason_ = Stop::max_iter;
  std::chrono::steady_clock::time_point last_ = std::chrono::steady_clock::now();
  double best_ = 0, progress_mark_ = 0, start_ = 0;
  int since_progress_ = 0;
  bool smooth_phase_ = false;  // multigrid at the floor, following the residual's smooth part
  double smooth_prev_ = 0;
  int diverged_at_ = 0;
  double diverged_from_ = 0;
};

std::string sci(double v);

}  // namespace strata::poisson

// The stopping rules of solve_poisson and its messages (solvers/poisson/monitor.hpp).
#include "solvers/poisson/monitor.hpp"

#include <cmath>
#include <sstream>

#include "strata/dist.hpp"
#include "strata/error.hpp"

namespace strata::poisson {

std::string sci(double v) {
  std::ostringstream os;
  os.precision(3);
  os << std::scientific << v;
  return os.str();
}

Monitor::Monitor(const MonitorSetup& setup, PoissonReport& report,
                 const std::function<void(const PoissonIteration&)>& on_iteration)
    : s_(setup), rep_(report), cb_(on_iteration) {
  restart(rep_.residuals.back() * s_.fnorm);
}

void Monitor::restart(double rnorm) {
  best_ = progress_mark_ = start_ = rnorm;
  since_progress_ = 0;
  smooth_phase_ = false;
}

bool Monitor::record(int it, double rnorm, const std::function<double()>& solution_norm,
                     const std::function<double()>& smooth_norm) {
  const double rel = rnorm / s_.fnorm;
  const double prev = rep_.residuals.back();
  rep_.residuals.push_back(rel);
  rep_.iterations = it;
  const auto now = std::chrono::steady_clock::now();
  const double ms = std::chrono::duration<double, std::milli>(now - last_).count();
  last_ = now;
  rep_.iteration_ms.push_back(ms);
  if (cb_) cb_({it, rel, prev > 0 ? rel / prev : 0, ms});
  if (!std::isfinite(rnorm))
    throw dist::AgreedError("the solve diverged at iteration " + std::to_string(it) +
                            ": the residual is not a finite number (NaN or Inf)");
  if (rnorm <= s_.target) {
    reason_ = Stop::met;
    return true;
  }
  // A stationary method whose residual grows is unstable on this problem; conjugate
  // gradients' residual may rise for a while, but not a millionfold.
  if (s_.stationary ? rnorm > 10 * best_ : rnorm > 1e6 * start_) {
    reason_ = Stop::diverged;
    diverged_at_ = it;
    diverged_from_ = best_;
    return true;
  }
  best_ = std::min(best_, rnorm);
  if (rnorm < 0.99 * progress_mark_) {
    progress_mark_ = rnorm;
    since_progress_ = 0;
  } else {
    ++since_progress_;
  }
  bool at_floor = false;
  if (smooth_phase_) {
    const double s = smooth_norm();
    at_floor = s > 2.0 / 3.0 * smooth_prev_;
    smooth_prev_ = s;
  } else if (s_.fast && rel > 0.5 * prev && rnorm <= floor(solution_norm())) {
    smooth_phase_ = bool(smooth_norm);
    at_floor = !smooth_phase_;
    if (smooth_phase_) smooth_prev_ = smooth_norm();
  }
  if (!at_floor && since_progress_ >= s_.patience) at_floor = rnorm <= floor(solution_norm());
  if (at_floor) {
    reason_ = Stop::floor;
    return true;
  }
  if (it >= s_.max_iter) {
    reason_ = Stop::max_iter;
    return true;
  }
  return false;
}

bool Monitor::at_floor(double true_rnorm, double unorm, bool direct) const {
  if (true_rnorm <= s_.target) return false;
  return reason_ == Stop::floor || ((direct || reason_ == Stop::met) && true_rnorm <= floor(unorm));
}

std::string Monitor::message(double true_rnorm, double unorm) const {
  const double rel = true_rnorm / s_.fnorm;
  const bool by_atol = rep_.atol > rep_.rtol * s_.fnorm;
  const std::string tol = by_atol ? "the tolerance atol " + sci(rep_.atol) + " (relative " +
                                        sci(s_.target / s_.fnorm) + ")"
                                  : "rtol " + sci(rep_.rtol);
  const std::string res = "relative residual " + sci(rel) + " (recomputed from the solution)";
  const std::string what = rep_.direct ? "direct solve: " : "";
  const std::string estimate = "eps * sum|A| * ||u|| / ||f|| = " + sci(floor(unorm) / s_.fnorm);
  if (rep_.converged && rep_.at_floor)
    return (rep_.direct ? what : "converged to the rounding floor: ") + res + ", the most " +
           s_.precision + " resolves for this solution and grid (" + estimate +
           "); the default rtol " + sci(rep_.rtol) + " is below it.";
  if (rep_.converged) {
    if (rep_.iterations == 0)
      return "the initial guess already meets the tolerance: " + res + " <= " + tol;
    return (rep_.direct ? what : "converged: ") + res + " <= " + tol;
  }
  const bool near_floor = true_rnorm <= floor(unorm);
  const std::string hint =
      std::string(" This is near the rounding floor of ") + s_.precision +
      " for this solution and grid (" + estimate + "): " +
      (std::string(s_.precision) == "fp32" ? "use --precision f64, or a larger --rtol or --atol."
                                           : "use a larger --rtol or --atol.");
  if (rep_.direct) return what + res + " > " + tol + "." + (near_floor ? hint : "");
  switch (reason_) {
    case Stop::met:
      return "the iteration's own residual met the tolerance, but the solution's " + res +
             " is above " + tol +
             (rep_.restarts ? " after " + std::to_string(rep_.restarts) + " restart(s) from it"
                            : "") +
             "." + (near_floor ? hint : "");
    case Stop::floor:
      return "stopped at the rounding floor after " + std::to_string(rep_.iterations) +
             " iterations (the residual stopped falling): " + res + " > " + tol + "." + hint;
    case Stop::diverged:
      return "diverged at iteration " + std::to_string(diverged_at_) +
             ": the relative residual grew to " + sci(rep_.residuals.back()) + " from " +
             sci(diverged_from_ / s_.fnorm) +
             (s_.stationary ? " (more than tenfold its best)" : " (a millionfold its start)") +
             "; the solution returned is the last iterate, " + res + ".";
    case Stop::max_iter:
      break;
  }
  const std::size_t k = rep_.residuals.size();
  const double last =
      k >= 2 && rep_.residuals[k - 2] > 0 ? rep_.residuals[k - 1] / rep_.residuals[k - 2] : 0;
  return "stopped at max_iter " + std::to_string(s_.max_iter) + " with " + res + " > " + tol +
         " (the last iteration reduced the residual by a factor " + sci(last) + ")." +
         (near_floor ? hint : "");
}

}  // namespace strata::poisson

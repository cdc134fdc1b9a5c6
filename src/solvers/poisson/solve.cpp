// solve_poisson: validates the request and runs the chosen method (method.hpp: one file a
// method, picked from a table) on the error equation A e = r0 with homogeneous boundary
// conditions (only r0 = f - A u0 sees the user's boundary values). Convergence is decided
// on the residual of u = u0 + e recomputed from scratch: when the method's own residual
// meets the tolerance and the recomputed one does not (CG's recursive residual drifts from
// the true one; r0 carries the rounding of A u0), the method starts again from the
// recomputed residual, a few times while that still falls. When to stop and the words that
// say why: solvers/poisson/monitor.hpp.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>

#include "backend/fft.hpp"
#include "dispatch/multigrid.hpp"
#include "solvers/poisson/cycle_marks.hpp"
#include "solvers/poisson/method.hpp"
#include "solvers/poisson/operator.hpp"
#include "strata/device.hpp"
#include "strata/dist.hpp"
#include "strata/error.hpp"

namespace strata {

namespace poisson {

template <class T, class V>
Solve<T, V>::Solve(const PoissonOptions& options, const V& f, V& solution)
    : o(options),
      u(solution),
      n(global_extent(f)),
      mem(local(f).memory()),
      h(o.h > 0 ? o.h : poisson_spacing(o.bc, n.nx)),
      a(poisson_stencil(o.op, h)),
      hb(o.bc.kind == BoundaryKind::dirichlet ? Boundary::dirichlet(0) : o.bc),
      sh(mem),
      s(sh.stream()),
      singular(o.bc.kind != BoundaryKind::dirichlet),
      rhs(like<T>(f)),
      r0(like<T>(f)),
      e(like<T>(f)),
      tmp(like<T>(f)) {
  copy_interior(f, rhs, s);
  if (singular) {  // the compatible right-hand side (check_compatible says what it cost)
    f_norm = norm2(rhs, s);
    f_mean = remove_mean(rhs, tmp, s);
  }
}

namespace {

using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

// Restarts from the recomputed residual after the method's own met the tolerance: enough
// for CG's drift and r0's rounding; beyond that the recomputed residual is at its floor.
constexpr int kMaxRestarts = 3;

}  // namespace

void validate(const PoissonOptions& o, Extent n, Memory mem) {
  require(o.pre >= 0 && o.post >= 0 && o.pre + o.post >= 1 && o.pre <= 32 && o.post <= 32,
          "smoothing steps must satisfy 0 <= pre, post <= 32 and pre + post >= 1");
  require(std::isfinite(o.rtol) && o.rtol < 1,
          "--rtol must be in [0, 1) (or negative for the default)");
  require(std::isfinite(o.atol) && o.atol >= 0, "--atol must be a finite number >= 0");
  require(o.rtol != 0 || o.atol > 0, "--rtol 0 needs a positive --atol: give a tolerance to reach");
  require(o.max_iter >= 1, "--max-iter must be >= 1");
  require(o.h >= 0 && std::isfinite(o.h), "the grid spacing must be positive (or 0 for automatic)");
  require(o.jacobi_omega >= 0 && o.jacobi_omega < 2, "the Jacobi damping must be in (0, 2)");
  CycleMarks::wanted();  // a diagnostic's setting read later, in the solve: refused here
  require(o.fmg_cycles >= 0 && o.fmg_cycles <= 8,
          "FMG cycles per level must be in 0..8 (0: automatic)");
  if (o.method == PoissonMethod::fft) {
    require(
        o.bc.kind == BoundaryKind::periodic && o.op == PoissonOperator::fd7,
        "the fft solver solves the periodic 7-point problem only (--bc periodic --operator fd7)");
    // On the CPU it needs the CPU's FFT (KissFFT): refused here, before anything is read or
    // allocated, in a build without it.
    require(mem == Memory::device || build_info().cpu_fft, cpu_fft_refusal());
  }
  if (o.bc.kind == BoundaryKind::periodic)
    require(n.nx >= 2 && n.ny >= 2 && n.nz >= 2,
            "a periodic grid needs at least 2 points per axis");
}

namespace {

// r0 = f - A u from scratch, with the user's boundary values; returns its norm.
template <class T, class V>
double recompute_residual(Solve<T, V>& S) {
  fill_ghosts(S.u, S.o.bc, 1, S.s);
  residual(S.a, S.u, S.rhs, S.r0, S.s);
  return norm2(S.r0, S.s);
}

}  // namespace

// On Neumann and periodic grids -Lap(u) = f has a solution only when f has zero mean; the
// solve runs on f - mean(f) (the Solve constructor removed it). When the part removed is
// above the tolerance (no u could then meet it for f as given) the caller is warned; when
// nothing but rounding is left, f lies in the null space (a constant) and the solve is
// refused rather than returning u = 0 as converged.
template <class T, class V>
void check_compatible(Solve<T, V>& S, double projected_norm, double target) {
  // NaN in f: the iteration says so, naming it.
  if (!S.singular || S.f_norm == 0 || !std::isfinite(S.f_norm)) return;
  const std::string bc = S.o.bc.kind == BoundaryKind::neumann ? "Neumann" : "periodic";
  const std::string mean = format_number(S.f_mean);
  if (projected_norm <= 8 * std::numeric_limits<T>::epsilon() * S.f_norm)
    throw dist::AgreedError(
        "f is constant (mean " + mean + "): on a " + bc +
        " grid -Lap(u) = f has a solution only when f has zero mean (sum f = 0: the "
        "sources balance), and a constant f minus its mean leaves nothing to solve. Give a "
        "right-hand side with zero mean");
  const double removed = std::fabs(S.f_mean) * std::sqrt(double(S.n.points()));
  if (removed <= target) return;
  char share[32];
  std::snprintf(share, sizeof share, "%.3g%%", 100 * removed / S.f_norm);
  const std::string w = "f has mean " + mean + " (" + share + " of ||f||): on a " + bc +
                        " grid -Lap(u) = f has a solution only when f has zero mean, so u solves "
                        "-Lap(u) = f - " +
                        mean + " (the mean removed)";
  S.rep.warnings.push_back(w);
  if (S.o.on_warning) S.o.on_warning(w);
}

template <class T, class V>
PoissonReport run(Solve<T, V>& S) {
  const MethodEntry<T, V>& entry = method_entry<T, V>(S.o.method);
  require(entry.make != nullptr,
          "the " + std::string(to_string(S.o.method)) +
              " solver runs on one process only: over several ranks use mg, cg or mgcg");
  PoissonReport& rep = S.rep;
  const auto t_setup = Clock::now();
  const double fnorm_raw = norm2(S.rhs, S.s);
  const double r0norm = recompute_residual(S);
  // Every stopping rule compares norms: one that is not a number would stop the solve at once
  // (inf <= rtol inf) or never. NaN or Inf in f, or finite values whose squares overflow a
  // double (beyond about 1e154: f64 fields only), are refused before the first iteration.
  // (This file's, the monitor's and CG's refusals are decided from the job's global sums, the
  // same on every rank: AgreedError, said once, every rank exiting 1 without an abort.)
  if (!std::isfinite(fnorm_raw) || !std::isfinite(r0norm))
    throw dist::AgreedError(
        std::string(!std::isfinite(fnorm_raw) ? "||f||, the right-hand side's norm,"
                                              : "the starting residual's norm") +
        " is not a finite number (" +
        format_number(!std::isfinite(fnorm_raw) ? fnorm_raw : r0norm) +
        "): f or the boundary values hold NaN or Inf, or values so large (beyond about 1e154) that "
        "the sum of their squares overflows; scale the problem");
  const double fnorm =
      fnorm_raw > 0 ? fnorm_raw : (r0norm > 0 ? r0norm : 1.0);  // f = 0: relative to the start
  rep.rtol_default = S.o.rtol < 0;
  rep.rtol = rep.rtol_default ? 1e-6 : S.o.rtol;
  rep.atol = S.o.atol;
  rep.rhs_mean = S.f_mean;
  check_compatible(S, fnorm_raw, std::max(rep.rtol * S.f_norm, rep.atol));
  rep.direct = entry.direct;
  const std::unique_ptr<Method<T, V>> method = entry.make(S);
  rep.levels = method->levels(S);
  runtime::stream_synchronize(S.s.handle);
  rep.setup_ms = ms_since(t_setup);

  const auto t_solve = Clock::now();
  MonitorSetup ms;
  ms.fnorm = fnorm;
  ms.target = std::max(rep.rtol * fnorm, rep.atol);
  ms.eps = std::numeric_limits<T>::epsilon();
  ms.coef_sum = coefficient_sum(S.a);
  ms.max_iter = S.o.max_iter;
  ms.fast = entry.fast;
  ms.stationary = entry.stationary;
  ms.precision = sizeof(T) == 4 ? "fp32" : "fp64";
  rep.residuals.push_back(r0norm / fnorm);
  S.mon.emplace(ms, rep, S.o.on_iteration);

  double rnorm = r0norm;
  bool converged = rnorm <= ms.target;
  while (!converged) {
    ++S.runs;
    const Stop stop = method->run(S);
    // u = u0 + e (the zero-mean representative on null spaces), its residual from scratch.
    axpy(T(1), S.e, S.u, S.s);
    if (S.singular) remove_mean(S.u, S.tmp, S.s);
    const double previous = rnorm;
    rnorm = recompute_residual(S);
    if (rep.direct) rep.residuals.push_back(rnorm / fnorm);
    converged = rnorm <= ms.target;
    // The method's residual met the tolerance, the solution's did not: again from the
    // recomputed residual, while that still falls and is above the rounding floor.
    if (converged || stop != Stop::met || rep.restarts >= kMaxRestarts ||
        !(rnorm < 0.5 * previous) || S.it >= S.o.max_iter || rnorm <= S.mon->floor(norm2(S.u, S.s)))
      break;
    ++rep.restarts;
    S.mon->restart(rnorm);
  }
  const double unorm = norm2(S.u, S.s);
  runtime::stream_synchronize(S.s.handle);
  rep.solve_ms = ms_since(t_solve);
  rep.level_ms = method->level_ms();

  rep.at_floor = S.mon->at_floor(rnorm, unorm, rep.direct);
  rep.converged = converged || (rep.rtol_default && rep.at_floor);
  rep.rel_residual = rnorm / fnorm;
  rep.message = S.mon->message(rnorm, unorm);
  rep.iterations_per_s = rep.iterations / (rep.solve_ms * 1e-3);
  rep.gb_per_s = method->bytes(S) / (rep.solve_ms * 1e-3) / 1e9;
  const double first = rep.residuals.front(), last = rep.residuals.back();
  if (!rep.direct && rep.iterations > 0 && first > 0 && last > 0)
    rep.convergence_factor = std::pow(last / first, 1.0 / rep.iterations);
  return rep;
}

#define STRATA_INSTANTIATE(T, V) \
  template struct Solve<T, V>;   \
  template PoissonReport run(Solve<T, V>&);
STRATA_INSTANTIATE(float, Field<float>)
STRATA_INSTANTIATE(double, Field<double>)
STRATA_INSTANTIATE(float, dist::DistField<float>)
STRATA_INSTANTIATE(double, dist::DistField<double>)
#undef STRATA_INSTANTIATE

}  // namespace poisson

void check_poisson_options(const PoissonOptions& o, Extent n, Memory memory) {
  poisson::validate(o, n, memory);
}

template <class T>
PoissonReport solve_poisson(const PoissonOptions& o, const Field<T>& f, Field<T>& u) {
  require(!f.empty() && !u.empty(), "solve_poisson: empty field");
  require(f.extent() == u.extent(),
          "solve_poisson: f is " + f.extent().str() + " but u is " + u.extent().str());
  require(f.memory() == u.memory(),
          "solve_poisson: f and u must both be host or both device fields");
  require(u.ghost() >= 1, "solve_poisson: u needs at least one ghost layer");
  poisson::validate(o, f.extent(), f.memory());
  poisson::Solve<T> solve(o, f, u);
  return poisson::run(solve);
}

template PoissonReport solve_poisson(const PoissonOptions&, const Field<float>&, Field<float>&);
template PoissonReport solve_poisson(const PoissonOptions&, const Field<double>&, Field<double>&);

}  // namespace strata

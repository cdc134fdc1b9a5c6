// The rows of the Poisson benchmark (bench/poisson.hpp) that the CPU and the GPU measure
// alike: a V(2,2) cycle's time and its convergence factor, a whole solve of the manufactured
// problem, an approximate solution's error against the discrete solution, the spectral solve.
// What differs comes from the caller (bench/poisson_cpu.cpp, bench/poisson_cuda.cu): where
// the fields live, the device's name in the rows and its timer (the host clock, CUDA events;
// on the GPU a V-cycle is timed as replays of its captured graph).
#pragma once

#include <algorithm>
#include <functional>
#include <string>
#include <vector>

#include "bench/bench.hpp"
#include "dispatch/fft.hpp"
#include "solvers/poisson/multigrid.hpp"
#include "solvers/poisson/operator.hpp"
#include "strata/poisson.hpp"
#include "strata/reduce.hpp"
#include "strata/manufactured.hpp"
#include "strata/vector_ops.hpp"

namespace strata::bench {

// Where a row runs: its fields' memory, the device's name in the row, the stream its work
// goes to (null on the CPU).
struct PoissonBenchDevice {
  Memory memory = Memory::host;
  std::string name = "cpu";
  Stream stream{};
};

// Times `run` as the device's benchmarks do: warm-ups, then the median of the repetitions.
using Timer = std::function<Timing(const std::function<void()>& run)>;

inline Result poisson_row(const PoissonBenchDevice& d, const std::string& kernel,
                          const std::string& variant, Precision p, Extent n) {
  return result_row(d.name, kernel, variant, p, n, 0);
}

// One V(2,2) Chebyshev cycle of `op` on n unknowns (Dirichlet), timed by time_cycles (given
// the multigrid after one untimed cycle); its smoothing pairs fused on the levels of at least
// fuse_min_points points where the backend has the fused pass (the variant says which).
template <class T>
Result vcycle_row(const PoissonBenchDevice& d, PoissonOperator op, Extent n,
                  const std::function<Timing(poisson::Multigrid<T>&)>& time_cycles,
                  double fuse_min_points = poisson::kFusedSmoothingMinPoints<T>,
                  const char* variant = "V(2,2)-cheb-graph") {
  const Boundary bc = Boundary::dirichlet(0.0);
  const double h = poisson_spacing(bc, n.nx);
  auto H = poisson::build_hierarchy<T>(op, bc.kind, n, h, d.memory, 0.0);
  Field<T> f(n, 1);
  poisson::manufactured<T>(bc, h, f, nullptr);
  copy(f, H.levels[0].f);
  poisson::Multigrid<T> M(H, Smoother::chebyshev, 2, 2, d.stream, 1, fuse_min_points);
  M.vcycle(0);  // initialises every kernel (and what a graph captures)
  const double bytes_per_cycle = M.bytes();
  const Timing t = time_cycles(M);

  Result r = poisson_row(d, std::string("vcycle_") + std::string(to_string(op)), variant,
                         precision_of<T>, n);
  r.bytes_per_point_opt = bytes_per_cycle / double(n.points());  // counted traffic per finest point
  set_rates(r, t);
  r.extra["cycles_per_s"] = 1e3 / t.median_ms;
  r.extra["ms_per_cycle"] = t.median_ms;
  r.extra["levels"] = int(H.levels.size());
  r.extra["grid_with_boundary"] = std::to_string(n.nx + 2) + "^3";

  // The convergence factor of the same cycle, from a short solve in double: in fp32 the
  // residual reaches its rounding floor (docs/poisson.md) within a few cycles and the
  // measured factor would describe the floor, not the cycle.
  PoissonOptions o;
  o.op = op;
  o.max_iter = 6;
  o.rtol = 1e-14;
  Field<double> f64(n, 1), df(n, 1, d.memory), du(n, 1, d.memory);
  poisson::manufactured<double>(bc, h, f64, nullptr);
  copy(f64, df);
  const PoissonReport rep = solve_poisson(o, df, du);
  r.extra["convergence_factor"] = rep.convergence_factor;
  r.extra["convergence_factor_note"] = "6 V(2,2) cycles in fp64, geometric mean";
  return r;
}

// A full solve of the manufactured problem (built where the fields live), timed as a user's
// second solve would be: one warm-up solve (kernel modules, graph capture, FFT plans), then
// the median of three. Setup (the hierarchy) is reported apart, as the CLI does.
template <class T>
Result solve_row(const PoissonBenchDevice& d, PoissonOptions o, Extent n, const std::string& name,
                 Field<T>* solution = nullptr) {
  o.h = poisson_spacing(o.bc, n.nx);
  Field<T> df(n, 1, d.memory), du(n, 1, d.memory);
  poisson::manufactured<T>(o.bc, o.h, df, nullptr);
  std::vector<double> times;
  PoissonReport rep;
  for (int k = 0; k < 4; ++k) {
    fill(du, T(o.bc.kind == BoundaryKind::dirichlet ? o.bc.value : 0.0));
    rep = solve_poisson(o, df, du);
    if (k > 0) times.push_back(rep.solve_ms);
  }
  std::sort(times.begin(), times.end());
  Result r =
      poisson_row(d, name, std::string(to_string(o.method)) + (o.mixed_precision ? "-mixed" : ""),
                  precision_of<T>, n);
  r.bytes_per_point_opt = 0;
  r.median_ms = times[1];
  r.min_ms = times.front();
  r.max_ms = times.back();
  r.reps = int(times.size());
  r.gb_per_s = rep.gb_per_s;
  r.extra = {{"setup_ms", rep.setup_ms},
             {"solve_ms", times[1]},
             {"iterations", rep.iterations},
             {"rel_residual", rep.rel_residual},
             {"converged", rep.converged},
             {"rtol", o.rtol},
             {"convergence_factor", rep.convergence_factor},
             {"error_rel_l2", poisson::manufactured_error(o.bc, o.h, du).rel_l2},
             {"message", rep.message},
             {"timing", "median of 3 solves after a warm-up solve"}};
  if (solution) *solution = std::move(du);
  return r;
}

// ||u - u_h|| / ||u_h - u*||: what an approximate solution u adds to the discretisation
// error of the exact discrete solution u_h (here an MG-CG solve to 1e-10), u* the
// manufactured solution. A pass "reaches discretisation accuracy" when this is small; the
// plain error ratio can even fall below 1 when the two errors partly cancel.
template <class T>
double algebraic_over_discretisation(const Field<T>& u, const Field<double>& uh,
                                     const Boundary& bc) {
  const Extent n = u.extent();
  const Memory m = u.memory();
  const double h = poisson_spacing(bc, n.nx);
  Field<double> d(n, 1, m), exact(n, 1, m), f(n, 1, m);
  poisson::convert(u, d, Stream{});
  axpy(-1.0, uh, d);
  poisson::manufactured<double>(bc, h, f, &exact);
  axpy(-1.0, uh, exact);
  return norm2(d) / norm2(exact);
}

// The Dirichlet solves of the manufactured problem on n: f64 CG preconditioned by f32
// V-cycles to 1e-10 (whose solution stands for the discrete one), one fp32 FMG pass with its
// algebraic error over the discretisation error, and fp32 multigrid at the default tolerance
// and fp64 multigrid to 1e-10 (`mg` only where asked for).
struct DirichletSolves {
  Result mgcg, fmg;
  std::vector<Result> mg;
};
inline DirichletSolves dirichlet_solve_rows(const PoissonBenchDevice& d, Extent n, bool with_mg) {
  DirichletSolves out;
  PoissonOptions o;
  o.bc = Boundary::dirichlet(0.0);
  o.method = PoissonMethod::mgcg;
  o.mixed_precision = true;
  o.max_iter = 40;
  o.rtol = 1e-10;
  Field<double> uh;
  out.mgcg = solve_row<double>(d, o, n, "solve_dirichlet_fd7", &uh);
  o.method = PoissonMethod::fmg;
  o.mixed_precision = false;
  o.max_iter = 1;  // one pass whatever the residual: its error is what is measured
  Field<float> uf;
  out.fmg = solve_row<float>(d, o, n, "solve_dirichlet_fd7", &uf);
  out.fmg.extra["algebraic_over_discretisation"] = algebraic_over_discretisation(uf, uh, o.bc);
  if (with_mg) {
    o.method = PoissonMethod::mg;
    o.max_iter = 40;
    o.rtol = -1;  // the default: 1e-6 or fp32's rounding floor
    out.mg.push_back(solve_row<float>(d, o, n, "solve_dirichlet_fd7"));
    o.rtol = 1e-10;
    out.mg.push_back(solve_row<double>(d, o, n, "solve_dirichlet_fd7"));
  }
  return out;
}

// fp32 multigrid on the periodic 7-point problem of n to 1e-5: the fft rows' problem.
inline Result periodic_mg_row(const PoissonBenchDevice& d, Extent n) {
  PoissonOptions p;
  p.bc = Boundary::periodic();
  p.rtol = 1e-5;
  return solve_row<float>(d, p, n, "solve_periodic_fd7");
}

// The spectral solve of the periodic 7-point problem on n (the manufactured right-hand
// side), what is prepared kept out of the timing (plans, the spectrum buffer).
template <class T>
Result fft_row(const PoissonBenchDevice& d, Extent n, const std::string& variant,
               const Timer& time) {
  const Boundary bc = Boundary::periodic();
  const double h = poisson_spacing(bc, n.nx);
  Field<T> f(n, 1);
  poisson::manufactured<T>(bc, h, f, nullptr);
  Field<T> df(n, 1, d.memory), du(n, 1, d.memory);
  copy(f, df);
  poisson::fft_prepare(df, du);
  const Timing t = time([&] { poisson::fft_solve(h, df, du, d.stream); });
  Result r = poisson_row(d, "fft_periodic_fd7", variant, precision_of<T>, n);
  r.bytes_per_point_opt = 0;
  set_rates(r, t);
  r.extra["ms_per_solve"] = t.median_ms;
  r.extra["note"] = "R2C + divide by the 7-point symbol + C2R, plans cached";
  return r;
}

}  // namespace strata::bench

// Poisson benchmark on the GPU: V(2,2) cycle time (a captured cycle replayed, one event
// pair per replay, median) at 257^3 and 513^3 grids (255^3 / 511^3 unknowns inside the
// Dirichlet boundary), the 513^3 Dirichlet solves the issue sets targets for, and the cuFFT
// spectral solve of the periodic 7-point problem at 512^3 for reference.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <vector>

#include "bench/cuda_timing.cuh"
#include "bench/poisson.hpp"
#include "dispatch/fft.hpp"
#include "dispatch/multigrid.hpp"
#include "strata/testing/manufactured.hpp"
#include "solvers/poisson/multigrid.hpp"
#include "solvers/poisson/operator.hpp"
#include "base/runtime.hpp"
#include "strata/device.hpp"
#include "strata/poisson.hpp"
#include "strata/reduce.hpp"
#include "strata/vector_ops.hpp"

namespace strata::bench {

namespace {

Result base(const std::string& kernel, const std::string& variant, Precision p, Extent n) {
  return result_row("cuda", kernel, variant, p, n, 0);
}

// One V(2,2) Chebyshev cycle of `op` on n unknowns, replayed from a graph; its smoothing
// pairs fused on the levels of at least fuse_min_points points (the default policy, 0 for
// every level that can, infinity for single steps only: the variant says which).
template <class T>
Result vcycle(PoissonOperator op, Extent n, const Options& opt, double fuse_min_points = poisson::kFusedSmoothingMinPoints<T>,
              const char* variant = "V(2,2)-cheb-graph") {
  const Boundary bc = Boundary::dirichlet(0.0);
  const double h = poisson_spacing(bc, n.nx);
  auto H = poisson::build_hierarchy<T>(op, bc.kind, n, h, Memory::device, 0.0);
  Field<T> f(n, 1);
  poisson::manufactured<T>(bc, h, f, nullptr);
  copy(f, H.levels[0].f);
  void* stream = runtime::stream_create();
  const Stream s{stream};
  poisson::Multigrid<T> M(H, Smoother::chebyshev, 2, 2, s, 1, fuse_min_points);
  M.vcycle(0);  // initialises every kernel before capture
  const double bytes_per_cycle = M.bytes();
  void* graph = runtime::graph_capture(stream, [&] { M.vcycle(0); });
  const Timing t = time_launches([&] { runtime::graph_launch(graph, stream); }, opt.warmup, opt.reps,
                                 static_cast<cudaStream_t>(stream));
  runtime::graph_destroy(graph);
  runtime::stream_destroy(stream);

  Result r = base(std::string("vcycle_") + std::string(to_string(op)), variant, precision_of<T>, n);
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
  Field<double> f64(n, 1), df(n, 1, Memory::device), du(n, 1, Memory::device);
  poisson::manufactured<double>(bc, h, f64, nullptr);
  copy(f64, df);
  const PoissonReport rep = solve_poisson(o, df, du);
  r.extra["convergence_factor"] = rep.convergence_factor;
  r.extra["convergence_factor_note"] = "6 V(2,2) cycles in fp64, geometric mean";
  return r;
}

// One Chebyshev smoothing sweep of two steps (a Jacobi step, then a three-term step) on a
// level of n points of the 7-point operator, Dirichlet: the two single passes (with their
// ghost fills) against one fused pass, each checked bit for bit against the other first.
// Where the fused pass gains is where kFusedSmoothingMinPoints<T> should sit.
template <class T>
Result smoothing_pair(Extent n, const Options& opt) {
  const Boundary bc = Boundary::dirichlet(0.0);
  // One spacing on every axis, as a solve's levels have (unequal ones make the 7-point
  // operator a 27-point stencil with zero edges and corners, which takes single steps).
  const double h = 1.0 / (n.nx + 1);
  const Stencil a = poisson::poisson_stencil(PoissonOperator::fd7, {h, h, h});
  poisson::SmoothingStep steps[2];
  steps[0].omega = 1.0 / 1.05;
  steps[1] = {true, 0.0, 0.32, 1.21};
  Field<T> u(n, 1, Memory::device), f(n, 1, Memory::device), u1(n, 1, Memory::device), u2(n, 1, Memory::device),
      fused(n, 1, Memory::device);
  Field<T> host(n, 1);
  for (int z = 0; z < n.nz; ++z)
    for (int y = 0; y < n.ny; ++y)
      for (int x = 0; x < n.nx; ++x) host(x, y, z) = T(std::sin(0.37 * x + 0.11 * y * z) + 0.01 * z);
  copy(host, u);
  copy(host, f);
  const Stream s{};
  auto single = [&] {
    poisson::jacobi(a, steps[0].omega, u, f, u1, s);
    poisson::chebyshev(a, steps[1].alpha, steps[1].beta, u1, f, u2, s);  // u2's prior value is unused by the timing
  };
  auto fuse = [&] { return poisson::smooth_fused<T>(a, steps, bc, u, f, fused, s); };
  copy(u, u2);  // the iterate before u1, which the Chebyshev step reads and overwrites
  single();
  const bool ok = fuse();
  Field<T> want(n, 1), got(n, 1);
  copy(u2, want);
  copy(fused, got);
  bool same = ok;
  for (int z = 0; z < n.nz && same; ++z)
    for (int y = 0; y < n.ny && same; ++y)
      for (int x = 0; x < n.nx && same; ++x) same = std::memcmp(&want(x, y, z), &got(x, y, z), sizeof(T)) == 0;
  if (!same) throw Error("bench: the fused smoothing pass differs from the single steps at " + n.str());
  const Timing ts = time_launches(single, opt.warmup, opt.reps, nullptr);
  const Timing tf = time_launches([&] { fuse(); }, opt.warmup, opt.reps, nullptr);
  Result r = base("smooth2_fd7", "jacobi+chebyshev fused", precision_of<T>, n);
  r.bytes_per_point_opt = 3.0 * sizeof(T) / 2;  // per point and step: u and f read, the result written
  set_rates(r, tf);
  r.extra["single_steps_ms"] = ts.median_ms;
  r.extra["fused_over_single"] = ts.median_ms / tf.median_ms;
  r.extra["checked"] = "bit for bit against the single steps";
  return r;
}

// A full solve of the manufactured problem (built on the device), timed as a user's second
// solve would be: one warm-up solve (kernel modules, graph capture, cuFFT plans), then the
// median of three. Setup (the hierarchy) is reported apart, as the CLI does.
template <class T>
Result solve(PoissonOptions o, Extent n, const std::string& name, const Options&, Field<T>* solution = nullptr) {
  o.h = poisson_spacing(o.bc, n.nx);
  Field<T> df(n, 1, Memory::device), du(n, 1, Memory::device);
  poisson::manufactured<T>(o.bc, o.h, df, nullptr);
  std::vector<double> times;
  PoissonReport rep;
  for (int k = 0; k < 4; ++k) {
    fill(du, T(o.bc.kind == BoundaryKind::dirichlet ? o.bc.value : 0.0));
    rep = solve_poisson(o, df, du);
    if (k > 0) times.push_back(rep.solve_ms);
  }
  std::sort(times.begin(), times.end());
  Result r = base(name, std::string(to_string(o.method)) + (o.mixed_precision ? "-mixed" : ""), precision_of<T>, n);
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
double algebraic_over_discretisation(const Field<T>& u, const Field<double>& uh, const Boundary& bc) {
  const Extent n = u.extent();
  const double h = poisson_spacing(bc, n.nx);
  Field<double> d(n, 1, Memory::device), exact(n, 1, Memory::device), f(n, 1, Memory::device);
  poisson::convert(u, d, Stream{});
  axpy(-1.0, uh, d);
  poisson::manufactured<double>(bc, h, f, &exact);
  axpy(-1.0, uh, exact);
  return norm2(d) / norm2(exact);
}

template <class T>
Result fft(Extent n, const Options& opt) {
  const Boundary bc = Boundary::periodic();
  const double h = poisson_spacing(bc, n.nx);
  Field<T> f(n, 1);
  poisson::manufactured<T>(bc, h, f, nullptr);
  Field<T> df(n, 1, Memory::device), du(n, 1, Memory::device);
  copy(f, df);
  void* stream = runtime::stream_create();
  const Timing t = time_launches([&] { poisson::fft_solve(h, df, du, Stream{stream}); }, opt.warmup, opt.reps,
                                 static_cast<cudaStream_t>(stream));
  runtime::stream_destroy(stream);
  Result r = base("fft_periodic_fd7", "cuFFT", precision_of<T>, n);
  r.bytes_per_point_opt = 0;
  set_rates(r, t);
  r.extra["ms_per_solve"] = t.median_ms;
  r.extra["note"] = "R2C + divide by the 7-point symbol + C2R, plans cached";
  return r;
}

}  // namespace

std::vector<Result> poisson_cuda(const Options& opt) {
  require(cuda_available(), "the Poisson benchmark needs a GPU: " + cuda_unavailable_reason());
  std::vector<Result> out;
  auto note = [&](const Result& r) {
    row_done(opt, r);
    out.push_back(r);
  };
  // Issue 11's targets (H100): V(2,2) at 255^3 >= 1500 cycles/s; one FMG pass to
  // discretisation accuracy <= 12 ms; MG-CG f64 with f32 V-cycles to 1e-10 <= 80 ms; each
  // also on grids that do not nest (256^3 / 250^3, 512^3 / 500^3), not only 2^k - 1.
  auto target = [](Result r, const char* what, double limit, bool meets) {
    r.extra["target"] = what;
    r.extra["target_value"] = limit;
    r.extra["meets_target"] = meets;
    return r;
  };
  for (int n : {511, 255, 127, 63, 31}) {
    note(smoothing_pair<float>({n, n, n}, opt));
    note(smoothing_pair<double>({n, n, n}, opt));
  }
  // Boxes between 255^3 and 511^3, where a distributed level's are (511^3 and 255^3 in two
  // z slabs): where the fused pair starts to pay (kFusedSmoothingMinPoints).
  for (Extent n : {Extent{511, 511, 256}, Extent{383, 383, 383}, Extent{319, 319, 319}, Extent{255, 255, 128}}) {
    note(smoothing_pair<float>(n, opt));
    note(smoothing_pair<double>(n, opt));
  }
  for (PoissonOperator op : {PoissonOperator::fd7, PoissonOperator::fe27})
    for (int n : {255, 511}) note(vcycle<float>(op, {n, n, n}, opt));
  for (int n : {256, 250}) note(vcycle<float>(PoissonOperator::fd7, {n, n, n}, opt));
  for (int n : {255, 511}) {  // the smoothing pairs fused nowhere, and wherever a level allows
    note(vcycle<float>(PoissonOperator::fd7, {n, n, n}, opt, HUGE_VAL, "V(2,2)-cheb-graph-single-steps"));
    note(vcycle<float>(PoissonOperator::fd7, {n, n, n}, opt, 0.0, "V(2,2)-cheb-graph-fused-every-level"));
    note(vcycle<double>(PoissonOperator::fd7, {n, n, n}, opt));  // fp64: the default fuses the large levels
    note(vcycle<double>(PoissonOperator::fd7, {n, n, n}, opt, HUGE_VAL, "V(2,2)-cheb-graph-single-steps"));
    note(vcycle<double>(PoissonOperator::fd7, {n, n, n}, opt, 0.0, "V(2,2)-cheb-graph-fused-every-level"));
  }
  // fp32 fused on the finest level only (where its pair gains, 511^3)
  note(vcycle<float>(PoissonOperator::fd7, {511, 511, 511}, opt, 1e8, "V(2,2)-cheb-graph-fused-finest"));
  for (Result& r : out)
    if (r.kernel == "vcycle_fd7" && r.shape.nx <= 256 && r.variant == "V(2,2)-cheb-graph" &&
        r.precision == precision_of<float>)
      r = target(r, "cycles_per_s >= 1500", 1500, r.extra["cycles_per_s"].get<double>() >= 1500);

  for (int m : {511, 512, 500}) {
    const Extent big{m, m, m};
    PoissonOptions o;
    o.bc = Boundary::dirichlet(0.0);
    o.method = PoissonMethod::mgcg;
    o.mixed_precision = true;
    o.max_iter = 40;
    o.rtol = 1e-10;
    Field<double> uh;
    Result cg = solve<double>(o, big, "solve_dirichlet_fd7", opt, &uh);  // f64 CG, f32 V-cycles, to 1e-10
    cg = target(cg, "solve_ms <= 80", 80, cg.median_ms <= 80 && cg.extra["converged"].get<bool>());
    note(cg);
    o.method = PoissonMethod::fmg;
    o.mixed_precision = false;
    o.max_iter = 1;
    o.rtol = 1e-10;  // one pass whatever the residual: its error is what is measured
    Field<float> uf;
    Result fmg = solve<float>(o, big, "solve_dirichlet_fd7", opt, &uf);
    const double ratio = algebraic_over_discretisation(uf, uh, o.bc);
    fmg.extra["algebraic_over_discretisation"] = ratio;
    fmg = target(fmg, "solve_ms <= 12, algebraic error <= 0.5 of the discretisation error", 12,
                 fmg.median_ms <= 12 && ratio <= 0.5);
    note(fmg);
    if (m == 511) {
      o.method = PoissonMethod::mg;
      o.max_iter = 40;
      o.rtol = -1;  // the default: 1e-6 or fp32's rounding floor
      note(solve<float>(o, big, "solve_dirichlet_fd7", opt));  // fp32 multigrid, default tolerance
      o.rtol = 1e-10;
      note(solve<double>(o, big, "solve_dirichlet_fd7", opt));  // fp64 multigrid to 1e-10
    }
  }

  note(fft<float>({512, 512, 512}, opt));
  PoissonOptions p;
  p.bc = Boundary::periodic();
  p.rtol = 1e-5;
  note(solve<float>(p, {512, 512, 512}, "solve_periodic_fd7", opt));
  return out;
}

}  // namespace strata::bench

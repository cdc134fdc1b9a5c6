// Poisson benchmark on the GPU: V(2,2) cycle time (a captured cycle replayed, one event
// pair per replay, median) at 257^3 and 513^3 grids (255^3 / 511^3 unknowns inside the
// Dirichlet boundary), the smoothing pairs fused and single, the 513^3 Dirichlet solves the
// issue sets targets for, and the cuFFT spectral solve of the periodic 7-point problem at
// 512^3 for reference. The rows the CPU measures alike are in bench/poisson_rows.hpp.
#include <cmath>
#include <cstring>
#include <vector>

#include "base/runtime.hpp"
#include "bench/cuda_timing.cuh"
#include "bench/poisson.hpp"
#include "bench/poisson_rows.hpp"
#include "dispatch/multigrid.hpp"
#include "solvers/poisson/multigrid.hpp"
#include "solvers/poisson/operator.hpp"
#include "strata/device.hpp"
#include "strata/poisson.hpp"

namespace strata::bench {

namespace {

// A stream of its own for one row's work, destroyed with the row.
struct RowStream {
  RowStream() : handle(runtime::stream_create()) {}
  ~RowStream() { runtime::stream_destroy(handle); }
  RowStream(const RowStream&) = delete;
  RowStream& operator=(const RowStream&) = delete;
  PoissonBenchDevice device() const { return {Memory::device, "cuda", Stream{handle}}; }
  void* handle;
};

Result base(const std::string& kernel, const std::string& variant, Precision p, Extent n) {
  return poisson_row({Memory::device, "cuda", {}}, kernel, variant, p, n);
}

// One V(2,2) cycle (poisson_rows.hpp) captured once as a CUDA graph and timed as replays.
template <class T>
Result vcycle(PoissonOperator op, Extent n, const Options& opt, double fuse_min_points = poisson::kFusedSmoothingMinPoints<T>,
              const char* variant = "V(2,2)-cheb-graph") {
  const RowStream rs;
  const auto stream = static_cast<cudaStream_t>(rs.handle);
  const auto replays = [&](poisson::Multigrid<T>& M) {
    void* graph = runtime::graph_capture(rs.handle, [&] { M.vcycle(0); });
    const Timing t = time_launches([&] { runtime::graph_launch(graph, rs.handle); }, opt.warmup,
                                   opt.reps, stream);
    runtime::graph_destroy(graph);
    return t;
  };
  return vcycle_row<T>(rs.device(), op, n, replays, fuse_min_points, variant);
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

template <class T>
Result fft(Extent n, const Options& opt) {
  const RowStream rs;
  const auto stream = static_cast<cudaStream_t>(rs.handle);
  return fft_row<T>(rs.device(), n, "cuFFT", [&](const std::function<void()>& run) {
    return time_launches(run, opt.warmup, opt.reps, stream);
  });
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

  const PoissonBenchDevice gpu{Memory::device, "cuda", {}};
  for (int m : {511, 512, 500}) {
    DirichletSolves solves = dirichlet_solve_rows(gpu, {m, m, m}, m == 511);
    const Result& cg = solves.mgcg;  // f64 CG, f32 V-cycles, to 1e-10
    note(target(cg, "solve_ms <= 80", 80, cg.median_ms <= 80 && cg.extra["converged"].get<bool>()));
    const Result& fmg = solves.fmg;
    const double ratio = fmg.extra["algebraic_over_discretisation"].get<double>();
    note(target(fmg, "solve_ms <= 12, algebraic error <= 0.5 of the discretisation error", 12,
                fmg.median_ms <= 12 && ratio <= 0.5));
    for (const Result& r : solves.mg) note(r);  // fp32 at the default tolerance, fp64 to 1e-10
  }

  note(fft<float>({512, 512, 512}, opt));
  note(periodic_mg_row(gpu, {512, 512, 512}));
  return out;
}

}  // namespace strata::bench

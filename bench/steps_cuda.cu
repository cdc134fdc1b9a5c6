// GPU benchmark of repeated steps (bench/steps.hpp).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>

#include "bench/cuda_timing.cuh"
#include "bench/steps.hpp"
#include "strata/apply.hpp"
#include "strata/device.hpp"
#include "strata/steps.hpp"
#include "strata/testing/verify.hpp"

namespace strata::bench {

namespace {

constexpr int kSteps = 12;
constexpr double kC = 0.05;  // stable for every Laplacian below at h = 1

Stencil stencil_named(const std::string& name) {
  if (name == "7pt") return Stencil::laplacian(2);
  if (name == "star2") return Stencil::laplacian(4);
  if (name == "star4") return Stencil::laplacian(8);
  return Stencil::fe27();
}

template <class T>
void fill_host(Field<T>& f, std::uint64_t seed) {
  for (std::size_t i = 0; i < f.layout().size; ++i) {
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    f.data()[i] = T(2.0 * double(seed >> 11) * 0x1p-53 - 1.0);
  }
}

// One pass per step against the CPU, then k steps per pass against one pass per step on
// the device (the same bits). Returns "" when both hold, else what failed.
template <class T>
std::string check(const Stencil& s, int fuse) {
  const Extent n{67, 45, 37};
  const Boundary bc = Boundary::dirichlet(0.25);
  Field<T> h(n, 8);
  fill_host(h, 17);
  Field<T> single(n, 8, Memory::device), fused(n, 8, Memory::device);
  copy(h, single);
  copy(h, fused);
  StepOptions o{StepUpdate::relax, kC, 1};
  apply_steps(s, single, bc, kSteps, o);
  Field<T> back(n, 8);
  copy(single, back);
  if (fuse == 1) {
    apply_steps(s, h, bc, kSteps, o);
    const double tol = verify::steps_bound(s, o, kSteps, double(std::numeric_limits<T>::epsilon()));
    const double worst = verify::worst_relative(back, h);
    if (!(worst <= tol)) return "one pass per step differs from the CPU by " + std::to_string(worst);
    return "";
  }
  o.fuse = fuse;
  apply_steps(s, fused, bc, kSteps, o);
  Field<T> got(n, 8);
  copy(fused, got);
  for (int z = 0; z < n.nz; ++z)
    for (int y = 0; y < n.ny; ++y)
      for (int x = 0; x < n.nx; ++x)
        if (std::memcmp(&got(x, y, z), &back(x, y, z), sizeof(T)) != 0)
          return "fused passes differ from one pass per step at (" + std::to_string(x) + ", " + std::to_string(y) +
                 ", " + std::to_string(z) + ")";
  return "";
}

template <class T>
void run_precision(const Options& opt, Extent shape, std::vector<Result>& out) {
  const Layout L = Layout::make(shape, 8, sizeof(T));
  require_device_memory(2 * L.bytes(), "the " + shape.str() + " steps benchmark");
  Field<T> u(shape, 8, Memory::device);
  fill_device_random(u.data(), L.size, 0x5eed, nullptr);
  {
    Field<T> dst(shape, 8, Memory::device);
    Result memcpy_r = result_row("cuda", "memcpy", "cudaMemcpy", precision_of<T>, shape, 2.0 * sizeof(T));
    memcpy_r.points = double(shape.points());  // the interior: the single-step rate's points
    set_rates(memcpy_r, time_launches([&] {
                STRATA_CUDA_CHECK(cudaMemcpyAsync(dst.origin(), u.origin(), shape.points() * sizeof(T),
                                                  cudaMemcpyDeviceToDevice, nullptr));
              }, opt.warmup, opt.reps, nullptr));
    memcpy_r.reference = "memcpy";
    memcpy_r.ratio_to_copy = 1;
    out.push_back(memcpy_r);
  }
  const Result ref = out.back();  // a copy: out grows below
  Field<T> scratch(shape, 8, Memory::device);  // allocated once, outside the timed calls
  const bool all = opt.kernels.empty() || opt.kernels == std::vector<std::string>{"steps"};
  for (const std::string name : {"7pt", "star2", "star4", "sym27"}) {
    if (!all && std::find(opt.kernels.begin(), opt.kernels.end(), name) == opt.kernels.end()) continue;
    const Stencil s = stencil_named(name);
    for (int fuse = 1; fuse <= 4; ++fuse) {
      const std::string bad = check<T>(s, fuse);
      if (!bad.empty())
        throw Error("benchmark refused: steps " + name + " fuse " + std::to_string(fuse) + " (" +
                    to_string(precision_of<T>) + "): " + bad);
      Result r = result_row("cuda", "steps:" + name, fuse == 1 ? "per-step" : "fuse " + std::to_string(fuse),
                            precision_of<T>, shape, 2.0 * sizeof(T), double(shape.points()) * kSteps);
      const StepOptions o{StepUpdate::relax, kC, fuse};
      set_rates(r, time_launches([&] { apply_steps(s, u, scratch, Boundary::dirichlet(0.25), kSteps, o); }, opt.warmup,
                                 opt.reps, nullptr));
      compare_to(r, ref);
      r.extra["steps"] = kSteps;
      r.extra["fuse"] = fuse;
      r.extra["validated"] = fuse == 1 ? "against the CPU's steps" : "bit for bit against one pass per step";
      row_done(opt, r);
      out.push_back(r);
    }
  }
}

}  // namespace

std::vector<Result> steps_cuda(const Options& opt) {
  std::vector<Result> out;
  const std::vector<Extent> shapes = opt.shapes.empty() ? std::vector<Extent>{{512, 512, 512}} : opt.shapes;
  const std::vector<Precision> precisions =
      opt.precisions.empty() ? std::vector<Precision>{Precision::f32, Precision::f64} : opt.precisions;
  for (const Extent& shape : shapes)
    for (Precision p : precisions) {
      if (p == Precision::f32)
        run_precision<float>(opt, shape, out);
      else
        run_precision<double>(opt, shape, out);
    }
  return out;
}

}  // namespace strata::bench

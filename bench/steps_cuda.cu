// GPU benchmark of repeated steps (bench/steps.hpp).
#include <cstring>
#include <limits>

#include "bench/cuda_timing.cuh"
#include "bench/steps.hpp"
#include "strata/apply.hpp"
#include "strata/device.hpp"
#include "strata/steps.hpp"
#include "verify/stencil_check.hpp"

namespace strata::bench {

namespace {

// One pass per step against the CPU, then k steps per pass against one pass per step on
// the device (the same bits). Returns "" when both hold, else what failed.
template <class T>
std::string check(const Stencil& s, int fuse) {
  const Extent n = kStepsCheckShape;
  const Boundary bc = kStepsBoundary;
  Field<T> h(n, 8);
  steps_fill(h, 17);
  Field<T> single(n, 8, Memory::device), fused(n, 8, Memory::device);
  copy(h, single);
  copy(h, fused);
  StepOptions o = steps_options(1);
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
  for (const std::string& name : steps_stencils(opt)) {
    const Stencil s = steps_stencil(name);
    for (int fuse = 1; fuse <= 4; ++fuse) {
      const std::string bad = check<T>(s, fuse);
      if (!bad.empty())
        throw Error("benchmark refused: steps " + name + " fuse " + std::to_string(fuse) + " (" +
                    to_string(precision_of<T>) + "): " + bad);
      const StepOptions o = steps_options(fuse);
      const Timing t = time_launches([&] { apply_steps(s, u, scratch, kStepsBoundary, kSteps, o); },
                                     opt.warmup, opt.reps, nullptr);
      out.push_back(steps_row(
          opt, "cuda", name, fuse, precision_of<T>, shape, t, ref,
          fuse == 1 ? "against the CPU's steps" : "bit for bit against one pass per step"));
    }
  }
}

}  // namespace

std::vector<Result> steps_cuda(const Options& opt) {
  std::vector<Result> out;
  for_each_case(
      opt, {Extent{512, 512, 512}}, {Precision::f32, Precision::f64},
      [&](auto tag, const Extent& shape) { run_precision<decltype(tag)>(opt, shape, out); });
  return out;
}

}  // namespace strata::bench

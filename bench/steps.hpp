// The repeated-steps benchmark behind `strata bench --kernel steps` (strata/steps.hpp): the
// heat step u <- u + c A u taken `kSteps` times (12: divisible by 2, 3 and 4) on a grid with
// Dirichlet faces, per stencil (7pt, star2, star4, sym27) and precision. Rates are per step:
// points x steps / time, GB/s at 2 sizeof(T) bytes per point and step; ratio_to_copy is the
// rate over the copy-bound single-step rate (the copy's GB/s / 2 sizeof T).
//   GPU (512^3): one pass per step, then passes of k = 2..4 fused steps where strata has
//   them (all but star4); each checked first on 67x45x37, one pass per step against the
//   CPU's steps (the GPU tests' bound), fused against one pass per step bit for bit; the
//   reference is cudaMemcpy of the field.
//   CPU (128^3, or --size / --shape): one pass per step (the CPU backend has no fused
//   passes), checked first on 67x45x37 against the same steps taken as plain stencil passes
//   and axpys (the public apply); the reference is the CPU copy kernel.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "bench/bench.hpp"
#include "strata/boundary.hpp"
#include "strata/steps.hpp"

namespace strata::bench {

std::vector<Result> steps_cpu(const Options& opt);
std::vector<Result> steps_cuda(const Options& opt);  // throws without CUDA

// What both devices share (bench/steps.cpp).
inline constexpr int kSteps = 12;
inline constexpr double kC = 0.05;  // stable for every Laplacian below at h = 1
// The stencils timed, in report order (opt.kernels may select some).
std::vector<std::string> steps_stencils(const Options& opt);
Stencil steps_stencil(const std::string& name);
inline StepOptions steps_options(int fuse) { return {StepUpdate::relax, kC, fuse}; }
inline const Boundary kStepsBoundary = Boundary::dirichlet(0.25);
inline constexpr Extent kStepsCheckShape{67, 45, 37};  // where a row is checked before it is timed
// The whole allocation of f (ghosts included) from a seeded generator, in [-1, 1).
template <class T>
void steps_fill(Field<T>& f, std::uint64_t seed) {
  for (std::size_t i = 0; i < f.layout().size; ++i) {
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    f.data()[i] = T(2.0 * double(seed >> 11) * 0x1p-53 - 1.0);
  }
}
// The row of `fuse` steps per pass of `name` on `device`, timed by t, against the reference
// row (the copy of the same field), with what its check validated; handed to opt.on_row
// (row_done) as it is returned.
Result steps_row(const Options& opt, const std::string& device, const std::string& name, int fuse,
                 Precision p, Extent shape, const Timing& t, const Result& reference,
                 const std::string& validated);

}  // namespace strata::bench

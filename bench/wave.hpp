// The wave benchmarks behind `strata bench --kernel wave`: the fused leapfrog update
// (stencil + time update + velocity, 4 sizeof(T) bytes per point) at radius 4 against the
// 2.5D copy kernel of the same run, and a whole solver step with and without CPML layers.
#pragma once

#include <algorithm>
#include <vector>

#include "bench/bench.hpp"

namespace strata::bench {

// GPU: fp32 512^3 by default (opt.precisions / opt.shapes override). Results: "copy" (the
// reference), "wave" per compiled radius-4 variant (each validated first), "wave_step" for
// the solver with rigid faces and with 16-point CPML on five faces (free top), with
// extra.cost_over_rigid against extra.share = 1 + layer fraction. Throws without CUDA.
std::vector<Result> wave_cuda(const Options& opt);

// Width of the absorbing layers in the benchmark's CPML step: 16 points, or as many as a
// small grid holds beside the stencil (0: the grid is too small for layers; skip the step).
inline int bench_pml_width(Extent shape, int radius) {
  const int smallest = std::min({shape.nx, shape.ny, shape.nz});
  const int w = std::min(16, (smallest - 2 * radius) / 4);
  return w >= 2 ? w : 0;
}
// CPU: the reference backend's step on 128^3 by default, against its copy loop.
std::vector<Result> wave_cpu(const Options& opt);

}  // namespace strata::bench

// The wave benchmarks behind `strata bench --kernel wave`: the fused leapfrog update
// (stencil + time update + velocity, 4 sizeof(T) bytes per point) at radius 4 against the
// 2.5D copy kernel of the same run, and a whole solver step with and without CPML layers.
#pragma once

#include <vector>

#include "bench/bench.hpp"

namespace strata::bench {

// GPU: fp32 512^3 by default (opt.precisions / opt.shapes override). Results: "copy" (the
// reference), "wave" per compiled radius-4 variant (each validated first), "wave_step" for
// the solver with rigid faces and with 16-point CPML on five faces (free top), with
// extra.cost_over_rigid against extra.share = 1 + layer fraction. Throws without CUDA.
std::vector<Result> wave_cuda(const Options& opt);
// CPU: the reference backend's step on 128^3 by default, against its copy loop.
std::vector<Result> wave_cpu(const Options& opt);

}  // namespace strata::bench

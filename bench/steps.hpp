// The repeated-steps benchmark behind `strata bench --kernel steps` (strata/steps.hpp): the
// heat step u <- u + c A u taken `steps` times (12 by default: divisible by 2, 3 and 4) on a
// 512^3 grid with Dirichlet faces, per stencil (7pt, star2, star4, sym27) and precision: one
// pass per step, then passes of k = 2..4 fused steps where strata has them (all but star4). Each is checked
// first on 67x45x37: one pass per step against the CPU's steps (the GPU tests' bound), fused
// against one pass per step bit for bit. Rates are per step: points x steps / time, GB/s
// at 2 sizeof(T) bytes per point and step; the reference is cudaMemcpy of the field, so
// ratio_to_copy is the rate over the memcpy-bound single-step rate (memcpy GB/s / 2 sizeof T).
#pragma once

#include <vector>

#include "bench/bench.hpp"

namespace strata::bench {

std::vector<Result> steps_cuda(const Options& opt);  // throws without CUDA

}  // namespace strata::bench

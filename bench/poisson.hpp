// The Poisson benchmark behind `strata bench --kernel poisson` (GPU only): V-cycle times,
// the 513^3 Dirichlet solves and the cuFFT periodic reference.
#pragma once

#include <vector>

#include "bench/bench.hpp"

namespace strata::bench {

std::vector<Result> poisson_cuda(const Options& opt);  // throws without a GPU or CUDA

}  // namespace strata::bench

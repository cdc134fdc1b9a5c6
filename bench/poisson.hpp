// The Poisson benchmark behind `strata bench --kernel poisson`: V-cycle times and convergence
// factors, Dirichlet solves by every method to a stated accuracy, and the spectral solve of
// the periodic 7-point problem beside multigrid on the same problem. The GPU's at the sizes
// of issue 11's targets (511^3 and up, cuFFT), the CPU's at 127^3 / 128^3 (KissFFT) or
// --size / --shape; the rows both share are in bench/poisson_rows.hpp.
#pragma once

#include <vector>

#include "bench/bench.hpp"

namespace strata::bench {

std::vector<Result> poisson_cpu(const Options& opt);
std::vector<Result> poisson_cuda(const Options& opt);  // throws without a GPU or CUDA

}  // namespace strata::bench

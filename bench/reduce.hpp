// The reduction benchmarks behind `strata bench --kernel reduce`: sum, dot and max_abs on
// flat arrays (2 GiB read per call on the GPU, 64 MiB on the CPU) and a Field sum (interior
// bytes only), each next to a copy measured in the same run (and, on the GPU, CUB).
#pragma once

#include <vector>

#include "bench/bench.hpp"

namespace strata::bench {

std::vector<Result> reduce_cpu(const Options& opt);
std::vector<Result> reduce_cuda(const Options& opt);  // throws when built without CUDA

}  // namespace strata::bench

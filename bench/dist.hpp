// The distributed benchmarks behind `strata bench --kernel dist`, run under mpirun -np N:
// the halo exchange beside the transport's own send/receive of the same messages, weak
// scaling of the 7-point apply (opt's size^3 per rank, 512 by default) against each rank's
// one-GPU rate in the same run, and strong scaling of a (2 size)^3 grid against rank 0
// alone. Every rank returns the same rows; only rank 0 prints them.
#pragma once

#include <vector>

#include "bench/bench.hpp"

namespace strata::bench {

std::vector<Result> dist_cpu(const Options& opt);
std::vector<Result> dist_cuda(const Options& opt);

}  // namespace strata::bench

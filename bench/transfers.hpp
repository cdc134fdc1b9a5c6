// The host <-> device copy benchmark behind `strata bench --kernel transfers`: one field's
// interior (--size^3, in each of --precision's: f32 and f64 by default) down to the host and
// up again, by cudaMemcpy from pageable memory and from pinned memory (the bus's rate), and by
// what strata runs for it (runtime::copy_bytes: pinned buffers from 32 MiB, kept for the
// process, src/cuda/runtime.cpp; strata::copy between a padded device field and a dense host
// array). GB/s count the bytes crossing once.
#pragma once

#include <vector>

#include "bench/bench.hpp"

namespace strata::bench {

// A GPU's; on the CPU there is nothing to cross (skipped, saying so).
std::vector<Result> transfers_cpu(const Options& opt);
std::vector<Result> transfers_cuda(const Options& opt);

}  // namespace strata::bench

// The launch shape of every row kernel (reductions and vector operations), set by reasoning:
// 256 threads = 8 warps per block; U = 4 16-byte loads in flight per lane per chunk
// (64 B/thread, ~100 KiB/SM at the occupancies these kernels reach, far above the ~20 KiB/SM
// that H100's bandwidth-latency product needs). Measured with `strata bench --kernel reduce`
// on the H100 (docs/performance.md, "Reductions"): sum, dot and max_abs over 2 GiB at 1.01-
// 1.02x CUB and 1.03x a cudaMemcpy's rate; the grid is the device's resident capacity
// (cuda/rows/rows.hpp, grid_blocks). Other shapes were not swept.
#pragma once

namespace strata::cuda {

struct RowPolicy {
  static constexpr int kBlock = 256;
  static constexpr int kUnroll = 4;
};

}  // namespace strata::cuda

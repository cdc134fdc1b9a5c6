// Timing from DRAM at any size: a launch that reads what the launch before it read finds it
// in L2 (50 MB on an H100), so a size below a few L2s is timed over several copies of its
// data, launch k on copy k % sets. The bandwidth ladders and their cudaMemcpy reference
// rotate the same way.
#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

#include "lab/cuda_lab.cuh"

namespace strata::lab {

inline std::size_t l2_bytes() {
  int dev = 0, l2 = 0;
  STRATA_CUDA_CHECK(cudaGetDevice(&dev));
  STRATA_CUDA_CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev));
  return std::size_t(l2);
}

// How many copies of `bytes` of data (everything one launch touches) cover 3 x L2.
inline int rotation_sets(std::size_t bytes) {
  const std::size_t want = 3 * l2_bytes();
  return int(std::clamp<std::size_t>((want + bytes - 1) / std::max<std::size_t>(bytes, 1), 1, 64));
}

// cudaMemcpy device to device of `bytes`, rotated over rotation_sets(2 * bytes) pairs of
// buffers: the reference of the ladders (it reads `bytes` and writes `bytes`).
inline bench::Timing time_memcpy_rotating(std::size_t bytes, const Options& opt) {
  const int sets = rotation_sets(2 * bytes);
  std::vector<DeviceBuffer<char>> src, dst;
  for (int s = 0; s < sets; ++s) {
    src.emplace_back(bytes);
    dst.emplace_back(bytes);
    STRATA_CUDA_CHECK(cudaMemset(src.back().get(), 1, bytes));
  }
  int k = 0;
  return bench::time_launches(
      [&] {
        const int s = k++ % sets;
        STRATA_CUDA_CHECK(cudaMemcpyAsync(dst[s].get(), src[s].get(), bytes, cudaMemcpyDeviceToDevice, nullptr));
      },
      opt.warmup, opt.reps, nullptr);
}

}  // namespace strata::lab

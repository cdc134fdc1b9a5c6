// The pass plan of `strata-lab reduce`'s kernels 1-8 (lab/reduce.cu): Harris's multi-pass
// structure, one value per block per pass until one value remains, and which passes may add
// in int32. Host-only and free of CUDA, so lab/dev/emu_check.cpp checks it on a CPU.
#pragma once

#include <algorithm>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <vector>

namespace strata::lab::reduce_plan {

inline constexpr int kHarrisBlock = 128;      // the seed's table: every version peaks at 128 threads
inline constexpr std::int64_t kMaxValue = 3;  // the data are 0..3

struct Pass {
  std::size_t n;      // inputs of this pass
  int blocks;         // one output per block
  bool in64, acc64;   // input and accumulator types: int32 or int64
};

inline int inputs_per_block(int v) { return v <= 3 ? kHarrisBlock : 2 * kHarrisBlock; }

// Passes until one block remains. A pass accumulates in int32 only when no block's sum can
// exceed INT32_MAX: kMaxValue x (original elements under one block); else int64, and every
// later pass too.
inline std::vector<Pass> plan_passes(std::size_t n, int v, int grid_cap) {
  const std::size_t total = n;
  std::size_t covered = 1;  // original elements one input of this pass stands for, at most
  bool in64 = false;
  std::vector<Pass> passes;
  for (;;) {
    const std::size_t per = std::size_t(inputs_per_block(v));
    std::size_t blocks = (n + per - 1) / per;
    if (v >= 7) blocks = std::min(blocks, std::size_t(std::max(grid_cap, 1)));
    if (blocks > std::size_t(INT_MAX)) throw std::length_error("lab reduce: too many blocks for one pass");
    const std::size_t step = per * blocks;
    const std::size_t block_inputs = (n + step - 1) / step * per;  // one block adds at most
    const std::size_t block_covers = std::min(total, covered * block_inputs);
    const bool acc64 = in64 || kMaxValue * std::int64_t(block_covers) > INT32_MAX;
    passes.push_back({n, int(blocks), in64, acc64});
    if (blocks == 1) return passes;
    covered = block_covers;
    n = blocks;
    in64 = acc64;
  }
}

}  // namespace strata::lab::reduce_plan

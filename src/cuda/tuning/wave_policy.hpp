// The wave solver's tile policy: the 2.5D configuration of the fused leapfrog update per
// precision and radius, and where its epilogue takes the centre value u(x) from. The update
// prefetches u_prev, (v dt / h)^2 (and u) one output plane ahead (the kernel's Aux), which
// costs registers per output row, so the thread columns are shorter (VY = 4, or 2 in fp64)
// than the plain stencils'. Every entry is spill-free in ptxas (-Xptxas=-v, sm_90); the
// radius-4 entries are the fastest of `strata bench --kernel wave` on an H100 at 512^3
// (fp32: centre in registers 0.860 of copy/16 B vs 0.845 re-read from L2; fp64: 64x16 tiles
// 0.841 vs 0.788 for 128x8); the others were chosen by registers and residency alone.
#pragma once

#include <type_traits>

#include "cuda/stencil_config.hpp"

namespace strata::cuda {

template <class T, int R>
struct WavePolicy;

// fp32 registers (ptxas): R1 55, R2 64, R3 74, R4 84; 1024 / 1024 / 512 / 512 threads.
template <int R>
struct WavePolicy<float, R> {
  using Cfg = std::conditional_t<
      R == 1, TileConfig<Loader::tma, 128, 32, 4, 2>,
      std::conditional_t<R == 2, TileConfig<Loader::tma, 128, 32, 4, 3>, TileConfig<Loader::tma, 128, 16, 4, 4>>>;
  // The register queue of (R + 1) * VY centres fits at radius 1 only; beyond, the centre is
  // re-read from global memory (an L2 hit: its plane was loaded R planes earlier).
  static constexpr bool centre_in_registers = R == 1 || R == 4;
};

// fp64 registers (ptxas): R1 84, R2 125, R3 78, R4 94; 512 threads each.
template <int R>
struct WavePolicy<double, R> {
  using Cfg = std::conditional_t<R <= 2, TileConfig<Loader::tma, 128, 16, 4, 2>,
                                 std::conditional_t<R == 4, TileConfig<Loader::tma, 64, 16, 4, 3>,
                                                    TileConfig<Loader::tma, 128, 8, 2, 3>>>;
  static constexpr bool centre_in_registers = R == 1;
};

}  // namespace strata::cuda

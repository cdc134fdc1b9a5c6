// The policy table: which tile configuration each stencil family runs by default, per
// precision. Chosen from `strata bench --variants all` (lab build) on an H100 80GB HBM3 at
// 512^3; the measurements behind each choice are in docs/performance.md ("variants").
// The copy reference is the fastest copy configuration measured, so that ratio_to_copy is
// never flattered by a weak reference.
#pragma once

#include "cuda/stencil/config.hpp"

namespace strata::cuda {

template <class T>
struct StencilPolicy;

template <>
struct StencilPolicy<float> {
  using copy = TileConfig<Loader::tma, 128, 32, 8, 3>;
  using radius1 = TileConfig<Loader::tma, 128, 64, 8, 2>;  // 7pt, sym27, box27, copy_halo
  using star2 = TileConfig<Loader::tma, 128, 64, 8, 2>;
  // The relaxation step u + c (A u) of radius 2 (temporal/steps.cu): on star2's 1024 threads of 64
  // registers ptxas spilled 72 bytes and the step ran at 134 Gpts/s against the plain pass's
  // 312; 512 threads of 128 registers keep its queue and u.
  using star2_relax = TileConfig<Loader::tma, 128, 32, 8, 2>;
  using star34 = TileConfig<Loader::tma, 128, 16, 8, 4>;   // 2R+1 = 9 partial sums per row
};

template <>
struct StencilPolicy<double> {
  using copy = TileConfig<Loader::tma, 128, 16, 8, 3>;
  using radius1 = TileConfig<Loader::tma, 128, 32, 8, 2>;
  using star2 = TileConfig<Loader::tma, 128, 32, 8, 2>;
  using star2_relax = TileConfig<Loader::tma, 128, 16, 8, 3>;  // star2's spilled 96 bytes (115 Gpts/s)
  using star34 = TileConfig<Loader::tma, 128, 16, 8, 3>;
};

}  // namespace strata::cuda

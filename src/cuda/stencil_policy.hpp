// The policy table: which tile configuration each stencil family runs by default, per
// precision. Chosen from `strata bench` runs of the lab variants (STRATA_STENCIL_LAB=ON)
// on an H100 at 512^3; the measurements behind each choice are in docs/performance.md.
#pragma once

#include "cuda/stencil_config.hpp"

namespace strata::cuda {

template <class T>
struct StencilPolicy;

template <>
struct StencilPolicy<float> {
  using copy = TileConfig<Loader::tma, 64, 16, 4, 4>;
  using radius1 = TileConfig<Loader::tma, 64, 16, 4, 4>;  // 7pt, sym27, box27, copy_halo
  using star = TileConfig<Loader::tma, 64, 16, 4, 4>;     // star2 .. star4
};

template <>
struct StencilPolicy<double> {
  using copy = TileConfig<Loader::tma, 32, 16, 4, 4>;
  using radius1 = TileConfig<Loader::tma, 32, 16, 4, 4>;
  using star = TileConfig<Loader::tma, 32, 16, 4, 4>;
};

}  // namespace strata::cuda

// The stencils' tile variants: launch shapes explored besides the tuning candidates
// (tuning/stencil_candidates.hpp), built only with -DSTRATA_STENCIL_VARIANTS=ON so that the
// product does not compile a sweep. `strata bench --variants all` checks and times each; a
// shape that wins on some device becomes a candidate, or the policy (tuning/stencil_policy.hpp).
#pragma once

#include "cuda/stencil/impl.cuh"

namespace strata::cuda::variants {

using L = Loader;
template <class Op>
void add_tile_variants(std::vector<StencilImpl<typename Op::value_type>>& out, const char* kernel) {
  // Each entry is one shape studied in docs/performance.md ("variants tried").
  if constexpr (sizeof(typename Op::value_type) == 4)
    add_variants<Op, TileConfig<L::tma, 64, 16, 4, 4>, TileConfig<L::tma, 128, 16, 8, 4>,
                 TileConfig<L::tma, 128, 32, 8, 3>, TileConfig<L::tma, 128, 64, 8, 2>,
                 TileConfig<L::cpasync, 128, 32, 8, 3>, TileConfig<L::cpasync, 256, 16, 4, 3>,
                 TileConfig<L::tma, 256, 32, 8, 2, false, 128>,
                 TileConfig<L::tma, 256, 32, 8, 3, false, 128>,
                 TileConfig<L::tma, 256, 32, 16, 2, false, 128>,
                 TileConfig<L::tma, 256, 64, 16, 2, false, 128>,
                 TileConfig<L::tma, 256, 16, 8, 3, false, 128>>(out, kernel);
  else
    add_variants<Op, TileConfig<L::tma, 32, 16, 4, 4>, TileConfig<L::tma, 64, 16, 4, 4>,
                 TileConfig<L::tma, 128, 16, 8, 3>, TileConfig<L::tma, 128, 32, 8, 2>,
                 TileConfig<L::tma, 128, 32, 8, 3>, TileConfig<L::cpasync, 128, 32, 8, 3>,
                 TileConfig<L::tma, 256, 32, 8, 2, false, 128>,
                 TileConfig<L::tma, 256, 16, 8, 2, false, 128>,
                 TileConfig<L::tma, 256, 32, 16, 2, false, 128>>(out, kernel);
}

}  // namespace strata::cuda::variants

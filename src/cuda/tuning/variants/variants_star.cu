// Tile variants of the star stencils (variant_shapes.hpp).
#include "cuda/tuning/variants/variant_shapes.hpp"

namespace strata::cuda {
template <class T>
void add_star_variants(std::vector<StencilImpl<T>>& out) {
  variants::add_tile_variants<kernels::StarOp<T, 1>>(out, "7pt");
  variants::add_tile_variants<kernels::StarOp<T, 2>>(out, "star2");
  variants::add_tile_variants<kernels::StarOp<T, 4>>(out, "star4");
}
template void add_star_variants(std::vector<StencilImpl<float>>&);
template void add_star_variants(std::vector<StencilImpl<double>>&);
}  // namespace strata::cuda

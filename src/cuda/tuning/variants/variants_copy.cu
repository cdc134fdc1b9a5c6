// Tile variants of the copy kernels (variant_shapes.hpp).
#include "cuda/tuning/variants/variant_shapes.hpp"

namespace strata::cuda {
template <class T>
void add_copy_variants(std::vector<StencilImpl<T>>& out) {
  variants::add_tile_variants<kernels::CopyOp<T>>(out, "copy");
  variants::add_tile_variants<kernels::CopyHaloOp<T>>(out, "copy_halo");
}
template void add_copy_variants(std::vector<StencilImpl<float>>&);
template void add_copy_variants(std::vector<StencilImpl<double>>&);
}  // namespace strata::cuda

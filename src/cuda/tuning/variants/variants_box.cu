// Tile variants of the 27-point stencils (variant_shapes.hpp).
#include "cuda/tuning/variants/variant_shapes.hpp"

namespace strata::cuda {
template <class T>
void add_box_variants(std::vector<StencilImpl<T>>& out) {
  variants::add_tile_variants<kernels::Sym27Op<T>>(out, "sym27");
  variants::add_tile_variants<kernels::Box27Op<T>>(out, "box27");
}
template void add_box_variants(std::vector<StencilImpl<float>>&);
template void add_box_variants(std::vector<StencilImpl<double>>&);
}  // namespace strata::cuda

// Star stencils of radius 1 and 2 (7-point, 13-point) with their candidate tiles.
#include "cuda/stencil/impl.cuh"

namespace strata::cuda {

template <class T>
void add_star_impls(std::vector<StencilImpl<T>>& out) {
  using C = StencilCandidates<T>;
  using kernels::StarOp;
  add_candidates<StarOp<T, 1>>(out, "7pt", typename C::radius1{});
  add_candidates<StarOp<T, 2>>(out, "star2", typename C::star2{});
}

template void add_star_impls(std::vector<StencilImpl<float>>&);
template void add_star_impls(std::vector<StencilImpl<double>>&);

}  // namespace strata::cuda

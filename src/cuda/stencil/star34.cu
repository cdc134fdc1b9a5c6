// Star stencils of radius 3 and 4 (19-point, 25-point 8th order) with their candidate tiles:
// a file of their own, so the build compiles them beside the radius-1 and -2 stars.
#include "cuda/stencil/impl.cuh"

namespace strata::cuda {

template <class T>
void add_star34_impls(std::vector<StencilImpl<T>>& out) {
  using C = StencilCandidates<T>;
  using kernels::StarOp;
  add_candidates<StarOp<T, 3>>(out, "star3", typename C::star34{});
  add_candidates<StarOp<T, 4>>(out, "star4", typename C::star34{});
}

template void add_star34_impls(std::vector<StencilImpl<float>>&);
template void add_star34_impls(std::vector<StencilImpl<double>>&);

}  // namespace strata::cuda

// Star stencils of radius 1..4 (7-point .. 25-point 8th order) with their default tiles.
#include "cuda/stencil_impl.cuh"
#include "cuda/tuning/stencil_policy.hpp"

namespace strata::cuda {

template <class T>
void add_star_impls(std::vector<StencilImpl<T>>& out) {
  using P = StencilPolicy<T>;
  using kernels::StarOp;
  out.push_back(make_impl<StarOp<T, 1>, typename P::radius1>("7pt", true));
  out.push_back(make_impl<StarOp<T, 2>, typename P::star2>("star2", true));
  out.push_back(make_impl<StarOp<T, 3>, typename P::star34>("star3", true));
  out.push_back(make_impl<StarOp<T, 4>, typename P::star34>("star4", true));
}

template void add_star_impls(std::vector<StencilImpl<float>>&);
template void add_star_impls(std::vector<StencilImpl<double>>&);

}  // namespace strata::cuda

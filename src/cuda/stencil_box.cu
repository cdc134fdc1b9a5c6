// The 27-point stencils: symmetric (common subexpressions) and general (27 coefficients).
#include "cuda/stencil_impl.cuh"
#include "cuda/tuning/stencil_policy.hpp"

namespace strata::cuda {

template <class T>
void add_box_impls(std::vector<StencilImpl<T>>& out) {
  using P = StencilPolicy<T>;
  out.push_back(make_impl<kernels::Sym27Op<T>, typename P::radius1>("sym27", true));
  out.push_back(make_impl<kernels::Box27Op<T>, typename P::radius1>("box27", true));
}

template void add_box_impls(std::vector<StencilImpl<float>>&);
template void add_box_impls(std::vector<StencilImpl<double>>&);

}  // namespace strata::cuda

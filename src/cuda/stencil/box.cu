// The 27-point stencils: symmetric (common subexpressions) and general (27 coefficients),
// with their candidate tiles.
#include "cuda/stencil/impl.cuh"

namespace strata::cuda {

template <class T>
void add_box_impls(std::vector<StencilImpl<T>>& out) {
  using C = StencilCandidates<T>;
  add_candidates<kernels::Sym27Op<T>>(out, "sym27", typename C::radius1{});
  add_candidates<kernels::Box27Op<T>>(out, "box27", typename C::radius1{});
}

template void add_box_impls(std::vector<StencilImpl<float>>&);
template void add_box_impls(std::vector<StencilImpl<double>>&);

}  // namespace strata::cuda

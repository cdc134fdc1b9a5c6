// The copy kernels the benchmark measures every stencil against: copycube (2.5D copy,
// the ceiling) and copycube_halo (the data movement of a radius-1 pass, no arithmetic),
// with their candidate tiles.
#include "cuda/stencil/impl.cuh"

namespace strata::cuda {

template <class T>
void add_copy_impls(std::vector<StencilImpl<T>>& out) {
  using C = StencilCandidates<T>;
  add_candidates<kernels::CopyOp<T>>(out, "copy", typename C::copy{});
  add_candidates<kernels::CopyHaloOp<T>>(out, "copy_halo", typename C::radius1{});
}

template void add_copy_impls(std::vector<StencilImpl<float>>&);
template void add_copy_impls(std::vector<StencilImpl<double>>&);

}  // namespace strata::cuda

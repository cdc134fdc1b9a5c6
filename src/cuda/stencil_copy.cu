// The copy kernels the benchmark measures every stencil against: copycube (2.5D copy,
// the ceiling) and copycube_halo (the data movement of a radius-1 pass, no arithmetic).
#include "cuda/stencil_impl.cuh"
#include "cuda/tuning/stencil_policy.hpp"

namespace strata::cuda {

template <class T>
void add_copy_impls(std::vector<StencilImpl<T>>& out) {
  using P = StencilPolicy<T>;
  out.push_back(make_impl<kernels::CopyOp<T>, typename P::copy>("copy", true));
  out.push_back(make_impl<kernels::CopyHaloOp<T>, typename P::radius1>("copy_halo", true));
}

template void add_copy_impls(std::vector<StencilImpl<float>>&);
template void add_copy_impls(std::vector<StencilImpl<double>>&);

}  // namespace strata::cuda

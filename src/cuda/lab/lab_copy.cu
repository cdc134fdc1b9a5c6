// Lab variants of the copy kernels.
#include "cuda/lab/lab_configs.hpp"

namespace strata::cuda {
template <class T>
void add_lab_copy_impls(std::vector<StencilImpl<T>>& out) {
  lab::add_lab<kernels::CopyOp<T>>(out, "copy");
  lab::add_lab<kernels::CopyHaloOp<T>>(out, "copy_halo");
}
template void add_lab_copy_impls(std::vector<StencilImpl<float>>&);
template void add_lab_copy_impls(std::vector<StencilImpl<double>>&);
}  // namespace strata::cuda

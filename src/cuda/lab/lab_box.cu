// Lab variants of the 27-point stencils.
#include "cuda/lab/lab_configs.hpp"

namespace strata::cuda {
template <class T>
void add_lab_box_impls(std::vector<StencilImpl<T>>& out) {
  lab::add_lab<kernels::Sym27Op<T>>(out, "sym27");
  lab::add_lab<kernels::Box27Op<T>>(out, "box27");
}
template void add_lab_box_impls(std::vector<StencilImpl<float>>&);
template void add_lab_box_impls(std::vector<StencilImpl<double>>&);
}  // namespace strata::cuda

// Lab variants of the star stencils.
#include "cuda/lab/lab_configs.hpp"

namespace strata::cuda {
template <class T>
void add_lab_star_impls(std::vector<StencilImpl<T>>& out) {
  lab::add_lab<kernels::StarOp<T, 1>>(out, "7pt");
  lab::add_lab<kernels::StarOp<T, 2>>(out, "star2");
  lab::add_lab<kernels::StarOp<T, 4>>(out, "star4");
}
template void add_lab_star_impls(std::vector<StencilImpl<float>>&);
template void add_lab_star_impls(std::vector<StencilImpl<double>>&);
}  // namespace strata::cuda

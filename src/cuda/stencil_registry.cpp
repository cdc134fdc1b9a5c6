// The registry of compiled stencil implementations and the public API's CUDA dispatch.
#include <mutex>

#include "cuda/stencil_impl.hpp"

namespace strata::cuda {

template <class T>
const std::vector<StencilImpl<T>>& stencil_impls() {
  static const std::vector<StencilImpl<T>> impls = [] {
    std::vector<StencilImpl<T>> v;
    add_copy_impls(v);
    add_star_impls(v);
    add_box_impls(v);
#if STRATA_STENCIL_LAB
    std::vector<StencilImpl<T>> lab;
    add_lab_copy_impls(lab);
    add_lab_star_impls(lab);
    add_lab_box_impls(lab);
    for (auto& impl : lab) {  // a lab shape that is also a default appears once
      bool dup = false;
      for (const auto& d : v) dup = dup || (d.kernel == impl.kernel && d.variant == impl.variant);
      if (!dup) v.push_back(std::move(impl));
    }
#endif
    return v;
  }();
  return impls;
}

template <class T>
const StencilImpl<T>& default_impl(std::string_view kernel) {
  for (const auto& impl : stencil_impls<T>())
    if (impl.is_default && impl.kernel == kernel) return impl;
  throw Error("no CUDA kernel named '" + std::string(kernel) +
              "': allowed copy, copy_halo, 7pt, star2, star3, star4, sym27, box27");
}

template <class T>
void apply_interior(const Stencil& s, const Field<T>& in, Field<T>& out, void* stream,
                    Region region) {
  default_impl<T>(kernel_name(s)).launch(&s, in, out, stream, 0, region);
}

#define STRATA_INSTANTIATE(T)                                                       \
  template const std::vector<StencilImpl<T>>& stencil_impls<T>();                   \
  template const StencilImpl<T>& default_impl<T>(std::string_view);                 \
  template void apply_interior(const Stencil&, const Field<T>&, Field<T>&, void*, Region);
STRATA_INSTANTIATE(float)
STRATA_INSTANTIATE(double)
#undef STRATA_INSTANTIATE

}  // namespace strata::cuda

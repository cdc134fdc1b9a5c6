// The registry of compiled stencil implementations and the public API's CUDA dispatch: each
// kernel runs the shape tuning chose for the current device (strata/tuning.hpp).
#include <array>
#include <cstdint>

#include "cuda/stencil/impl.hpp"
#include "cuda/stencil/tuning.hpp"
#include "cuda/tuning/families.hpp"

namespace strata::cuda {

template <class T>
const std::vector<StencilImpl<T>>& stencil_impls() {
  static const std::vector<StencilImpl<T>> impls = [] {
    std::vector<StencilImpl<T>> v;
    add_copy_impls(v);
    add_star_impls(v);
    add_star34_impls(v);
    add_box_impls(v);
#if STRATA_STENCIL_VARIANTS
    std::vector<StencilImpl<T>> variants;
    add_copy_variants(variants);
    add_star_variants(variants);
    add_box_variants(variants);
    for (auto& impl : variants) {  // a variant that is also a candidate appears once
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
const StencilImpl<T>* find_impl(std::string_view kernel, std::string_view variant) {
  for (const auto& impl : stencil_impls<T>())
    if (impl.kernel == kernel && impl.variant == variant) return &impl;
  return nullptr;
}

template <class T>
const StencilImpl<T>& chosen_impl(std::string_view kernel, void* stream) {
  default_impl<T>(kernel);  // throws, listing the kernels, for an unknown name
  return chosen_variant<StencilImpl<T>>(
      tuning::family_name(kernel, precision_of<T>), stream,
      [&](const std::string& variant) { return find_impl<T>(kernel, variant); });
}

template <class T>
void apply_interior(Tag, const Stencil& s, const Field<T>& in, Field<T>& out, void* stream,
                    Region region) {
  chosen_impl<T>(kernel_name(s), stream).launch(&s, in, out, stream, 0, region);
}

template <class T>
bool reads_zeros_beyond(Tag, const Stencil& s, const Field<T>& in, void* stream,
                        std::array<bool, 3> real) {
  // The caller's stream, as the pass's own lookup: a first lookup may measure the family,
  // which it must not do on another stream while the caller's is being captured.
  const StencilImpl<T>& impl = chosen_impl<T>(kernel_name(s), stream);
  // The tensor's base (the interior's first element, or the first ghost row or plane kept)
  // must lie on 16 bytes; x's ghosts are never kept (the base would leave the 16 bytes).
  const Layout& L = in.layout();
  const auto base = reinterpret_cast<std::uintptr_t>(
      in.data() + L.index(0, real[1] ? -L.ghost : 0, real[2] ? -L.ghost : 0));
  return impl.launch_zero_ghosts && base % 16 == 0 && !real[0];
}

template <class T>
bool apply_zero_ghosts(Tag, const Stencil& s, const Field<T>& in, Field<T>& out, void* stream,
                       Region region, std::array<bool, 3> real) {
  if (!reads_zeros_beyond(Tag{}, s, in, stream, real)) return false;
  const StencilImpl<T>& impl = chosen_impl<T>(kernel_name(s), stream);
  impl.launch_zero_ghosts(&s, in, out, stream, region, (real[1] ? 1 : 0) | (real[2] ? 2 : 0));
  return true;
}

#define STRATA_INSTANTIATE(T)                                                                     \
  template bool reads_zeros_beyond(Tag, const Stencil&, const Field<T>&, void*,                   \
                                   std::array<bool, 3>);                                          \
  template bool apply_zero_ghosts(Tag, const Stencil&, const Field<T>&, Field<T>&, void*, Region, \
                                  std::array<bool, 3>);                                           \
  template const std::vector<StencilImpl<T>>& stencil_impls<T>();                                 \
  template const StencilImpl<T>& default_impl<T>(std::string_view);                               \
  template const StencilImpl<T>& chosen_impl<T>(std::string_view, void*);                         \
  template const StencilImpl<T>* find_impl<T>(std::string_view, std::string_view);                \
  template void apply_interior(Tag, const Stencil&, const Field<T>&, Field<T>&, void*, Region);
STRATA_INSTANTIATE(float)
STRATA_INSTANTIATE(double)
#undef STRATA_INSTANTIATE

}  // namespace strata::cuda

// Internal: how the .cu files that instantiate kernels hand their implementations to the
// registry (explicit calls, not static registration, so nothing is dropped by the linker).
#pragma once

#include <vector>

#include "cuda/stencil/registry.hpp"

namespace strata::cuda {

template <class T> void add_copy_impls(std::vector<StencilImpl<T>>& out);
template <class T> void add_star_impls(std::vector<StencilImpl<T>>& out);
template <class T>
void add_star34_impls(std::vector<StencilImpl<T>>& out);
template <class T> void add_box_impls(std::vector<StencilImpl<T>>& out);
#if STRATA_STENCIL_VARIANTS  // tuning/variants/: the tile shapes explored besides the candidates
template <class T>
void add_copy_variants(std::vector<StencilImpl<T>>& out);
template <class T>
void add_star_variants(std::vector<StencilImpl<T>>& out);
template <class T>
void add_box_variants(std::vector<StencilImpl<T>>& out);
#endif

}  // namespace strata::cuda

// Binds an operator family and a tile configuration into a registered implementation:
// converts the Stencil's coefficients into the operator and calls the launcher.
#pragma once

#include <string>

#include "cuda/kernels/stencil_ops.cuh"
#include "cuda/stencil/impl.hpp"
#include "cuda/stencil/launch.cuh"
#include "cuda/tuning/stencil_candidates.hpp"

namespace strata::cuda {

template <class Op>
struct OpTag {};

template <class T>
kernels::CopyOp<T> make_op(OpTag<kernels::CopyOp<T>>, const Stencil*) { return {}; }
template <class T>
kernels::CopyHaloOp<T> make_op(OpTag<kernels::CopyHaloOp<T>>, const Stencil*) { return {}; }

template <class T, int R>
kernels::StarOp<T, R> make_op(OpTag<kernels::StarOp<T, R>>, const Stencil* s) {
  require(s && s->kind() == StencilKind::star && s->radius() == R,
          "internal: star kernel of radius " + std::to_string(R) + " given another stencil");
  kernels::StarOp<T, R> op{};
  for (int r = 0; r <= R; ++r) op.c[r] = T(s->coeffs()[r]);
  return op;
}

template <class T>
kernels::Sym27Op<T> make_op(OpTag<kernels::Sym27Op<T>>, const Stencil* s) {
  require(s && s->kind() == StencilKind::sym27, "internal: sym27 kernel given another stencil");
  kernels::Sym27Op<T> op{};
  for (int i = 0; i < 4; ++i) op.c[i] = T(s->coeffs()[i]);
  return op;
}

template <class T>
kernels::Box27Op<T> make_op(OpTag<kernels::Box27Op<T>>, const Stencil* s) {
  require(s && s->kind() == StencilKind::box27, "internal: box27 kernel given another stencil");
  kernels::Box27Op<T> op{};
  for (int i = 0; i < 27; ++i) op.k[i] = T(s->coeffs()[i]);
  return op;
}

template <class Op, class Cfg>
void launch_impl(const Stencil* s, const Field<typename Op::value_type>& in,
                 Field<typename Op::value_type>& out, void* stream, int zchunks,
                 Region region) {
  launch_25d<Op, Cfg>(make_op(OpTag<Op>{}, s), in.data(), in.layout(), out.origin(),
                      out.layout(), static_cast<cudaStream_t>(stream), zchunks, {}, region);
}

template <class Op, class Cfg>
void launch_impl_zero_ghosts(const Stencil* s, const Field<typename Op::value_type>& in,
                             Field<typename Op::value_type>& out, void* stream, Region region,
                             int real_yz) {
  launch_25d<Op, Cfg>(make_op(OpTag<Op>{}, s), in.data(), in.layout(), out.origin(),
                      out.layout(), static_cast<cudaStream_t>(stream), 0, {}, region, true,
                      real_yz);
}

template <class Op, class Cfg>
StencilImpl<typename Op::value_type> make_impl(const char* kernel, bool is_default,
                                               bool candidate = false) {
  StencilImpl<typename Op::value_type> impl{kernel, Cfg::name(), is_default, candidate,
                                            &launch_impl<Op, Cfg>};
  if constexpr (Cfg::loader == Loader::tma)
    impl.launch_zero_ghosts = &launch_impl_zero_ghosts<Op, Cfg>;
  return impl;
}

// The implementations of one family for every configuration in Cfgs (tuning/variants/).
template <class Op, class... Cfgs>
void add_variants(std::vector<StencilImpl<typename Op::value_type>>& out, const char* kernel) {
  (out.push_back(make_impl<Op, Cfgs>(kernel, false)), ...);
}

// A family's tuning candidates (tuning/stencil_candidates.hpp): the first is the policy.
template <class Op, class... Cfgs>
void add_candidates(std::vector<StencilImpl<typename Op::value_type>>& out, const char* kernel,
                    ShapeList<Cfgs...>) {
  bool policy = true;
  ((out.push_back(make_impl<Op, Cfgs>(kernel, policy, true)), policy = false), ...);
}

}  // namespace strata::cuda

// Device code of the repeated steps (strata/steps.hpp): the epilogue that turns a stencil
// pass into one relaxation step u + c (A u), on the 2.5D kernel of stencil_25d.cuh.
#pragma once

#include <cstdint>

namespace strata::cuda::kernels {

template <class T>
struct RelaxEpilogue {
  static constexpr bool needs_centre = true;
  T c;
  __device__ __forceinline__ T operator()(T s, T u, std::int64_t) const { return u + c * s; }
};

}  // namespace strata::cuda::kernels

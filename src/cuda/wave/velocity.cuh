// c2 = (v dt / h)^2 over a wave field's interior, formed on the device from the velocity
// already in the field (planes == nullptr) or from one value per z plane (planes: a device
// array of n.nz values, kept alive until the stream has run the launch). Shared by the forward
// backend (wave.cu) and the adjoint (adjoint.cu), whose steps must read the same bits: one
// double product, one rounding to T, as a host loop would compute them.
#pragma once

#include <cuda_runtime.h>

#include <type_traits>

#include "cuda/check.hpp"
#include "cuda/kernels/wave.cuh"
#include "strata/field.hpp"

namespace strata::wave {

template <class T>
void form_c2(Field<T>& c2, std::type_identity_t<const T*> planes, double dt_over_h,
             cudaStream_t stream) {
  const Extent n = c2.extent();
  const dim3 grid(unsigned((n.nx + 127) / 128), unsigned(n.ny), unsigned(n.nz));
  cuda::kernels::wave_velocity_to_c2<T><<<grid, 128, 0, stream>>>(
      c2.origin(), planes, dt_over_h, n.nx, c2.layout().pitch, c2.layout().plane);
  STRATA_CUDA_CHECK_LAUNCH();
}

}  // namespace strata::wave

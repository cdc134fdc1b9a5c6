// The device's copy rate, the yardstick of `ratio_to_copy` in the GPU kernels' reports:
// what the CUDA backend implements for dispatch/copy_rate.cpp (src/cuda/stencil/copy_rate.cu),
// which reaches it through on_device_only (dispatch/backend.hpp). There is no CPU side: on the
// CPU the ratio says nothing.
#pragma once

#include "backend/tag.hpp"
#include "strata/field.hpp"

namespace strata::cuda {

// Launches the 2.5D copy kernel this device runs (in -> out, interior only) `warmup` times,
// then `reps` times with an event pair around each; returns the fastest timed launch (ms).
// Synchronous; device fields of one layout.
template <class T>
double time_copy_kernel_ms(Tag, const Field<T>& in, Field<T>& out, void* stream, int warmup,
                           int reps);

}  // namespace strata::cuda

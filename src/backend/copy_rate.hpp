// The device's copy rate, the yardstick of `ratio_to_copy` in the GPU kernels' reports:
// what a backend implements for dispatch/copy_rate.cpp, declared once. Implemented by
// src/cuda/copy_rate.cu; src/nocuda/copy_rate.cpp refuses in a build without CUDA.
#pragma once

#include "strata/field.hpp"

namespace strata::cuda {

// Launches the 2.5D copy kernel this device runs (in -> out, interior only) `warmup` times,
// then `reps` times with an event pair around each; returns the fastest timed launch (ms).
// Synchronous; device fields of one layout.
template <class T>
double time_copy_kernel_ms(const Field<T>& in, Field<T>& out, void* stream, int warmup, int reps);

}  // namespace strata::cuda

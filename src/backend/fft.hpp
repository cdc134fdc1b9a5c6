// The spectral Poisson solve a backend may implement: only CUDA does (cuFFT, in
// src/cuda/fft.cu; src/nocuda/fft.cpp refuses it in a build without CUDA). Host
// declarations only; the dispatch (src/dispatch/fft.cpp) checks the fields first.
#pragma once

#include "strata/field.hpp"

namespace strata::cuda {

// u = A^-1 f for A the periodic 7-point -Lap on spacing h (device fields, `stream` the CUDA stream).
template <class T>
void fft_solve(double h, const Field<T>& f, Field<T>& u, void* stream);
// Creates the cached plans fft_solve will use for these fields.
template <class T>
void fft_prepare(const Field<T>& f, const Field<T>& u);

}  // namespace strata::cuda

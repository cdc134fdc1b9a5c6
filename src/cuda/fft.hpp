// The cuFFT periodic Poisson solve; host declarations only.
#pragma once

#include "strata/field.hpp"

namespace strata::cuda {

template <class T>
void fft_solve(double h, const Field<T>& f, Field<T>& u, void* stream);
// Creates the cached plans fft_solve will use for these fields.
template <class T>
void fft_prepare(const Field<T>& f, const Field<T>& u);

}  // namespace strata::cuda

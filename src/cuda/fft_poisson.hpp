// The cuFFT periodic Poisson solve; host declarations only.
#pragma once

#include "strata/field.hpp"

namespace strata::cuda {

template <class T>
void fft_solve(double h, const Field<T>& f, Field<T>& u, void* stream);

}  // namespace strata::cuda

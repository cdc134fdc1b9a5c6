// The spectral solve of the periodic 7-point problem: exact for that operator, the reference
// a multigrid solve of the same problem is measured against. Host fields are solved on the
// CPU (KissFFT), device fields on the GPU (cuFFT).
#pragma once

#include "strata/apply.hpp"
#include "strata/field.hpp"

namespace strata::poisson {

// u = A^-1 f for A the periodic 7-point -Lap on spacing h; f's mean is ignored and u has
// zero mean. f and u share an extent and a memory (both host or both device fields).
template <class T>
void fft_solve(double h, const Field<T>& f, Field<T>& u, Stream stream);

// Makes (and caches) what fft_solve needs for fields of this shape (cuFFT's plans, the CPU's
// spectrum buffer), so that a solver can count it as setup, not solve (cuFFT's start
// included: hundreds of ms).
template <class T>
void fft_prepare(const Field<T>& f, const Field<T>& u);

}  // namespace strata::poisson

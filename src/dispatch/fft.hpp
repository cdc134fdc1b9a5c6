// The spectral solve of the periodic 7-point problem (cuFFT): exact for that operator, the
// reference a multigrid solve of the same problem is measured against.
#pragma once

#include "strata/apply.hpp"
#include "strata/field.hpp"

namespace strata::poisson {

// u = A^-1 f for A the periodic 7-point -Lap on spacing h; f's mean is ignored and u has
// zero mean. Device fields only.
template <class T>
void fft_solve(double h, const Field<T>& f, Field<T>& u, Stream stream);

// Makes (and caches) the cuFFT plans fft_solve uses for these fields, so that a solver can
// count plan creation (cuFFT's start included: hundreds of ms) as setup, not solve.
template <class T>
void fft_prepare(const Field<T>& f, const Field<T>& u);

}  // namespace strata::poisson

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

}  // namespace strata::poisson

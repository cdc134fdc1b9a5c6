// The Poisson operator's spectrum, from its Fourier symbol: what the smoothers need
// (Jacobi's best damping, the Chebyshev interval) without any power iteration at run time.
#pragma once

#include "strata/stencil.hpp"

namespace strata::poisson {

// Range of the eigenvalues of D^-1 A (D: the centre coefficient) on the oscillatory modes
// a coarser grid cannot represent (max |theta_i| >= pi/2), and over all modes.
struct SymbolBounds {
  double high_min = 0;  // smallest eigenvalue among the oscillatory modes
  double max = 0;       // largest eigenvalue overall
};
SymbolBounds symbol_bounds(const Stencil& a);

// Weighted-Jacobi damping that minimises the worst oscillatory-mode amplification.
inline double best_jacobi_omega(const SymbolBounds& b) { return 2.0 / (b.high_min + b.max); }

}  // namespace strata::poisson

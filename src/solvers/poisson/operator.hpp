// The Poisson operator on a level's spacings, and its spectrum from the Fourier symbol:
// what the smoothers need (Jacobi's best damping, the Chebyshev interval) without any power
// iteration at run time.
#pragma once

#include <array>

#include "strata/boundary.hpp"
#include "strata/field.hpp"
#include "strata/poisson.hpp"
#include "strata/stencil.hpp"

namespace strata::poisson {

// The operator on spacings h = {hx, hy, hz}: the 7-point difference, or the trilinear
// finite-element stiffness of an hx x hy x hz brick over its lumped mass. Equal spacings
// give poisson_stencil(op, h) (star or sym27); unequal ones (coarse levels of grids whose
// axes do not coarsen alike) a box27 of the same construction.
Stencil poisson_stencil(PoissonOperator op, const std::array<double, 3>& h);

// Range of the eigenvalues of D^-1 A (D: the centre coefficient) on a grid of extent n
// with boundary kind `kind`. The eigenvectors of these separable stencils are products of
// sines, cosines or Fourier modes, so the eigenvalues are the symbol at the grid's own
// frequencies: used on `plain` axes of up to 32 points; other axes sample the symbol at
// multiples of pi/32 (its extremes lie at 0, pi/2 and pi). The coarse Dirichlet levels'
// ghost rules (solvers/poisson/transfer.hpp, factors in [-1, 0]) keep the eigenvalues within
// the symbol's range (tests/cpu/test_poisson_hierarchy.cpp checks this).
// "Oscillatory" modes are those a coarser grid cannot represent: frequency >= pi/2 on an
// axis that the next level coarsens (every mode on a level that is not coarsened).
struct SymbolBounds {
  double high_min = 0;  // smallest eigenvalue among the oscillatory modes
  double max = 0;       // largest eigenvalue overall
};
SymbolBounds symbol_bounds(const Stencil& a, BoundaryKind kind, Extent n,
                           const std::array<bool, 3>& coarsened = {true, true, true},
                           const std::array<bool, 3>& plain = {true, true, true});

// sum |coefficients|: an upper bound of ||A|| (Gershgorin), the scale of the rounding error
// of A u for a u of unit size.
double coefficient_sum(const Stencil& a);

// Weighted-Jacobi damping that minimises the worst oscillatory-mode amplification.
inline double best_jacobi_omega(const SymbolBounds& b) { return 2.0 / (b.high_min + b.max); }

}  // namespace strata::poisson

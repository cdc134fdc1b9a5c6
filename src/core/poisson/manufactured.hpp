// Manufactured solutions for the Poisson problem on each boundary condition's own grid
// (products of sines and cosines that satisfy the boundary condition exactly), used by the
// CLI's --rhs manufactured, the tests' convergence checks and the benchmark.
#pragma once

#include "strata/boundary.hpp"
#include "strata/field.hpp"

namespace strata::poisson {

// Fills f = -Lap(u*) and exact = u* on the interior (host fields) for the grid of `bc`
// with spacing h. Dirichlet(g): u* = g + sin sin sin (zero at the boundary planes);
// neumann: u* = cos cos cos (zero normal derivative); periodic: u* = sin sin sin (one period).
template <class T>
void manufactured(const Boundary& bc, double h, Field<T>& f, Field<T>* exact);

// max |u - exact| and ||u - exact||_2 / ||exact||_2 (host fields). For neumann and periodic
// problems both are shifted to zero mean first (the solution is defined up to a constant).
struct ErrorNorms {
  double max_abs = 0, rel_l2 = 0;
};
template <class T>
ErrorNorms solution_error(const Boundary& bc, const Field<T>& u, const Field<T>& exact);

}  // namespace strata::poisson

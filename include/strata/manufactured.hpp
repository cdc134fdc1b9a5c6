// The Poisson problems strata generates: manufactured solutions on each boundary
// condition's own grid (products of sines and cosines that satisfy the boundary condition
// exactly) with their error norms, and random right-hand sides. Each is written or measured
// where the field lives, the device included, so a GPU run never builds a grid on the
// host; host and device values are the same bit for bit. Used by the CLI's --rhs, the
// tests' convergence checks, the demo and the benchmark.
#pragma once

#include <cstdint>

#include "strata/apply.hpp"
#include "strata/boundary.hpp"
#include "strata/field.hpp"

namespace strata::poisson {

// Fills f = -Lap(u*) and, when given, exact = u* on the interior for the grid of `bc` with
// spacing h. Dirichlet(g): u* = g + sin sin sin (zero at the boundary planes); neumann:
// u* = cos cos cos (zero normal derivative); periodic: u* = sin sin sin (one period).
template <class T>
void manufactured(const Boundary& bc, double h, Field<T>& f, Field<T>* exact, Stream stream = {});

// max |u - u*| and ||u - u*||_2 / ||u*||_2 for the manufactured solution of (bc, h), u* taken
// from its formula (no field of it is needed). For neumann and periodic problems both are
// shifted to zero mean first (the solution is defined up to a constant).
struct ErrorNorms {
  double max_abs = 0, rel_l2 = 0;
};
template <class T>
ErrorNorms manufactured_error(const Boundary& bc, double h, const Field<T>& u, Stream stream = {});
// The same against a given exact field (host fields).
template <class T>
ErrorNorms solution_error(const Boundary& bc, const Field<T>& u, const Field<T>& exact);

// f = uniform(-1, 1) per point from a counter-based generator (see problem_values.hpp).
template <class T>
void random_rhs(Field<T>& f, std::uint64_t seed, Stream stream = {});

}  // namespace strata::poisson

// The Poisson solvers over the job's ranks: the same methods, operator and report as
// strata::solve_poisson (poisson.hpp), on DistFields. Multigrid levels are partitioned
// while they are large and gathered whole to every rank below PoissonOptions::gather_below
// points;
// every inner product and norm is combined in rank order, so a run is reproducible for a
// given rank count and matches one process to rounding (the same points computed the same
// way; only the order of the sums differs).
#pragma once

#include <string>

#include "strata/dist.hpp"
#include "strata/poisson.hpp"

namespace strata::dist {

// Levels below this many points are gathered whole (PoissonOptions::gather_below = 0).
// Measured on CPU ranks (docs/multigpu.md, 127^3 mgcg f64): the time per iteration is the
// same within 2% for any threshold from 1 to 40000 points and grows once 63^3 (250047
// points) is gathered; the largest of the flat range keeps the fewest tiny levels
// partitioned, whose exchanges cost a fixed latency each on GPUs.
inline constexpr long long kPoissonGatherBelow = 32768;

// Why solve_poisson refuses these options for a grid split as `grid` ("" when it runs
// them): methods mg, cg and mgcg, the fd7 operator, boxes at least one point thick. For a
// command line to check before any work (solve_poisson throws the same words).
std::string poisson_unsupported(const PoissonOptions& o, const ProcessGrid& grid, Extent global);

// Solves A u = f over the job's ranks (u's interior is the initial guess). f and u are
// distributed alike (DistField(global, grid, ...)), in the same memory. Collective; every
// rank returns the same report but for the timings. Throws Error like strata::solve_poisson.
template <class T>
PoissonReport solve_poisson(const PoissonOptions& o, const DistField<T>& f, DistField<T>& u);

}  // namespace strata::dist

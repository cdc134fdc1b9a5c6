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

// Levels below this many points are gathered whole (PoissonOptions::gather_below = 0), by
// where the ranks compute (docs/multigpu.md). CPU ranks (127^3 mgcg f64): the time per
// iteration is the same within 2% for any threshold from 1 to 40000 points and grows once
// 63^3 (250047 points) is gathered. GPUs (4 x H200, MG-CG mixed f64 at 255^3, 511^3 and
// 1023^3 on 2 and 4 ranks, thresholds 32768 to 4.5 M swept in one call): a level's exchange
// costs a fixed latency on a GPU, and gathering from 127^3 down was the fastest at every size
// and rank count (511^3 on 4 ranks 31.0 -> 29.3 ms, 255^3 10.3 -> 8.6 ms).
inline constexpr long long kPoissonGatherBelowCpu = 32768;
inline constexpr long long kPoissonGatherBelowGpu = 4500000;
// The default threshold for fields in `where`.
constexpr long long poisson_gather_below(Memory where) {
  return where == Memory::device ? kPoissonGatherBelowGpu : kPoissonGatherBelowCpu;
}

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

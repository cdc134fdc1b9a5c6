// Poisson solvers for -Lap(u) = f on a box: weighted Jacobi, geometric multigrid (V-cycle
// and full multigrid), conjugate gradients plain and preconditioned by one V-cycle, and an
// FFT solve for the periodic 7-point problem. One algorithm per solver, run by the CPU or
// the CUDA backend according to where the fields live.
//
// The discrete problem is the library's stencil pass with its boundary semantics:
//   dirichlet(g): vertex-centred. The n points of an axis are the unknowns strictly inside
//                 the box; the boundary planes (value g) are the ghost layer, so a grid
//                 given as N points *including* the two boundary planes has n = N - 2.
//                 Unknown i sits at x = (i + 1) h.
//   neumann:      cell-centred, zero flux through the faces (mirror ghosts): x = (i + 1/2) h.
//                 A solution exists only when sum(f) = 0 (the compatibility condition): the
//                 solve runs on f - mean(f), with a warning (on_warning, the report's
//                 warnings) when the mean removed is above the tolerance, and refuses (Error)
//                 an f that is constant; u has zero mean (the null space is constants).
//   periodic:     x = i h with period n h; f's mean as for Neumann, and u has mean 0.
// Spacing h is the same on every axis (default: the x extent of the box is 1).
#pragma once

#include <array>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "strata/apply.hpp"
#include "strata/boundary.hpp"
#include "strata/field.hpp"
#include "strata/stencil.hpp"

namespace strata {

enum class PoissonOperator { fd7, fe27 };    // 7-point finite differences; trilinear FE (paper)
enum class Smoother { jacobi, chebyshev };
enum class PoissonMethod { jacobi, mg, fmg, cg, mgcg, fft };

std::string_view to_string(PoissonOperator);
std::string_view to_string(Smoother);
std::string_view to_string(PoissonMethod);
PoissonOperator parse_poisson_operator(std::string_view);  // throw Error on unknown words
Smoother parse_smoother(std::string_view);
PoissonMethod parse_poisson_method(std::string_view);

// The operator A = -Lap on spacing h as a stencil (positive definite: centre > 0), the
// opposite sign of the library's default Laplacians (Stencil::laplacian, fe27: +Lap).
Stencil poisson_stencil(PoissonOperator op, double h);

// Grid geometry of a boundary condition: spacing for n points along the x axis of a box of
// length `length`, and the coordinate of point i.
double poisson_spacing(const Boundary& bc, int n, double length = 1.0);
double poisson_coordinate(const Boundary& bc, int i, double h);

struct PoissonIteration {
  int iteration = 0;        // V-cycles, CG iterations or Jacobi sweeps so far
  double rel_residual = 0;  // ||f - A u|| / ||f||
  double factor = 0;        // residual reduction of this iteration
  double ms = 0;            // wall time of this iteration (the first: from the solve's start)
};

struct PoissonOptions {
  PoissonOperator op = PoissonOperator::fd7;
  Boundary bc = Boundary::dirichlet(0.0);
  double h = 0;                       // 0: poisson_spacing(bc, nx, 1)
  PoissonMethod method = PoissonMethod::mg;
  Smoother smoother = Smoother::chebyshev;
  int pre = 2, post = 2;              // smoothing steps before / after the coarse correction
  int fmg_cycles = 0;                 // V-cycles per level in FMG; 0: 2 for fd7, 1 for fe27
                                      // (what reaches the discretisation error, measured)
  // Converged when the residual of the returned solution, recomputed from scratch with the
  // boundary values, satisfies ||f - A u|| <= max(rtol ||f||, atol) (PETSc's rule).
  // rtol < 0, the default: rtol 1e-6, or the rounding floor of the arithmetic where that
  // is higher (float on all but small grids): the run then converges when the residual
  // stops falling below eps * sum|A| * ||u||, the most the precision can resolve.
  double rtol = -1;
  double atol = 0;
  int max_iter = 100;                 // V-cycles, CG iterations or Jacobi sweeps, in all
  double jacobi_omega = 0;            // 0: the best damping for the operator (from its symbol)
  bool mixed_precision = false;       // mgcg in double with a float multigrid preconditioner
  bool use_graphs = true;             // CUDA: replay captured V-cycles (over ranks too)
  // Over several ranks (dist::solve_poisson): the first multigrid level of fewer points
  // than this, and every coarser one, is gathered whole to every rank and cycled there as
  // on one process. 0: dist::poisson_gather_below of the fields' memory (measured:
  // docs/multigpu.md).
  long long gather_below = 0;
  std::function<void(const PoissonIteration&)> on_iteration;  // progress callback
  std::function<void(const std::string&)> on_warning;          // also kept in the report
};

struct PoissonLevelInfo {
  Extent n;
  std::array<double, 3> h{};  // spacing per axis: every level spans the finest level's box
};

struct PoissonReport {
  bool converged = false;         // rel_residual <= max(rtol, atol / ||f||), or at_floor with
                                  // the default tolerance
  bool direct = false;            // a direct solve (fft): no iteration, its residual and error
  int iterations = 0;             // every method: V-cycles (FMG pass: 1), CG iterations, sweeps;
                                  // direct: solves (1, and 1 per refinement)
  int restarts = 0;               // times the iteration restarted from the recomputed residual
  bool at_floor = false;          // the residual stopped at the arithmetic's rounding floor
  bool rtol_default = false;      // the default tolerance: reaching the floor converges
  double rtol = 0, atol = 0;      // the tolerances used
  double rel_residual = 0;        // of the returned solution, recomputed from scratch
  double convergence_factor = 0;  // geometric mean of the per-iteration reductions
  // The residual the method computes after each iteration, relative to ||f|| (index 0:
  // the start); for CG the recursive residual, which may drift below the recomputed one.
  std::vector<double> residuals;
  // The wall time of each iteration (index 0: the first), where a cost that is paid once
  // (a connection made at the first message) shows apart from the steady ones.
  std::vector<double> iteration_ms;
  // With STRATA_POISSON_LEVELS=1 in the environment (a diagnostic; multigrid and mgcg): each
  // part of a V-cycle, level by level, its median ms over the cycles run (with CUDA graphs the
  // replays, the first, eager cycle left out; without, every cycle from the set-up's on):
  // "down L" (level L's pre-smoothing and the residual restricted to L + 1), "coarse L" (the
  // coarsest level's solve; over several ranks the gathered levels), "up L" (prolongation and
  // post-smoothing), in the order a cycle runs them. On the GPU the parts are timed by events
  // on the solver's stream. Under mpirun, each rank's own.
  std::vector<std::pair<std::string, double>> level_ms;
  double setup_ms = 0, solve_ms = 0;
  double iterations_per_s = 0;
  double gb_per_s = 0;            // estimated bytes moved by the solve / solve time
  std::vector<PoissonLevelInfo> levels;  // multigrid hierarchy, finest first
  std::string message;            // why it stopped: converged, max_iter, the rounding floor,
                                  // divergence, or a recomputed residual above the tolerance
  double rhs_mean = 0;            // Neumann, periodic: the mean removed from f
  std::vector<std::string> warnings;  // what the caller should know (a mean removed from f)
};

// The checks solve_poisson makes of its options before any work, for an n grid in
// `memory` (the fft solver on host memory needs a build with the CPU's FFT): throws Error
// saying what is wrong and what is allowed. A verb calls it before it reads or allocates
// anything (under mpirun: before the ranks agree to start).
void check_poisson_options(const PoissonOptions& options, Extent n, Memory memory);

// Solves A u = f for u (u's interior is the initial guess; its ghosts are overwritten).
// f and u must share extent, memory and precision. Throws Error for bad options or inputs
// and for a residual that becomes NaN or Inf (naming the iteration). Otherwise returns the
// report: converged only when the recomputed residual of u meets the tolerance; a growing
// residual ends the run as diverged, an explicit tolerance below the rounding floor as
// such, each with converged = false and a message saying so. Full multigrid's one pass resolves the
// discretisation error when the start satisfies the boundary values smoothly (u0 = g).
template <class T>
PoissonReport solve_poisson(const PoissonOptions& options, const Field<T>& f, Field<T>& u);

}  // namespace strata

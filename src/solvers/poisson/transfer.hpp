// Grid transfers between a multigrid level and the next coarser one, built per axis from
// the grid coordinates so that every level spans the finest level's box exactly (a coarse
// grid reaching one fine spacing past the true boundary is what made multigrid diverge on
// even Dirichlet sizes). Two kinds of step:
//   nested: every other point (spacing exactly 2h). On a Dirichlet axis whose box is not
//     a multiple of 2h, the boundary then lies beta coarse spacings beyond the end point,
//     beta in [1/2, 1], and the coarse level keeps it there with a ghost rule: the ghost
//     holds the linear extrapolation to zero at the boundary, (1 - 1/beta) times the end
//     value. For the 1D factors of both operators this makes the coarse operator the
//     Galerkin product R A P of the fine one, which restores the nested convergence rate.
//   uniform: m points spanning the box with spacing H = L / (m + 1) vertex-centred or
//     L / m cell-centred and periodic (1.5h <= H < 2h). Taken where nesting is impossible
//     (odd Neumann and periodic axes) or would push beta below 1/2 (ghost factors below
//     -1 enlarge the diagonal past what the smoothers' symbol bounds allow).
// Prolongation is linear interpolation in each axis (through the ghost rule), restriction
// its transpose times h / H per axis: the textbook full weighting where nested. An axis of
// one point is not coarsened.
#pragma once

#include <vector>

#include "strata/boundary.hpp"

namespace strata::poisson {

// One axis of a level. For Dirichlet, the boundaries lie beta_lo = lo / den and
// beta_hi = hi / den spacings before the first and after the last point (1 and 1 on the
// finest level); den is a power of two, so the geometry is exact.
struct AxisGrid {
  int n = 0;
  long long den = 1, lo = 1, hi = 1;
  // Ghost = factor * adjacent point: the linear extrapolation to zero at the boundary.
  double ghost_lo() const { return 1.0 - double(den) / double(lo); }
  double ghost_hi() const { return 1.0 - double(den) / double(hi); }
};

struct AxisTransfer {
  static constexpr int kMaxFine = 4;  // fine points feeding one coarse point (H <= 2h)
  AxisGrid coarse;      // the next level's axis
  int n_fine = 0, n_coarse = 0;
  double ratio = 1;     // H / h: 2 nested, in [1.5, 2) uniform, 1 when not coarsened
  // Coarse I gathers fine 2I, 2I+1, 2I+2 with 1/4, 1/2, 1/4 (fine index n weighing 0):
  // what the fused residual-restriction kernel computes.
  bool full_weighting = false;
  // fine i = coarse[p_idx[2i]] * p_w[2i] + coarse[p_idx[2i+1]] * p_w[2i+1]
  // coarse I = sum_k r_w[kMaxFine*I + k] * fine[r_idx[kMaxFine*I + k]]
  // Unused slots (a zero Dirichlet boundary value, a short restriction) hold a used index
  // and weight 0: the tables have no holes, so kernels read them without branches.
  std::vector<int> p_idx;
  std::vector<double> p_w;
  std::vector<int> r_idx;
  std::vector<double> r_w;
};

// The next coarser axis and the tables to it.
AxisTransfer coarsen_axis(BoundaryKind kind, const AxisGrid& fine);
// The same from a finest-level axis of n points.
inline AxisTransfer make_axis_transfer(BoundaryKind kind, int n) { return coarsen_axis(kind, AxisGrid{n}); }

}  // namespace strata::poisson

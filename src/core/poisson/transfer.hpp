// Grid transfers between a multigrid level and the next coarser one, built per axis from
// the grid coordinates: the coarse spacing is exactly twice the fine one (so the coarse
// operator is the same isotropic stencil), prolongation is linear interpolation in each
// axis, restriction is its transpose times 1/2 per axis. On nested sizes this is the
// textbook full weighting; on others the tables still describe the same geometry.
#pragma once

#include <array>
#include <vector>

#include "strata/boundary.hpp"

namespace strata::poisson {

struct AxisTransfer {
  static constexpr int kMaxFine = 4;  // fine points feeding one coarse point (ratio 2)
  int n_fine = 0, n_coarse = 0;
  // fine i = coarse[p_idx[2i]] * p_w[2i] + coarse[p_idx[2i+1]] * p_w[2i+1]
  // coarse I = sum_k r_w[kMaxFine*I + k] * fine[r_idx[kMaxFine*I + k]]
  // Unused slots (a zero Dirichlet boundary value, a short restriction) hold index 0 and
  // weight 0: the tables have no holes, so kernels read them without branches.
  std::vector<int> p_idx;
  std::vector<double> p_w;
  std::vector<int> r_idx;
  std::vector<double> r_w;
};

// Points the next coarser level has along an axis of n points (0 when n cannot coarsen).
int coarse_extent(BoundaryKind kind, int n);

AxisTransfer make_axis_transfer(BoundaryKind kind, int n_fine);

}  // namespace strata::poisson

// The multigrid hierarchy: levels of about halving resolution down to a grid small enough
// to solve exactly, each with its spacings, operator, smoother bounds, fields and transfer
// tables to the next level (solvers/poisson/transfer.hpp: every level keeps the fine box).
// All levels carry the homogeneous form of the boundary condition: the solvers work on
// the error equation A e = r0, so only the first residual sees the user's boundary values.
#pragma once

#include <array>
#include <vector>

#include "base/buffer.hpp"
#include "backend/multigrid.hpp"
#include "solvers/poisson/transfer.hpp"
#include "strata/poisson.hpp"

namespace strata::poisson {

inline constexpr int kDenseMax = 512;  // coarsest grids up to this many points are inverted

template <class T>
struct Level {
  Extent n;
  std::array<double, 3> h{};  // spacing per axis (equal on the finest level)
  Stencil a = Stencil::laplacian7();
  GhostRule ghost;  // Dirichlet levels whose boundary lies between grid points
  double omega = 0;               // Jacobi damping
  double lam_lo = 0, lam_hi = 0;  // D^-1 A interval the Chebyshev smoother damps
  Field<T> u, u2, f, r;  // u2: the other buffer of the out-of-place smoothing steps
  bool has_coarser = false;
  Buffer<int> p_idx[3], r_idx[3];
  Buffer<T> p_w[3], r_w[3];
  TransferView<T> down;  // to levels[i + 1]
};

template <class T>
struct Hierarchy {
  std::vector<Level<T>> levels;  // finest first
  Boundary bc;                   // homogeneous: dirichlet(0), neumann or periodic
  Buffer<T> dense;               // the coarsest level's inverse (pseudo-inverse on null spaces)
  bool dense_ok = false;
};

template <class T>
Hierarchy<T> build_hierarchy(PoissonOperator op, BoundaryKind kind, Extent n, double h,
                             Memory memory, double jacobi_omega);

}  // namespace strata::poisson

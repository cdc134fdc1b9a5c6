// The multigrid hierarchy: levels of about halving resolution down to a grid small enough
// to solve exactly, each with its spacings, operator, smoother bounds, fields and transfer
// tables to the next level (solvers/poisson/transfer.hpp: every level keeps the fine box).
// All levels carry the homogeneous form of the boundary condition: the solvers work on
// the error equation A e = r0, so only the first residual sees the user's boundary values.
// The geometry of every level (plan_levels) is apart from its fields, so that a distributed
// hierarchy (dist_hierarchy.hpp) partitions the same levels and gathers the same tail.
#pragma once

#include <array>
#include <span>
#include <vector>

#include "base/buffer.hpp"
#include "dispatch/multigrid.hpp"
#include "solvers/poisson/transfer.hpp"
#include "strata/poisson.hpp"
#include "strata/vector_ops.hpp"

namespace strata::poisson {

inline constexpr int kDenseMax = 512;  // coarsest grids up to this many points are inverted

// What a level is apart from its fields: the plan's, and both hierarchies' levels'.
struct LevelGeometry {
  Extent n;                   // the whole grid of the level
  std::array<double, 3> h{};  // spacing per axis (equal on the finest level)
  Stencil a = Stencil::laplacian7();
  GhostRule ghost;                // Dirichlet levels whose boundary lies between grid points
  double omega = 0;               // Jacobi damping
  double lam_lo = 0, lam_hi = 0;  // D^-1 A interval the Chebyshev smoother damps
};

// One level's geometry, operator, smoother bounds and the per-axis transfers to the next.
struct LevelPlan : LevelGeometry {
  bool has_coarser = false;
  std::array<AxisTransfer, 3> t;  // to the next level (when has_coarser)
  bool full_weighting = false;    // every axis of t is
};

std::vector<LevelPlan> plan_levels(PoissonOperator op, BoundaryKind kind, Extent n, double h, double jacobi_omega);

// The homogeneous form of a boundary kind: dirichlet(0), neumann or periodic.
Boundary homogeneous(BoundaryKind kind);

// A level's transfer tables to the next, in its memory, and the view the passes take.
template <class T>
struct TransferTables {
  Buffer<int> p_idx[3], r_idx[3];
  Buffer<T> p_w[3], r_w[3];
  TransferView<T> down;  // to levels[i + 1]

  // Axis `a`'s tables (AxisTransfer's layout) between nf fine and nc coarse points.
  void set_axis(int a, int nf, int nc, const std::vector<int>& pi, const std::vector<double>& pw,
                const std::vector<int>& ri, const std::vector<double>& rw, Memory memory) {
    p_idx[a] = Buffer<int>(pi, memory);
    r_idx[a] = Buffer<int>(ri, memory);
    p_w[a] = Buffer<T>(std::vector<T>(pw.begin(), pw.end()), memory);
    r_w[a] = Buffer<T>(std::vector<T>(rw.begin(), rw.end()), memory);
    down.nf[a] = nf;
    down.nc[a] = nc;
    down.p_idx[a] = p_idx[a].data();
    down.r_idx[a] = r_idx[a].data();
    down.p_w[a] = p_w[a].data();
    down.r_w[a] = r_w[a].data();
  }
};

template <class T>
struct Level : LevelGeometry, TransferTables<T> {
  Field<T> u, u2, f, r;  // u2: the other buffer of the out-of-place smoothing steps
  bool has_coarser = false;
};

// What Multigrid asks of a hierarchy besides its levels (the distributed one answers the
// same with halo exchanges and a gathered coarse solve).
template <class T>
struct Hierarchy {
  using Vec = Field<T>;
  std::vector<Level<T>> levels;  // finest first
  Boundary bc;                   // homogeneous: dirichlet(0), neumann or periodic
  Buffer<T> dense;               // the coarsest level's inverse (pseudo-inverse on null spaces)
  bool dense_ok = false;

  // The ghost layer of a level's field before a stencil pass: mirrors or wraps, or the
  // ghost rule of a coarse Dirichlet level (zero ghosts are never written).
  void ghosts(const Level<T>& L, Field<T>& u, Stream s) {
    if (bc.kind != BoundaryKind::dirichlet) fill_ghosts(u, bc, 1, s);
    else if (L.ghost.any()) extrapolate_ghosts(L.ghost, u, s);
  }
  // L.u2 = L.u after `steps` in one fused pass (the backend's temporal kernel), where the
  // level allows it: no ghost rule (the kernel takes the plain dirichlet, neumann and
  // periodic ghosts), periodic ghosts as deep as the steps. False: nothing written.
  bool smooth_fused(Level<T>& L, std::span<const SmoothingStep> steps, Stream s) {
    if (L.ghost.any()) return false;
    if (bc.kind == BoundaryKind::periodic) {
      if (L.u.ghost() < int(steps.size())) return false;
      fill_ghosts(L.u, bc, int(steps.size()), s);
    }
    return poisson::smooth_fused(L.a, steps, bc, L.u, L.f, L.u2, s);
  }
  // The points a level's passes run over here: all of them.
  std::size_t box_points(const Level<T>& L) const { return L.n.points(); }
  // levels[l + 1].f = R (f - A u) on level l, u's ghosts filled here; true when fused.
  bool residual_restrict(std::size_t l, Stream s) {
    Level<T>& L = levels[l];
    ghosts(L, L.u, s);
    return poisson::residual_restrict(L.a, L.u, L.f, L.r, L.down, levels[l + 1].f, s);
  }
  void restrict_to(std::size_t l, Field<T>& fine, Field<T>& coarse, Stream s) {
    poisson::restrict_to(levels[l].down, fine, coarse, s);
  }
  // levels[l].u += P levels[l + 1].u
  void prolong_add(std::size_t l, Stream s) { poisson::prolong_add(levels[l].down, levels[l + 1].u, levels[l].u, s); }
  // The exact solve of the coarsest level when it is inverted (u += M (f - A u)); false:
  // the caller smooths instead.
  bool coarse_solve(Level<T>& L, Stream s) {
    if (!dense_ok) return false;
    ghosts(L, L.u, s);
    residual(L.a, L.u, L.f, L.r, s);
    dense_correct(dense.data(), L.r, L.u, s);
    return true;
  }
  std::vector<PoissonLevelInfo> info() const {
    std::vector<PoissonLevelInfo> v;
    for (const auto& L : levels) v.push_back({L.n, L.h});
    return v;
  }
};

template <class T>
Hierarchy<T> build_hierarchy(PoissonOperator op, BoundaryKind kind, Extent n, double h,
                             Memory memory, double jacobi_omega);
// The levels plan[first..] on one process (a distributed solve's gathered coarse levels).
template <class T>
Hierarchy<T> build_hierarchy(const std::vector<LevelPlan>& plan, std::size_t first, BoundaryKind kind,
                             Memory memory);

}  // namespace strata::poisson

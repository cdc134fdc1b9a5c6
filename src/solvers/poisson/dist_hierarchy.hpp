// The multigrid hierarchy over the job's ranks: the one-process plan (hierarchy.hpp), its
// large levels partitioned and its small ones gathered whole to every rank. Level l + 1's
// boxes follow level l's: a coarse point belongs to the rank that owns the fine point it
// weighs most (its centre), so the restriction reads at most two fine ghost layers and the
// prolongation one coarse layer, both filled by DistField's exchange. Each rank's transfer
// tables are the global ones (transfer.hpp) with indices made local, so every point is
// computed as one process computes it. From the first level below
// PoissonOptions::gather_below points (or too thin to partition), every rank runs the
// one-process cycle on the rest of the plan: the ranks trade their boxes of the gathered
// level's right-hand side, each cycles the whole of it (the same values on every rank) and
// keeps its box of the correction. On the GPU none of this leaves the device or waits for
// the host, so a whole distributed cycle can be captured as a CUDA graph.
#pragma once

#include <array>
#include <memory>
#include <vector>

#include "base/device_array.hpp"
#include "base/region.hpp"
#include "solvers/poisson/hierarchy.hpp"
#include "solvers/poisson/multigrid.hpp"
#include "strata/dist.hpp"

namespace strata::poisson {

// The transfer tables are this rank's (indices local to its boxes, -1 and n the ghosts).
template <class T>
struct DistLevel : LevelGeometry, TransferTables<T> {
  GhostRule face_rule;  // the level's ghost rule on this rank's global faces only
  dist::Subdomain::Cuts cuts;
  dist::DistField<T> u, u2, f, r;
  int restrict_width = 1;  // fine ghost layers the restriction to the next level reads
};

template <class T>
struct DistHierarchy {
  using Vec = dist::DistField<T>;
  std::vector<DistLevel<T>> levels;  // partitioned, finest first; the last is gathered
  Boundary bc;                       // homogeneous
  dist::ProcessGrid grid;
  std::vector<PoissonLevelInfo> plan_info;  // every level of the plan, gathered ones too
  // The plan from the gathered level on, on one process, and its cycle (every rank's own).
  std::unique_ptr<Hierarchy<T>> tail;
  std::unique_ptr<Multigrid<T>> tail_mg;
  // The gathered level's boxes (rank r's: boxes[r], in the level's global coordinates) and
  // where they travel: rank after rank, dense, r's at parts() + start[r], count[r] values.
  std::vector<Region> boxes;
  std::vector<std::size_t> start, count;
  std::vector<T> parts_host;
  DeviceArray<T> parts_device;
  T* parts() { return parts_device.empty() ? parts_host.data() : parts_device.get(); }

  // `width` ghost layers of v, a field of level L: the neighbours' values, and on the global
  // faces the boundary rule. Zero Dirichlet ghosts, on a level without a ghost rule, are
  // never written (its fields are made zero-filled and its passes write interiors only):
  // there only the exchange runs.
  void ghost_layers(const DistLevel<T>& L, Vec& v, int width, Stream s);
  void ghosts(const DistLevel<T>& L, Vec& u, Stream s);
  // levels[l + 1].f = R (f - A u) on level l, u's ghosts filled here; true when fused.
  bool residual_restrict(std::size_t l, Stream s);
  // The points a level's passes run over on this rank: its box.
  std::size_t box_points(const DistLevel<T>& L) const { return L.u.local().extent().points(); }
  // Two smoothing steps in one fused pass (the GPU's, on a dirichlet level without a ghost
  // rule): the pass takes its box and, past each neighbour's face, the two ghost layers for
  // its domain, so that the intermediate step's layer beside the box is computed here (from
  // u's second ghost layer and f's first) instead of exchanged. Its values in those ghost
  // layers are wrong and are never read: every pass exchanges before it reads them.
  bool smooth_fused(DistLevel<T>& L, std::span<const SmoothingStep> steps, Stream s);
  void restrict_to(std::size_t l, Vec& fine, Vec& coarse, Stream s);
  void prolong_add(std::size_t l, Stream s);
  // The gathered level: its f whole on every rank, one V-cycle of the tail from zero, each
  // rank's box of u back into its level.
  bool coarse_solve(DistLevel<T>& L, Stream s);
  std::vector<PoissonLevelInfo> info() const { return plan_info; }
};

// Collective. `proto` gives the process grid, the global grid and the memory.
template <class T, class U>
DistHierarchy<T> build_dist_hierarchy(const PoissonOptions& o, const dist::DistField<U>& proto, double h,
                                      Stream s);

}  // namespace strata::poisson

// Builds and runs the distributed hierarchy (dist_hierarchy.hpp): each coarse level's boxes
// from its fine level's, each rank's transfer tables cut from the global ones, and the small
// levels traded whole to every rank and cycled there.
#include "solvers/poisson/dist_hierarchy.hpp"

#include <algorithm>
#include <string>

#include "base/runtime.hpp"
#include "parallel/halo.hpp"
#include "strata/dist_poisson.hpp"
#include "strata/error.hpp"

namespace strata::poisson {

namespace {

using dist::Subdomain;
using Cuts = Subdomain::Cuts;

// The local index of global index g in a box [off, off + len) of an axis of N points: the
// periodic image nearest the box where the axis wraps.
int to_local(int g, int off, int len, int N, bool periodic) {
  int best = g - off;
  auto outside = [len](int i) { return i < 0 ? -i : (i >= len ? i - len + 1 : 0); };
  if (periodic)
    for (int image : {g - off - N, g - off + N})
      if (outside(image) < outside(best)) best = image;
  return best;
}
int reach(int i, int len) { return i < 0 ? -i : (i >= len ? i - len + 1 : 0); }

// Coarse I belongs to the box holding its centre: the fine point of its largest
// restriction weight (the first of equals).
std::vector<int> centres(const AxisTransfer& t) {
  constexpr int K = AxisTransfer::kMaxFine;
  std::vector<int> c(std::size_t(t.n_coarse));
  for (int I = 0; I < t.n_coarse; ++I) {
    int best = 0;
    for (int k = 1; k < K; ++k)
      if (t.r_w[std::size_t(K * I + k)] > t.r_w[std::size_t(K * I + best)]) best = k;
    c[std::size_t(I)] = t.r_idx[std::size_t(K * I + best)];
  }
  return c;
}

Cuts coarse_cuts(const LevelPlan& p, const Cuts& fine) {
  Cuts out;
  for (int a = 0; a < 3; ++a) {
    const std::vector<int> c = centres(p.t[a]);
    for (std::size_t I = 1; I < c.size(); ++I)
      require(c[I] >= c[I - 1], "internal: coarse points out of order on axis " + std::to_string(a));
    for (int cut : fine[a])
      out[a].push_back(int(std::lower_bound(c.begin(), c.end(), cut) - c.begin()));
    out[a].back() = p.t[a].n_coarse;
  }
  return out;
}

// The thinnest box on a split axis (a large number when nothing is split).
int thinnest(const Cuts& cuts, const dist::ProcessGrid& grid) {
  int m = 1 << 30;
  for (int a = 0; a < 3; ++a)
    for (int c = 0; grid.dims[a] > 1 && c < grid.dims[a]; ++c)
      m = std::min(m, cuts[a][std::size_t(c) + 1] - cuts[a][std::size_t(c)]);
  return m;
}

// One box's tables along one axis: fine box [fo, fo + fn), coarse box [co, co + cn).
struct LocalAxis {
  std::vector<int> p_idx, r_idx;
  std::vector<double> p_w, r_w;
  int p_reach = 0, r_reach = 0;  // ghost layers they read (coarse, fine)
};

LocalAxis cut_axis(const AxisTransfer& t, int fo, int fn, int co, int cn, bool periodic) {
  constexpr int K = AxisTransfer::kMaxFine;
  LocalAxis L;
  for (int i = 0; i < fn; ++i)
    for (int j = 0; j < 2; ++j) {
      const std::size_t g = 2 * std::size_t(fo + i) + std::size_t(j);
      const int idx = to_local(t.p_idx[g], co, cn, t.n_coarse, periodic);
      L.p_idx.push_back(idx);
      L.p_w.push_back(t.p_w[g]);
      L.p_reach = std::max(L.p_reach, reach(idx, cn));
    }
  for (int J = 0; J < cn; ++J)
    for (int k = 0; k < K; ++k) {
      const std::size_t g = std::size_t(K) * std::size_t(co + J) + std::size_t(k);
      const int idx = to_local(t.r_idx[g], fo, fn, t.n_fine, periodic);
      L.r_idx.push_back(idx);
      L.r_w.push_back(t.r_w[g]);
      L.r_reach = std::max(L.r_reach, reach(idx, fn));
    }
  return L;
}

template <class T>
DistLevel<T> make_level(const LevelPlan& p, const Cuts& cuts, const dist::ProcessGrid& grid, int ghost, Memory mem) {
  DistLevel<T> L;
  static_cast<LevelGeometry&>(L) = p;
  L.cuts = cuts;
  L.u = dist::DistField<T>(grid, cuts, ghost, mem);
  L.u2 = dist::DistField<T>(grid, cuts, ghost, mem);
  L.f = dist::DistField<T>(grid, cuts, ghost, mem);
  L.r = dist::DistField<T>(grid, cuts, ghost, mem);
  const Subdomain& box = L.u.box();
  for (int a = 0; a < 3; ++a) {
    L.face_rule.lo[a] = box.lo_face[a] ? p.ghost.lo[a] : 0.0;
    L.face_rule.hi[a] = box.hi_face[a] ? p.ghost.hi[a] : 0.0;
  }
  return L;
}

// This rank's tables from level L (plan p) to the level of boxes `coarse`; the restriction
// width is the widest any rank needs (the exchange is collective, its width the same on
// every rank).
template <class T>
void cut_transfers(DistLevel<T>& L, const LevelPlan& p, const Cuts& coarse, const dist::ProcessGrid& grid,
                   bool periodic, Memory mem) {
  const std::array<int, 3> me = L.u.box().coords;
  int width = 1;
  for (int a = 0; a < 3; ++a)
    for (int c = 0; c < grid.dims[a]; ++c) {
      const std::size_t i = std::size_t(c);
      const LocalAxis t = cut_axis(p.t[a], L.cuts[a][i], L.cuts[a][i + 1] - L.cuts[a][i], coarse[a][i],
                                   coarse[a][i + 1] - coarse[a][i], periodic);
      require(t.p_reach <= 1 && t.r_reach <= 2,
              "internal: a distributed transfer reads beyond the ghost layers on axis " + std::to_string(a));
      width = std::max(width, t.r_reach);
      if (c == me[std::size_t(a)])
        L.set_axis(a, L.cuts[a][i + 1] - L.cuts[a][i], coarse[a][i + 1] - coarse[a][i], t.p_idx, t.p_w, t.r_idx,
                   t.r_w, mem);
    }
  // Full weighting: coarse I gathers global fine 2I..2I+2, so this box's first gathered
  // point is local 2 co - fo; past a neighbour's face the fused pass computes the residual
  // from ghosts (dist_hierarchy.hpp's residual_restrict fills them).
  L.down.full_weighting = p.full_weighting;
  for (int a = 0; a < 3; ++a) {
    const std::size_t c = std::size_t(me[std::size_t(a)]);
    L.down.fw_shift[a] = 2 * coarse[a][c] - L.cuts[a][c];
    L.down.fw_open_lo[a] = !L.u.box().lo_face[a];
    L.down.fw_open_hi[a] = !L.u.box().hi_face[a];
    if (L.down.fw_shift[a] != 0 && L.down.fw_shift[a] != -1) L.down.full_weighting = false;
  }
  L.restrict_width = width;
}

}  // namespace

template <class T>
void DistHierarchy<T>::ghost_layers(const DistLevel<T>& L, Vec& v, int width, Stream s) {
  if (bc.kind == BoundaryKind::dirichlet && !L.ghost.any()) v.exchange_ghosts(false, width, s);
  else v.fill_ghosts(bc, width, s);
}

template <class T>
void DistHierarchy<T>::ghosts(const DistLevel<T>& L, Vec& u, Stream s) {
  if (bc.kind == BoundaryKind::dirichlet && L.ghost.any()) {
    // The rule on the global faces first; the exchange then carries them to the edges.
    extrapolate_ghosts(L.face_rule, u.local(), s);
    u.exchange_ghosts(false, 1, s);
  } else {
    ghost_layers(L, u, 1, s);
  }
}

template <class T>
bool DistHierarchy<T>::residual_restrict(std::size_t l, Stream s) {
  DistLevel<T>& L = levels[l];
  // The GPU's fused pass computes the residual one layer past a neighbour's face itself,
  // from two ghost layers of u and one of f (TransferView::fw_shift); otherwise the
  // residual's own ghosts are exchanged for the restriction.
  if (L.down.full_weighting && !L.ghost.any() && L.u.local().memory() == Memory::device) {
    ghost_layers(L, L.u, 2, s);
    ghost_layers(L, L.f, 1, s);
    if (poisson::residual_restrict(L.a, L.u.local(), L.f.local(), L.r.local(), L.down, levels[l + 1].f.local(), s))
      return true;
  }
  ghosts(L, L.u, s);
  residual(L.a, L.u.local(), L.f.local(), L.r.local(), s);
  restrict_to(l, L.r, levels[l + 1].f, s);
  return false;
}

template <class T>
bool DistHierarchy<T>::smooth_fused(DistLevel<T>& L, std::span<const SmoothingStep> steps, Stream s) {
  if (bc.kind != BoundaryKind::dirichlet || L.ghost.any() || L.u.local().memory() != Memory::device ||
      L.u.local().ghost() < 2 || steps.size() != 2)
    return false;
  const dist::Subdomain& box = L.u.box();
  const Extent n = L.u.local().extent();
  const int len[3] = {n.nx, n.ny, n.nz};
  int lo[3], size[3];
  for (int a = 0; a < 3; ++a) {
    lo[a] = box.lo_face[a] ? 0 : -2;
    size[a] = len[a] - lo[a] + (box.hi_face[a] ? 0 : 2);
  }
  ghost_layers(L, L.u, 2, s);
  ghost_layers(L, L.f, 1, s);
  return poisson::smooth_fused(L.a, steps, bc, L.u.local(), L.f.local(), L.u2.local(), s,
                               Region{lo[0], lo[1], lo[2], size[0], size[1], size[2]});
}

template <class T>
void DistHierarchy<T>::restrict_to(std::size_t l, Vec& fine, Vec& coarse, Stream s) {
  ghost_layers(levels[l], fine, levels[l].restrict_width, s);
  poisson::restrict_to(levels[l].down, fine.local(), coarse.local(), s);
}

template <class T>
void DistHierarchy<T>::prolong_add(std::size_t l, Stream s) {
  ghost_layers(levels[l + 1], levels[l + 1].u, 1, s);
  poisson::prolong_add(levels[l].down, levels[l + 1].u.local(), levels[l].u.local(), s);
}

template <class T>
bool DistHierarchy<T>::coarse_solve(DistLevel<T>& L, Stream s) {
  const std::size_t me = std::size_t(dist::Job::get().rank());
  const Memory mem = L.u.local().memory();
  const Extent n = L.u.local().extent();
  const Region mine{0, 0, 0, n.nx, n.ny, n.nz};
  T* all = parts();
  // Every rank's box of v into `to`, the whole level, on every rank.
  auto gather = [&](const Vec& v, Field<T>& to) {
    dist::halo::pack(v.local(), mine, all + start[me], s.handle);
    dist::halo::gather_parts(all, start, count, mem, s.handle);
    for (std::size_t r = 0; r < boxes.size(); ++r) dist::halo::unpack(to, boxes[r], all + start[r], s.handle);
  };
  Level<T>& C = tail->levels[0];
  gather(L.f, C.f);
  // Within a cycle the coarse u starts from zero; the finest level (all of it gathered)
  // improves the iterate it holds.
  if (&L == &levels.front()) gather(L.u, C.u);
  else fill(C.u, T(0), s);
  tail_mg->vcycle(0);
  dist::halo::pack(C.u, boxes[me], all + start[me], s.handle);
  dist::halo::unpack(L.u.local(), mine, all + start[me], s.handle);
  return true;
}

template <class T, class U>
DistHierarchy<T> build_dist_hierarchy(const PoissonOptions& o, const dist::DistField<U>& proto, double h, Stream s) {
  const dist::ProcessGrid& grid = proto.grid();
  const Memory mem = proto.local().memory();
  const BoundaryKind kind = o.bc.kind;
  const long long gather_below = o.gather_below > 0 ? o.gather_below : dist::poisson_gather_below(mem);
  const std::vector<LevelPlan> plan = plan_levels(o.op, kind, proto.global(), h, o.jacobi_omega);
  DistHierarchy<T> H;
  H.bc = homogeneous(kind);
  H.grid = grid;
  for (const LevelPlan& p : plan) H.plan_info.push_back({p.n, p.h});

  // Partition while a level is large and its boxes are thick enough to restrict from (two
  // ghost layers); the first level that is not is the gathered one.
  std::vector<Cuts> cuts = {Subdomain::even_cuts(grid, proto.global())};
  std::size_t k = 0;
  while (k + 1 < plan.size() && (long long)plan[k].n.points() >= gather_below && thinnest(cuts[k], grid) >= 2) {
    Cuts next = coarse_cuts(plan[k], cuts[k]);
    if (thinnest(next, grid) < 1) break;  // a rank would own no coarse point: gather here
    cuts.push_back(std::move(next));
    ++k;
  }
  for (std::size_t l = 0; l <= k; ++l) {
    H.levels.push_back(make_level<T>(plan[l], cuts[l], grid, l < k ? 2 : 1, mem));
    if (l < k) cut_transfers(H.levels.back(), plan[l], cuts[l + 1], grid, kind == BoundaryKind::periodic, mem);
  }
  H.tail = std::make_unique<Hierarchy<T>>(build_hierarchy<T>(plan, k, kind, mem));
  H.tail_mg = std::make_unique<Multigrid<T>>(*H.tail, o.smoother, o.pre, o.post, s);
  for (int r = 0; r < grid.ranks(); ++r) {
    const Subdomain b = Subdomain::of(grid, cuts[k], r);
    H.boxes.push_back({b.offset[0], b.offset[1], b.offset[2], b.local.nx, b.local.ny, b.local.nz});
    H.start.push_back(r == 0 ? 0 : H.start.back() + H.count.back());
    H.count.push_back(H.boxes.back().points());
  }
  const std::size_t total = H.start.back() + H.count.back();
  if (mem == Memory::host) H.parts_host.assign(total, T(0));
  else H.parts_device = DeviceArray<T>(total);
  // The gather talks to every rank, not only the neighbours the fields connected to, and
  // NCCL (the transport across hosts) makes a connection at its first message (on 4 x H200
  // the first cycle of a 4-rank solve took 0.41-0.45 s, the later ones 1.2-21 ms): one gather
  // here makes them in the setup, where a connection belongs, not in the first cycle.
  if (mem == Memory::device && grid.ranks() > 1) {
    dist::halo::gather_parts(H.parts(), H.start, H.count, mem, s.handle);
    runtime::stream_synchronize(s.handle);
  }
  return H;
}

template struct DistHierarchy<float>;
template struct DistHierarchy<double>;
template DistHierarchy<float> build_dist_hierarchy(const PoissonOptions&, const dist::DistField<float>&, double, Stream);
template DistHierarchy<double> build_dist_hierarchy(const PoissonOptions&, const dist::DistField<double>&, double, Stream);
template DistHierarchy<float> build_dist_hierarchy(const PoissonOptions&, const dist::DistField<double>&, double, Stream);

}  // namespace strata::poisson

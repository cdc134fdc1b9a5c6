// A rank's share of a distributed wave run (see partition.hpp).
#include "solvers/wave/partition.hpp"

#include <algorithm>
#include <array>
#include <vector>

namespace strata::wave {

std::string Partition::describe() const {
  const int r = grid.rank_of(box.coords);
  // Recorded in checkpoints and compared on restart: the text stays what earlier runs wrote.
  return "rank " + std::to_string(r) + " of " + std::to_string(grid.ranks()) + ", process grid " + grid.str() +
         ", box " + box.local.xyz() + " at (" + std::to_string(box.offset[0]) + ", " + std::to_string(box.offset[1]) +
         ", " + std::to_string(box.offset[2]) + ")";
}

dist::ProcessGrid wave_process_grid(const Config& c, int ranks, const std::string& text) {
  const int R = c.order / 2;
  const bool layers = std::find(c.faces.begin(), c.faces.end(), FaceKind::pml) != c.faces.end();
  if (text.empty()) {
    // Boxes as thick as a layer: then every layer lies whole in its end boxes.
    const int width = std::max(R, layers ? c.pml_width : 1);
    try {
      return dist::ProcessGrid::choose(c.shape, ranks, width);
    } catch (const Error& e) {
      throw Error("the " + c.shape.str() + " wave grid cannot be split over " + std::to_string(ranks) +
                  " ranks with boxes at least " + std::to_string(width) + " points thick (the stencil radius " +
                  std::to_string(R) + (layers ? " and boundary.pml.width " + std::to_string(c.pml_width) : "") +
                  "): run fewer ranks, or give --grid PXxPYxPZ");
    }
  }
  const dist::ProcessGrid g = dist::ProcessGrid::parse(text, "--grid");
  g.require_fits(c.shape, ranks, R, "--grid " + text);
  return g;
}

namespace {

// What a point of an absorbing layer costs against one of the plain update: the whole step
// with 20-point CPML on five faces of 512^3 takes 1.424 of a rigid step (H100, fp32,
// docs/performance.md), where the layers hold 19.5% of the points: 1 + 0.424 / 0.195.
// Checked on 2 x H200 (gpu512.json): 3.2 gives 1.792x one GPU; 2.4, which single-GPU runs of
// the two boxes suggested, gave 1.759x (docs/multigpu.md).
constexpr double kLayerCost = 3.2;

}  // namespace

dist::Subdomain wave_box(const Config& c, const dist::ProcessGrid& grid, int rank) {
  dist::Subdomain::Cuts cuts = dist::Subdomain::even_cuts(grid, c.shape);
  const int len[3] = {c.shape.nx, c.shape.ny, c.shape.nz}, min_width = c.order / 2, w = c.pml_width;
  for (int a = 0; a < 3; ++a) {
    const int p = grid.dims[a], n = len[a];
    if (p == 1) continue;
    // This axis's own layers, [lo, hi) each (another axis's cross every plane alike).
    std::vector<std::array<int, 2>> layers;
    if (c.faces[2 * a] == FaceKind::pml) layers.push_back({0, w});
    if (c.faces[2 * a + 1] == FaceKind::pml) layers.push_back({n - w, n});
    std::vector<double> prefix(std::size_t(n) + 1, 0.0);
    for (int i = 0; i < n; ++i) {
      double weight = 1;
      for (const auto& l : layers)
        if (i >= l[0] && i < l[1]) weight = kLayerCost;
      prefix[std::size_t(i) + 1] = prefix[std::size_t(i)] + weight;
    }
    std::vector<int> cut(std::size_t(p) + 1, n);
    cut[0] = 0;
    for (int k = 1; k < p; ++k) {  // the index whose prefix lies nearest k / p of the work
      const double goal = prefix.back() * k / p;
      int i = int(std::lower_bound(prefix.begin(), prefix.end(), goal) - prefix.begin());
      if (i > 0 && goal - prefix[std::size_t(i) - 1] < prefix[std::size_t(i)] - goal) --i;
      cut[std::size_t(k)] = i;
    }
    bool fits = true;
    for (int k = 0; k < p; ++k) {
      const int lo = cut[std::size_t(k)], hi = cut[std::size_t(k) + 1];
      fits = fits && hi - lo >= min_width;
      for (const auto& l : layers)  // a layer lies whole in one box
        if (lo < l[1] && hi > l[0]) fits = fits && lo <= l[0] && hi >= l[1];
    }
    if (fits) cuts[std::size_t(a)] = std::move(cut);
  }
  return dist::Subdomain::of(grid, cuts, rank);
}

Setup partition_setup(const Setup& global, const dist::ProcessGrid& grid, const dist::Subdomain& box,
                      Partition& part) {
  part.grid = grid;
  part.box = box;
  const dist::Subdomain& b = part.box;
  const int len[3] = {b.local.nx, b.local.ny, b.local.nz};
  auto inside = [&](int x, int y, int z) {
    const int q[3] = {x, y, z};
    for (int a = 0; a < 3; ++a)
      if (q[a] < b.offset[a] || q[a] >= b.offset[a] + len[a]) return false;
    return true;
  };

  Setup s = global;
  s.n = b.local;
  for (int a = 0; a < 3; ++a) {
    part.wrap[a] = global.faces[2 * a] == FaceKind::periodic && grid.dims[a] > 1;
    s.exchanged[2 * a] = grid.dims[a] > 1 && (!b.lo_face[a] || part.wrap[a]);  // ghosts from the neighbour
    s.exchanged[2 * a + 1] = grid.dims[a] > 1 && (!b.hi_face[a] || part.wrap[a]);
    if (s.exchanged[2 * a]) s.faces[2 * a] = FaceKind::pml;  // the backend leaves them alone
    if (s.exchanged[2 * a + 1]) s.faces[2 * a + 1] = FaceKind::pml;
  }

  s.pml.clear();
  for (const PmlFace& f : global.pml) {
    PmlFace p = f;
    bool here = true;
    for (int a = 0; a < 3; ++a) {
      const int lo = std::max(f.lo[a], b.offset[a]), hi = std::min(f.hi[a], b.offset[a] + len[a]);
      here = here && lo < hi;
      p.lo[a] = lo - b.offset[a];
      p.hi[a] = hi - b.offset[a];
    }
    if (!here) continue;
    const int ax = f.axis;
    if (p.lo[ax] + b.offset[ax] != f.lo[ax] || p.hi[ax] + b.offset[ax] != f.hi[ax])
      throw Error(std::string("the absorbing layer of boundary.") + kFaceNames[f.face] + " (" +
                  std::to_string(f.hi[ax] - f.lo[ax]) + " points along " + "xyz"[ax] +
                  ") would be cut between ranks by process grid " + grid.str() + " (" + part.describe() +
                  "): each layer must lie whole in one box along its axis; use fewer ranks along " + "xyz"[ax] +
                  " or a thinner boundary.pml.width");
    s.pml.push_back(std::move(p));
  }

  for (auto& taps : s.sources) {
    std::vector<Tap> mine;
    for (const Tap& t : taps)
      if (inside(t.x, t.y, t.z)) mine.push_back({t.x - b.offset[0], t.y - b.offset[1], t.z - b.offset[2], t.w});
    taps = std::move(mine);  // a source with no point here stays, empty: amplitudes keep their index
  }

  s.receivers.clear();
  part.columns.clear();
  for (std::size_t i = 0; i < global.receivers.size(); ++i) {
    const std::vector<Tap>& taps = global.receivers[i];
    int lo[3] = {taps.front().x, taps.front().y, taps.front().z};
    for (const Tap& t : taps) lo[0] = std::min(lo[0], t.x), lo[1] = std::min(lo[1], t.y), lo[2] = std::min(lo[2], t.z);
    if (!inside(lo[0], lo[1], lo[2])) continue;
    std::vector<Tap> local = taps;
    for (Tap& t : local) t.x -= b.offset[0], t.y -= b.offset[1], t.z -= b.offset[2];
    s.receivers.push_back(std::move(local));
    part.columns.push_back(int(i));
  }
  return s;
}

template <class T>
std::vector<T> box_values(std::span<const T> global, Extent n, const dist::Subdomain& b, bool planes) {
  if (planes) return {global.begin() + b.offset[2], global.begin() + b.offset[2] + b.local.nz};
  std::vector<T> out(b.local.points());
  std::size_t i = 0;
  for (int z = 0; z < b.local.nz; ++z)
    for (int y = 0; y < b.local.ny; ++y) {
      const std::size_t at = (std::size_t(b.offset[2] + z) * n.ny + std::size_t(b.offset[1] + y)) * n.nx + b.offset[0];
      std::copy_n(global.begin() + std::ptrdiff_t(at), b.local.nx, out.begin() + std::ptrdiff_t(i));
      i += std::size_t(b.local.nx);
    }
  return out;
}

template std::vector<float> box_values(std::span<const float>, Extent, const dist::Subdomain&, bool);
template std::vector<double> box_values(std::span<const double>, Extent, const dist::Subdomain&, bool);

}  // namespace strata::wave

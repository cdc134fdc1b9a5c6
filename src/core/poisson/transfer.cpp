// Per-axis transfer tables from coordinates (units of the fine spacing):
//   dirichlet x_i = i + 1, X_I = 2(I + 1); coarse ghosts are zero (homogeneous correction)
//   neumann   x_i = i + 1/2, X_I = 2I + 1; coarse ghosts mirror
//   periodic  x_i = i, X_I = 2I; coarse ghosts wrap (exact when n is even)
#include "core/poisson/transfer.hpp"

#include <cmath>

#include "strata/error.hpp"

namespace strata::poisson {

int coarse_extent(BoundaryKind kind, int n) {
  if (n < 2) return 0;
  return kind == BoundaryKind::dirichlet ? n / 2 : (n + 1) / 2;
}

AxisTransfer make_axis_transfer(BoundaryKind kind, int n) {
  AxisTransfer t;
  t.n_fine = n;
  t.n_coarse = coarse_extent(kind, n);
  require(t.n_coarse >= 1, "internal: an axis of " + std::to_string(n) + " points cannot coarsen");
  const int nc = t.n_coarse;
  const double fine0 = kind == BoundaryKind::dirichlet ? 1.0 : (kind == BoundaryKind::neumann ? 0.5 : 0.0);
  const double coarse0 = kind == BoundaryKind::dirichlet ? 2.0 : (kind == BoundaryKind::neumann ? 1.0 : 0.0);
  // A coarse ghost index maps into the coarse interior, or to -1 (a zero value).
  auto map = [&](int I) {
    if (I >= 0 && I < nc) return I;
    if (kind == BoundaryKind::dirichlet) return -1;
    return ghost_source(kind, I, nc);
  };
  t.p_idx.assign(2 * std::size_t(n), 0);
  t.p_w.assign(2 * std::size_t(n), 0.0);
  std::vector<std::vector<std::pair<int, double>>> adj(nc);
  for (int i = 0; i < n; ++i) {
    const double s = (fine0 + i - coarse0) / 2.0;  // position in coarse index units
    const int I0 = int(std::floor(s));
    const double w1 = s - I0, w0 = 1.0 - w1;
    const int idx[2] = {map(I0), map(I0 + 1)};
    const double w[2] = {w0, w1};
    for (int k = 0; k < 2; ++k) {
      if (idx[k] < 0 || w[k] == 0.0) continue;
      t.p_idx[2 * i + k] = idx[k];
      t.p_w[2 * i + k] = w[k];
      adj[idx[k]].push_back({i, 0.5 * w[k]});
    }
    if (t.p_w[2 * i] == 0.0) t.p_idx[2 * i] = t.p_idx[2 * i + 1];  // unused tap: repeat the other
    if (t.p_w[2 * i + 1] == 0.0) t.p_idx[2 * i + 1] = t.p_idx[2 * i];
  }
  t.r_idx.assign(AxisTransfer::kMaxFine * std::size_t(nc), 0);
  t.r_w.assign(AxisTransfer::kMaxFine * std::size_t(nc), 0.0);
  for (int I = 0; I < nc; ++I) {
    // Merge repeated fine indices (mirrors and wraps can reach one fine point twice).
    std::vector<std::pair<int, double>> merged;
    for (auto [i, w] : adj[I]) {
      bool found = false;
      for (auto& m : merged)
        if (m.first == i) m.second += w, found = true;
      if (!found) merged.push_back({i, w});
    }
    require(merged.size() <= std::size_t(AxisTransfer::kMaxFine),
            "internal: restriction stencil wider than expected on an axis of " + std::to_string(n));
    for (std::size_t k = 0; k < merged.size(); ++k) {
      t.r_idx[AxisTransfer::kMaxFine * I + k] = merged[k].first;
      t.r_w[AxisTransfer::kMaxFine * I + k] = merged[k].second;
    }
    // Unused taps repeat a used index (weight 0): their loads hit lines already read.
    for (std::size_t k = merged.size(); k < std::size_t(AxisTransfer::kMaxFine); ++k)
      t.r_idx[AxisTransfer::kMaxFine * I + k] = merged.empty() ? 0 : merged[0].first;
  }
  return t;
}

}  // namespace strata::poisson

// Per-axis coarsening and transfer tables, in exact integer geometry. A fine point i sits
// s(i) = num / den coarse spacings from coarse point 0; linear interpolation takes the two
// coarse points around it, and a coarse index beyond the ends reads the coarse ghost: the
// ghost rule on Dirichlet axes (0 where the boundary is a grid point), the mirror on
// Neumann axes (cell-centred, x_i = (i + 1/2) h), the wrap on periodic ones (x_i = i h).
#include "solvers/poisson/transfer.hpp"

#include <functional>
#include <string>
#include <utility>

#include "base/ghost_index.hpp"
#include "strata/error.hpp"

namespace strata::poisson {

namespace {

long long floor_div(long long a, long long b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }

struct Position {
  long long num, den;
};

// The coarse axis, the ratio of spacings, and where each fine point lies.
struct Step {
  AxisGrid coarse;
  double ratio = 2;
  bool full_weighting = false;
  std::function<Position(long long)> at;
};

Step dirichlet_step(const AxisGrid& f) {
  const int n = f.n;
  const bool lo_on_grid = f.lo == f.den, hi_on_grid = f.hi == f.den;
  // Nested on the odd points (p = 1) or the even ones (p = 0), whichever keeps both
  // boundaries within [1/2, 1] coarse spacings of the end points.
  const int p = (n % 2 == 1 || hi_on_grid) ? 1 : (lo_on_grid ? 0 : -1);
  Step s;
  if (p >= 0) {
    const int nc = (n - p + 1) / 2, last = p + 2 * (nc - 1);
    s.coarse = {nc, 2 * f.den, f.lo + p * f.den, f.hi + (n - 1 - last) * f.den};
    s.ratio = 2;
    s.full_weighting = p == 1 && lo_on_grid && (n % 2 == 0 || hi_on_grid);
    s.at = [p](long long i) { return Position{i - p, 2}; };
    return s;
  }
  // Uniform over the box: length L = lo + (n - 1) den + hi in units of h / den.
  const int nc = n / 2;
  const long long L = f.lo + (n - 1) * f.den + f.hi;
  s.coarse = {nc, 1, 1, 1};
  s.ratio = double(L) / double(f.den * (nc + 1));
  s.at = [f, nc, L](long long i) { return Position{(f.lo + i * f.den) * (nc + 1) - L, L}; };
  return s;
}

Step uniform_step(BoundaryKind kind, int n) {
  const int nc = (n + 1) / 2;
  Step s;
  s.coarse = {nc};
  s.ratio = double(n) / double(nc);
  if (kind == BoundaryKind::neumann)  // x_i = (i + 1/2) h, X_I = (I + 1/2) H, H = n h / nc
    s.at = [n, nc](long long i) { return Position{(2 * i + 1) * nc - n, 2LL * n}; };
  else  // periodic: x_i = i h, X_I = I H
    s.at = [n, nc](long long i) { return Position{i * nc, n}; };
  return s;
}

}  // namespace

AxisTransfer coarsen_axis(BoundaryKind kind, const AxisGrid& fine) {
  const int n = fine.n;
  require(n >= 1, "internal: an axis of " + std::to_string(n) + " points");
  AxisTransfer t;
  t.n_fine = n;
  if (n == 1) {  // not coarsened: the identity
    t.coarse = fine;
    t.n_coarse = 1;
    t.ratio = 1;
    t.p_idx = {0, 0};
    t.p_w = {1.0, 0.0};
    t.r_idx.assign(AxisTransfer::kMaxFine, 0);
    t.r_w.assign(AxisTransfer::kMaxFine, 0.0);
    t.r_w[0] = 1.0;
    return t;
  }
  const Step step = kind == BoundaryKind::dirichlet ? dirichlet_step(fine) : uniform_step(kind, n);
  const int nc = step.coarse.n;
  t.coarse = step.coarse;
  t.n_coarse = nc;
  t.ratio = step.ratio;
  t.full_weighting = step.full_weighting;
  const double glo = step.coarse.ghost_lo(), ghi = step.coarse.ghost_hi();
  // A coarse index and weight as a tap on a coarse interior point (weight 0: none).
  auto tap = [&](long long I, double w) -> std::pair<int, double> {
    if (I >= 0 && I < nc) return {int(I), w};
    require(I >= -1 && I <= nc, "internal: interpolation beyond the coarse ghosts");
    if (kind != BoundaryKind::dirichlet) return {ghost_source(kind, int(I), nc), w};
    return I < 0 ? std::pair<int, double>{0, w * glo} : std::pair<int, double>{nc - 1, w * ghi};
  };
  const double rw = 1.0 / t.ratio;  // restriction = (h / H) P^T per axis
  t.p_idx.assign(2 * std::size_t(n), 0);
  t.p_w.assign(2 * std::size_t(n), 0.0);
  std::vector<std::vector<std::pair<int, double>>> adj(nc);
  for (int i = 0; i < n; ++i) {
    const Position s = step.at(i);
    const long long I0 = floor_div(s.num, s.den);
    const double w1 = double(s.num - I0 * s.den) / double(s.den);
    auto a = tap(I0, 1.0 - w1), b = tap(I0 + 1, w1);
    if (a.first == b.first) a.second += b.second, b.second = 0.0;  // both through one ghost rule
    if (a.second == 0.0) a.first = b.first;  // unused tap: repeat the other
    if (b.second == 0.0) b.first = a.first;
    t.p_idx[2 * i] = a.first, t.p_w[2 * i] = a.second;
    t.p_idx[2 * i + 1] = b.first, t.p_w[2 * i + 1] = b.second;
    for (auto [I, w] : {a, b})
      if (w != 0.0) adj[I].push_back({i, rw * w});
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

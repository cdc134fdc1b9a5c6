// The multigrid hierarchy's geometry and operators: every level spans the finest level's
// box, interpolation is the piecewise-linear function through the coarse points and the
// boundary condition at the true boundary, restriction is its scaled transpose, the coarse
// finite-element operator is the Galerkin product of the finest one, and every level's
// operator is symmetric with its spectrum inside the smoother's interval.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "common/test_util.hpp"
#include "dispatch/multigrid.hpp"
#include "solvers/poisson/hierarchy.hpp"
#include "solvers/poisson/transfer.hpp"
#include "strata/apply.hpp"
#include "strata/poisson.hpp"

using namespace strata;
using poisson::AxisGrid;
using poisson::AxisTransfer;

namespace {

const BoundaryKind kKinds[] = {BoundaryKind::dirichlet, BoundaryKind::neumann, BoundaryKind::periodic};

const char* name(BoundaryKind k) {
  return k == BoundaryKind::dirichlet ? "dirichlet" : (k == BoundaryKind::neumann ? "neumann" : "periodic");
}

// Positions of an axis's points in units of the finest spacing, given its spacing H.
std::vector<double> coordinates(BoundaryKind kind, const AxisGrid& g, double H) {
  std::vector<double> x(g.n);
  for (int i = 0; i < g.n; ++i) {
    if (kind == BoundaryKind::dirichlet) x[i] = (double(g.lo) / double(g.den) + i) * H;
    else if (kind == BoundaryKind::neumann) x[i] = (i + 0.5) * H;
    else x[i] = i * H;
  }
  return x;
}

// The box length (or period) an axis spans.
double length(BoundaryKind kind, const AxisGrid& g, double H) {
  if (kind != BoundaryKind::dirichlet) return g.n * H;
  return (double(g.lo) / double(g.den) + g.n - 1 + double(g.hi) / double(g.den)) * H;
}

// The piecewise-linear function through (X_I, v_I) extended by the boundary condition of
// a box [0, L]: zero at 0 and L, even about 0 and L, or periodic with period L.
double piecewise_linear(BoundaryKind kind, const std::vector<double>& X, const std::vector<double>& v, double L,
                        double x) {
  std::vector<std::pair<double, double>> knots;
  const std::size_t m = X.size();
  if (kind == BoundaryKind::dirichlet) knots.push_back({0.0, 0.0});
  if (kind == BoundaryKind::neumann) knots.push_back({-X[0], v[0]});
  if (kind == BoundaryKind::periodic) knots.push_back({X[m - 1] - L, v[m - 1]});
  for (std::size_t i = 0; i < m; ++i) knots.push_back({X[i], v[i]});
  if (kind == BoundaryKind::dirichlet) knots.push_back({L, 0.0});
  if (kind == BoundaryKind::neumann) knots.push_back({2 * L - X[m - 1], v[m - 1]});
  if (kind == BoundaryKind::periodic) knots.push_back({X[0] + L, v[0]});
  for (std::size_t k = 0; k + 1 < knots.size(); ++k)
    if (x >= knots[k].first && x <= knots[k + 1].first) {
      const double t = (x - knots[k].first) / (knots[k + 1].first - knots[k].first);
      return (1 - t) * knots[k].second + t * knots[k + 1].second;
    }
  ADD_FAILURE() << "fine point " << x << " outside the coarse knots";
  return 0;
}

}  // namespace

// The defect of issue 11: a coarse Dirichlet grid of n/2 points at spacing 2h reached one
// fine spacing past the boundary of an even axis. Every level must span the same box, with
// spacing at most 2h (at most kMaxFine restriction taps) and at least 1.5h (but on axes of
// fewer than 6 points), and a Dirichlet boundary within
// [1/2, 1] spacings of the end points (the ghost factors the smoother bounds allow).
TEST(PoissonTransfer, EveryLevelSpansTheFinestBox) {
  for (BoundaryKind kind : kKinds)
    for (int n0 = 1; n0 <= 140; ++n0) {
      AxisGrid g{n0};
      double H = 1;
      const double L0 = length(kind, g, H);
      for (int level = 0; level < 12 && g.n > 1; ++level) {
        const AxisTransfer t = poisson::coarsen_axis(kind, g);
        ASSERT_LT(t.n_coarse, g.n) << name(kind) << " n=" << n0;
        EXPECT_LE(t.ratio, 2.0) << name(kind) << " n=" << n0 << " level " << level;
        EXPECT_GE(t.ratio, g.n >= 6 ? 1.5 : 1.0) << name(kind) << " n=" << n0 << " level " << level;
        g = t.coarse;
        H *= t.ratio;
        EXPECT_NEAR(length(kind, g, H), L0, 1e-12 * L0) << name(kind) << " n=" << n0 << " level " << level + 1;
        if (kind == BoundaryKind::dirichlet) {
          for (long long b : {g.lo, g.hi}) {
            EXPECT_GE(2 * b, g.den) << "n=" << n0 << " level " << level + 1;
            EXPECT_LE(b, g.den) << "n=" << n0 << " level " << level + 1;
          }
        }
      }
    }
}

// Prolongation is linear interpolation of the coarse values, with the boundary condition
// applied at the true boundary; restriction is its transpose times h / H. Random coarse
// values, every size up to 70 and every level.
TEST(PoissonTransfer, InterpolationIsPiecewiseLinearThroughTheBoundaryAndRestrictionItsTranspose) {
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> d(-1, 1);
  for (BoundaryKind kind : kKinds)
    for (int n0 = 2; n0 <= 70; ++n0) {
      AxisGrid g{n0};
      double H = 1;
      const double L = length(kind, g, H);
      for (int level = 0; g.n > 1; ++level) {
        const AxisTransfer t = poisson::coarsen_axis(kind, g);
        const std::vector<double> xf = coordinates(kind, g, H), xc = coordinates(kind, t.coarse, H * t.ratio);
        std::vector<double> v(t.n_coarse);
        for (double& e : v) e = d(rng);
        std::vector<double> P(std::size_t(g.n) * t.n_coarse, 0.0), R(P.size(), 0.0);
        for (int i = 0; i < g.n; ++i) {
          double pv = 0;
          for (int k = 0; k < 2; ++k) {
            pv += t.p_w[2 * i + k] * v[t.p_idx[2 * i + k]];
            P[std::size_t(i) * t.n_coarse + t.p_idx[2 * i + k]] += t.p_w[2 * i + k];
          }
          EXPECT_NEAR(pv, piecewise_linear(kind, xc, v, L, xf[i]), 1e-13)
              << name(kind) << " n=" << n0 << " level " << level << " fine point " << i;
        }
        for (int I = 0; I < t.n_coarse; ++I)
          for (int k = 0; k < AxisTransfer::kMaxFine; ++k)
            R[std::size_t(t.r_idx[4 * I + k]) * t.n_coarse + I] += t.r_w[4 * I + k];
        for (std::size_t q = 0; q < P.size(); ++q)
          EXPECT_NEAR(R[q], P[q] / t.ratio, 1e-14) << name(kind) << " n=" << n0 << " level " << level;
        g = t.coarse;
        H *= t.ratio;
      }
    }
}

TEST(PoissonTransfer, NestedDirichletIsFullWeighting) {
  for (int n : {7, 8}) {  // odd: the boundary on the coarse grid; even: half a coarse spacing beyond
    const AxisTransfer t = poisson::make_axis_transfer(BoundaryKind::dirichlet, n);
    ASSERT_EQ(t.n_coarse, n / 2);
    EXPECT_TRUE(t.full_weighting);
    EXPECT_EQ(t.ratio, 2.0);
    // coarse 1 gathers fine 2, 3, 4 with 1/4, 1/2, 1/4
    std::vector<std::pair<int, double>> w;
    for (int k = 0; k < 4; ++k)  // unused taps weigh 0
      if (t.r_w[4 + k] != 0) w.push_back({t.r_idx[4 + k], t.r_w[4 + k]});
    ASSERT_EQ(w.size(), 3u);
    EXPECT_EQ(w[0].first, 2);
    EXPECT_DOUBLE_EQ(w[0].second, 0.25);
    EXPECT_DOUBLE_EQ(w[1].second, 0.5);
    EXPECT_DOUBLE_EQ(w[2].second, 0.25);
  }
}

namespace {

// A level's operator applied to u (ghosts by the level's rule) into out.
void apply_level(const poisson::Hierarchy<double>& H, const poisson::Level<double>& L, Field<double>& u,
                 Field<double>& out) {
  if (H.bc.kind == BoundaryKind::dirichlet) poisson::extrapolate_ghosts(L.ghost, u, Stream{});
  else fill_ghosts(u, H.bc, 1);
  apply_interior(L.a, u, out);
}

double dot_interior(const Field<double>& a, const Field<double>& b) {
  double s = 0;
  const Extent n = a.extent();
  for (int z = 0; z < n.nz; ++z)
    for (int y = 0; y < n.ny; ++y)
      for (int x = 0; x < n.nx; ++x) s += a(x, y, z) * b(x, y, z);
  return s;
}

const Extent kShapes[] = {{16, 16, 16}, {17, 17, 17}, {30, 13, 9}, {96, 5, 3}, {12, 40, 22}};

}  // namespace

// For trilinear finite elements, the coarse operator of a nested level is the Galerkin
// product R A P of the fine one, also where the box is not a multiple of 2h (the ghost rule
// puts the boundary where it is). Checked on random coarse vectors, level 0 to level 1,
// even, odd and mixed axes.
TEST(PoissonHierarchy, CoarseFiniteElementOperatorIsTheGalerkinProduct) {
  for (const Extent& n : {Extent{16, 16, 16}, Extent{17, 12, 9}, Extent{10, 13, 6}, Extent{31, 31, 31}}) {
    const double h = 1.0 / (n.nx + 1);
    auto H = poisson::build_hierarchy<double>(PoissonOperator::fe27, BoundaryKind::dirichlet, n, h, Memory::host, 0);
    ASSERT_GE(H.levels.size(), 2u) << n.str();
    auto& F = H.levels[0];
    auto& C = H.levels[1];
    Field<double> v(C.n, 1), av(C.n, 1), rapv(C.n, 1), pv(n, 1), apv(n, 1);
    test::fill_random(v, 5 + n.nx);
    poisson::prolong_add(F.down, v, pv, Stream{});
    apply_level(H, F, pv, apv);
    poisson::restrict_to(F.down, apv, rapv, Stream{});
    apply_level(H, C, v, av);
    double err = 0, scale = 0;
    for (int z = 0; z < C.n.nz; ++z)
      for (int y = 0; y < C.n.ny; ++y)
        for (int x = 0; x < C.n.nx; ++x) {
          err = std::max(err, std::fabs(av(x, y, z) - rapv(x, y, z)));
          scale = std::max(scale, std::fabs(av(x, y, z)));
        }
    EXPECT_LE(err, 1e-12 * scale) << n.str() << ": coarse " << C.n.str();
  }
}

// Every level's operator, with its ghost rule, is symmetric, and the largest eigenvalue
// of D^-1 A (power iteration) lies below the top of the Chebyshev interval: a ghost factor
// below -1 would enlarge the boundary diagonal past it and the smoother would amplify.
TEST(PoissonHierarchy, EveryLevelIsSymmetricWithItsSpectrumInsideTheSmootherInterval) {
  for (PoissonOperator op : {PoissonOperator::fd7, PoissonOperator::fe27})
    for (BoundaryKind kind : kKinds)
      for (const Extent& n : kShapes) {
        const double h = 1.0 / n.nx;
        auto H = poisson::build_hierarchy<double>(op, kind, n, h, Memory::host, 0);
        for (std::size_t l = 0; l < H.levels.size(); ++l) {
          const auto& L = H.levels[l];
          const std::string what = std::string(to_string(op)) + " " + name(kind) + " " + n.str() + " level " +
                                   std::to_string(l) + " " + L.n.str();
          Field<double> a(L.n, 1), b(L.n, 1), aa(L.n, 1), ab(L.n, 1);
          test::fill_random(a, 1 + l);
          test::fill_random(b, 2 + l);
          apply_level(H, L, a, aa);
          apply_level(H, L, b, ab);
          const double ba = dot_interior(b, aa), ab_ = dot_interior(a, ab);
          EXPECT_NEAR(ba, ab_, 1e-12 * (std::fabs(ba) + std::fabs(ab_))) << what;
          // power iteration on D^-1 A (similar to a symmetric matrix: converges from below)
          const double d = poisson::diagonal(L.a);
          double lambda = 0;
          for (int it = 0; it < 80; ++it) {
            apply_level(H, L, a, aa);
            const double nrm = std::sqrt(dot_interior(aa, aa)) / d;
            lambda = nrm / std::sqrt(dot_interior(a, a));
            for (int z = 0; z < L.n.nz; ++z)
              for (int y = 0; y < L.n.ny; ++y)
                for (int x = 0; x < L.n.nx; ++x) a(x, y, z) = aa(x, y, z) / (d * nrm);
          }
          EXPECT_LE(lambda, L.lam_hi) << what;
          if (std::min({L.n.nx, L.n.ny, L.n.nz}) >= 6) {  // (tiny axes sample the symbol: conservative)
            EXPECT_GT(lambda, 0.8 * L.lam_hi) << what << ": the interval is far above the spectrum";
          }
        }
      }
}

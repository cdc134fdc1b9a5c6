// The generated Poisson problems on the host: the manufactured right-hand side is -Lap of
// the exact solution to the scheme's order, its error norms measured from the formula agree
// with those against a stored exact field, and the random right-hand side is a fixed,
// seed-dependent field in [-1, 1).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "strata/manufactured.hpp"
#include "strata/poisson.hpp"

using namespace strata;

namespace {

const Boundary kBoundaries[] = {Boundary::dirichlet(0.0), Boundary::dirichlet(2.5), Boundary::neumann(),
                                Boundary::periodic()};

}  // namespace

// -Lap_h u* = f + O(h^2): the 7-point operator applied to the exact field reproduces f with
// an error that falls 4x when h halves.
TEST(PoissonProblems, ManufacturedRightHandSideIsMinusTheLaplacian) {
  for (const Boundary& bc : kBoundaries) {
    double prev = 0;
    for (int n : {12, 24}) {
      const Extent e{n, n + 3, n - 2};
      const double h = poisson_spacing(bc, e.nx);
      Field<double> f(e, 1), exact(e, 1), lap(e, 1);
      poisson::manufactured(bc, h, f, &exact);
      fill_ghosts(exact, bc, 1);
      apply_interior(poisson_stencil(PoissonOperator::fd7, h), exact, lap);
      double worst = 0, scale = 0;
      for (int z = 0; z < e.nz; ++z)
        for (int y = 0; y < e.ny; ++y)
          for (int x = 0; x < e.nx; ++x) {
            worst = std::max(worst, std::fabs(lap(x, y, z) - f(x, y, z)));
            scale = std::max(scale, std::fabs(f(x, y, z)));
          }
      ASSERT_GT(scale, 0.0) << bc.describe();
      if (prev > 0) {
        EXPECT_NEAR(prev / worst, 4.0, 0.6) << bc.describe();
      }
      prev = worst;
    }
  }
}

TEST(PoissonProblems, ErrorFromTheFormulaMatchesTheErrorAgainstAnExactField) {
  for (const Boundary& bc : kBoundaries) {
    const Extent e{17, 9, 13};
    const double h = poisson_spacing(bc, e.nx);
    Field<double> f(e, 1), exact(e, 1), u(e, 1);
    poisson::manufactured(bc, h, f, &exact);
    poisson::random_rhs(u, 7);  // u = exact + noise (and a constant, which null spaces ignore)
    const double constant = bc.kind == BoundaryKind::dirichlet ? 0.0 : 4.0;
    for (int z = 0; z < e.nz; ++z)
      for (int y = 0; y < e.ny; ++y)
        for (int x = 0; x < e.nx; ++x) u(x, y, z) = exact(x, y, z) + 1e-3 * u(x, y, z) + constant;
    const auto a = poisson::manufactured_error(bc, h, u), b = poisson::solution_error(bc, u, exact);
    EXPECT_GT(a.max_abs, 0.0);
    EXPECT_NEAR(a.max_abs, b.max_abs, 1e-12) << bc.describe();
    EXPECT_NEAR(a.rel_l2, b.rel_l2, 1e-9 * b.rel_l2) << bc.describe();
  }
}

TEST(PoissonProblems, RandomRightHandSideIsFixedBySeed) {
  const Extent e{33, 7, 5};
  Field<float> a(e, 1), b(e, 1), c(e, 1);
  poisson::random_rhs(a, 1);
  poisson::random_rhs(b, 1);
  poisson::random_rhs(c, 2);
  double lo = 1, hi = -1, mean = 0;
  std::size_t same = 0, differ = 0;
  for (int z = 0; z < e.nz; ++z)
    for (int y = 0; y < e.ny; ++y)
      for (int x = 0; x < e.nx; ++x) {
        lo = std::min(lo, double(a(x, y, z))), hi = std::max(hi, double(a(x, y, z)));
        mean += a(x, y, z);
        same += std::memcmp(&a(x, y, z), &b(x, y, z), sizeof(float)) == 0;
        differ += a(x, y, z) != c(x, y, z);
      }
  EXPECT_EQ(same, e.points());
  EXPECT_GT(differ, e.points() * 99 / 100);
  EXPECT_GE(lo, -1.0);
  EXPECT_LT(hi, 1.0);
  EXPECT_LT(lo, -0.9);
  EXPECT_GT(hi, 0.9);
  EXPECT_NEAR(mean / double(e.points()), 0.0, 0.1);
}

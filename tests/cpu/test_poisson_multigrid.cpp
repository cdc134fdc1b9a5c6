// Multigrid converges at its nested rate on every shape and boundary kind (issue 11): the
// V(2,2) factor per cycle on even, odd, prime and non-cubic sizes against a bound a little
// above the nested sizes' rate, for both operators and both smoothers, and one full
// multigrid pass reaching the discretisation error on the same kinds of sizes.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "common/test_util.hpp"
#include "strata/manufactured.hpp"
#include "strata/poisson.hpp"

using namespace strata;

namespace {

// Sizes whose levels do and do not nest: even (16, 24), odd (33, coarsening to even),
// prime (17, 37x24x19), non-cubic, and tiny axes that stop coarsening early (96x5x3).
const Extent kShapes[] = {{16, 16, 16}, {17, 17, 17}, {24, 24, 24}, {33, 33, 33},
                          {37, 24, 19}, {30, 17, 9},  {96, 5, 3}};

struct Case {
  PoissonOperator op;
  Smoother smoother;
};
const Case kCases[] = {{PoissonOperator::fd7, Smoother::chebyshev},
                       {PoissonOperator::fe27, Smoother::chebyshev},
                       {PoissonOperator::fd7, Smoother::jacobi}};

// The bound per boundary kind and case: the nested sizes' asymptotic factor (63^3 and 64^3,
// docs/poisson.md) plus a margin of about 15%. Periodic axes of odd length cannot nest and
// get the larger margin the docs state (their factor measured up to 0.25 / 0.11 / 0.31).
double bound(BoundaryKind kind, const Case& c) {
  const bool fe = c.op == PoissonOperator::fe27, jac = c.smoother == Smoother::jacobi;
  switch (kind) {
    case BoundaryKind::dirichlet: return fe ? 0.07 : (jac ? 0.28 : 0.22);    // nested 0.053 / 0.244 / 0.183
    case BoundaryKind::neumann: return fe ? 0.15 : (jac ? 0.35 : 0.30);      // nested 0.112 / 0.316 / 0.266
    case BoundaryKind::periodic: return fe ? 0.12 : (jac ? 0.33 : 0.27);     // nested 0.058 / 0.246 / 0.185
  }
  return 0;
}

std::string describe(BoundaryKind kind, const Case& c, Extent n) {
  const char* b = kind == BoundaryKind::dirichlet ? "dirichlet" : (kind == BoundaryKind::neumann ? "neumann" : "periodic");
  return std::string(to_string(c.op)) + " " + std::string(to_string(c.smoother)) + " " + b + " " + n.str();
}

}  // namespace

// The worst per-cycle reduction after the first three cycles (the start of a random
// right-hand side reduces faster than the asymptotic rate), while the residual is above
// the double rounding floor. The code before issue 11 fails this on every even Dirichlet
// size (16^3: 0.35 fd7, 0.25 fe27; 24^3 and 33^3 diverge or crawl) and on odd Neumann and
// periodic sizes (17^3: 0.45 / 0.29).
TEST(PoissonMultigrid, VCycleConvergesAtTheNestedRateOnEveryShape) {
  for (BoundaryKind kind : {BoundaryKind::dirichlet, BoundaryKind::neumann, BoundaryKind::periodic})
    for (const Case& c : kCases)
      for (const Extent& n : kShapes) {
        PoissonOptions o;
        o.op = c.op;
        o.smoother = c.smoother;
        o.bc = kind == BoundaryKind::dirichlet ? Boundary::dirichlet(0.0)
                                               : (kind == BoundaryKind::neumann ? Boundary::neumann() : Boundary::periodic());
        o.method = PoissonMethod::mg;
        o.rtol = 1e-14;
        o.max_iter = 10;
        Field<double> f(n, 1), u(n, 1);
        test::fill_random(f, 17 + n.nx);
        const PoissonReport r = solve_poisson(o, f, u);
        const auto& res = r.residuals;
        ASSERT_GE(res.size(), 6u) << describe(kind, c, n) << ": " << r.message;
        double worst = 0;
        for (std::size_t i = 4; i < res.size() && res[i] > 1e-11; ++i) worst = std::max(worst, res[i] / res[i - 1]);
        EXPECT_LT(worst, bound(kind, c)) << describe(kind, c, n);
      }
}

// One full-multigrid pass lands within 1.5x of the converged solution's error against
// the manufactured solution (it reaches the discretisation error), on sizes whose levels do
// not nest as well as on those that do, for every boundary kind and both operators.
TEST(PoissonMultigrid, FullMultigridReachesTheDiscretisationErrorOnEveryShape) {
  for (BoundaryKind kind : {BoundaryKind::dirichlet, BoundaryKind::neumann, BoundaryKind::periodic})
    for (PoissonOperator op : {PoissonOperator::fd7, PoissonOperator::fe27})
      for (const Extent& n : {Extent{31, 31, 31}, Extent{32, 32, 32}, Extent{33, 33, 33}, Extent{37, 24, 19}}) {
        PoissonOptions o;
        o.op = op;
        o.bc = kind == BoundaryKind::dirichlet ? Boundary::dirichlet(0.5)
                                               : (kind == BoundaryKind::neumann ? Boundary::neumann() : Boundary::periodic());
        o.h = poisson_spacing(o.bc, n.nx);
        Field<double> f(n, 1), exact(n, 1), u1(n, 1), u(n, 1);
        poisson::manufactured(o.bc, o.h, f, &exact);
        // Start from the boundary value, as the CLI does: the error equation's right-hand
        // side is then f itself, smooth, which is what one FMG pass can resolve.
        const double g = kind == BoundaryKind::dirichlet ? o.bc.value : 0.0;
        for (Field<double>* v : {&u1, &u})
          for (int z = 0; z < n.nz; ++z)
            for (int y = 0; y < n.ny; ++y)
              for (int x = 0; x < n.nx; ++x) (*v)(x, y, z) = g;
        o.method = PoissonMethod::fmg;
        o.max_iter = 1;
        o.rtol = 1e-14;
        solve_poisson(o, f, u1);
        o.method = PoissonMethod::mg;
        o.max_iter = 60;
        o.rtol = 1e-11;
        const PoissonReport full = solve_poisson(o, f, u);
        ASSERT_TRUE(full.converged) << full.message;
        const double e1 = poisson::solution_error(o.bc, u1, exact).rel_l2;
        const double e = poisson::solution_error(o.bc, u, exact).rel_l2;
        const std::string what = describe(kind, {op, Smoother::chebyshev}, n);
        EXPECT_LT(e1, 1.5 * e) << what << ": one pass " << e1 << ", converged " << e;
      }
}

// Poisson solvers on the CPU: second-order convergence to manufactured solutions for both
// operators and every boundary condition, V-cycle residual reduction, null spaces, every
// method reaching the same answer, odd shapes, the failure modes, and the transfer tables.
#include <gtest/gtest.h>

#include <cmath>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "strata/manufactured.hpp"
#include "strata/error.hpp"
#include "strata/poisson.hpp"
#include "strata/reduce.hpp"
#include "strata/vector_ops.hpp"

using namespace strata;

namespace {

struct Outcome {
  PoissonReport rep;
  poisson::ErrorNorms err;
};

template <class T>
Outcome solve_manufactured(PoissonOptions o, Extent n) {
  const double h = poisson_spacing(o.bc, n.nx);
  o.h = h;
  Field<T> f(n, 1), exact(n, 1), u(n, 1);
  poisson::manufactured(o.bc, h, f, &exact);
  Outcome out;
  out.rep = solve_poisson(o, f, u);
  out.err = poisson::solution_error(o.bc, u, exact);
  return out;
}

PoissonOptions options(PoissonOperator op, Boundary bc, PoissonMethod m = PoissonMethod::mg) {
  PoissonOptions o;
  o.op = op;
  o.bc = bc;
  o.method = m;
  o.rtol = 1e-10;
  o.max_iter = 60;
  return o;
}

// Grids whose spacing halves: Dirichlet counts unknowns strictly inside (2^k - 1).
int size_for(const Boundary& bc, int k) { return bc.kind == BoundaryKind::dirichlet ? (1 << k) - 1 : 1 << k; }

}  // namespace

TEST(PoissonCpu, ErrorFallsFourTimesPerHalvingForBothOperators) {
  for (PoissonOperator op : {PoissonOperator::fd7, PoissonOperator::fe27})
    for (const Boundary& bc : {Boundary::dirichlet(0.5), Boundary::neumann(), Boundary::periodic()}) {
      std::vector<double> e;
      for (int k = 3; k <= 5; ++k) {
        const int n = size_for(bc, k);
        const Outcome r = solve_manufactured<double>(options(op, bc), {n, n, n});
        ASSERT_TRUE(r.rep.converged) << to_string(op) << " " << bc.describe() << " n=" << n << ": " << r.rep.message;
        e.push_back(r.err.rel_l2);
      }
      for (std::size_t i = 1; i < e.size(); ++i) {
        const double ratio = e[i - 1] / e[i];
        EXPECT_GT(ratio, 3.4) << to_string(op) << " " << bc.describe() << ": errors " << e[i - 1] << " -> " << e[i];
        EXPECT_LT(ratio, 4.6) << to_string(op) << " " << bc.describe() << ": errors " << e[i - 1] << " -> " << e[i];
      }
    }
}

TEST(PoissonCpu, NullSpacesGiveTheZeroMeanSolutionWhateverTheStart) {
  for (const Boundary& bc : {Boundary::neumann(), Boundary::periodic()}) {
    const Extent n{24, 20, 16};
    Field<double> f(n, 1), u1(n, 1), u2(n, 1);
    std::mt19937_64 rng(3);
    std::uniform_real_distribution<double> d(-1, 1);
    for (int z = 0; z < n.nz; ++z)
      for (int y = 0; y < n.ny; ++y)
        for (int x = 0; x < n.nx; ++x) f(x, y, z) = d(rng) + 0.7;  // incompatible: mean 0.7
    for (int z = 0; z < n.nz; ++z)
      for (int y = 0; y < n.ny; ++y)
        for (int x = 0; x < n.nx; ++x) u2(x, y, z) = 5.0 + d(rng);  // another start
    PoissonOptions o = options(PoissonOperator::fd7, bc);
    const auto r1 = solve_poisson(o, f, u1);
    const auto r2 = solve_poisson(o, f, u2);
    ASSERT_TRUE(r1.converged && r2.converged) << r1.message << " / " << r2.message;
    EXPECT_LT(r1.rel_residual, 1e-9);
    EXPECT_NEAR(sum(u1) / double(n.points()), 0.0, 1e-12);
    double diff = 0;
    for (int z = 0; z < n.nz; ++z)
      for (int y = 0; y < n.ny; ++y)
        for (int x = 0; x < n.nx; ++x) diff = std::max(diff, std::fabs(u1(x, y, z) - u2(x, y, z)));
    EXPECT_LT(diff, 1e-8) << bc.describe();
  }
}

// A Neumann or periodic f with a mean has no solution: the mean is removed and said (a
// warning through on_warning and the report), never silently; a constant f, all of it in the
// null space, is refused instead of returning u = 0 as converged. Dirichlet: no such thing.
TEST(PoissonCpu, AMeanOnANullSpaceIsWarnedAboutAndAConstantIsRefused) {
  const Extent n{16, 12, 10};
  for (const Boundary& bc : {Boundary::neumann(), Boundary::periodic()})
    for (PoissonMethod m : {PoissonMethod::mg, PoissonMethod::cg, PoissonMethod::jacobi}) {
      const std::string what = bc.describe() + " " + std::string(to_string(m));
      PoissonOptions o = options(PoissonOperator::fd7, bc, m);
      o.rtol = 1e-8;
      o.max_iter = m == PoissonMethod::jacobi ? 100000 : 200;
      std::vector<std::string> heard;
      o.on_warning = [&](const std::string& w) { heard.push_back(w); };
      Field<double> f(n, 1), u(n, 1), g(n, 1), v(n, 1);
      const double h = poisson_spacing(bc, n.nx);
      poisson::manufactured<double>(bc, h, g, nullptr);  // zero mean
      for (int z = 0; z < n.nz; ++z)
        for (int y = 0; y < n.ny; ++y)
          for (int x = 0; x < n.nx; ++x) f(x, y, z) = g(x, y, z) + 0.25;
      const PoissonReport r = solve_poisson(o, f, u);
      ASSERT_EQ(r.warnings.size(), 1u) << what;
      EXPECT_EQ(heard, r.warnings) << what;
      EXPECT_NE(r.warnings[0].find("f has mean 0.25"), std::string::npos) << r.warnings[0];
      EXPECT_NEAR(r.rhs_mean, 0.25, 1e-12) << what;
      // What was solved: the zero-mean part, as if it had been given.
      heard.clear();
      const PoissonReport rg = solve_poisson(o, g, v);
      EXPECT_TRUE(rg.warnings.empty() && heard.empty()) << what << ": " << (heard.empty() ? "" : heard[0]);
      double diff = 0;
      for (int z = 0; z < n.nz; ++z)
        for (int y = 0; y < n.ny; ++y)
          for (int x = 0; x < n.nx; ++x) diff = std::max(diff, std::fabs(u(x, y, z) - v(x, y, z)));
      EXPECT_LT(diff, 1e-6) << what;
      // A constant: refused, naming the mean and the condition.
      fill(f, 1.5);
      const std::string m1 = [&] {
        try {
          solve_poisson(o, f, u);
        } catch (const Error& e) {
          return std::string(e.what());
        }
        return std::string("no error");
      }();
      EXPECT_NE(m1.find("f is constant (mean 1.5)"), std::string::npos) << what << ": " << m1;
      EXPECT_NE(m1.find("zero mean"), std::string::npos) << m1;
    }
  // Dirichlet: a mean is an ordinary right-hand side.
  PoissonOptions o = options(PoissonOperator::fd7, Boundary::dirichlet(0));
  Field<double> f(n, 1), u(n, 1);
  fill(f, 1.5);
  const PoissonReport r = solve_poisson(o, f, u);
  EXPECT_TRUE(r.converged && r.warnings.empty()) << r.message;
}

TEST(PoissonCpu, EveryMethodReachesTheSameSolution) {
  const Extent n{15, 15, 15};
  const Boundary bc = Boundary::dirichlet(0.25);
  Field<double> reference(n, 1);
  bool have = false;
  for (PoissonMethod m : {PoissonMethod::mg, PoissonMethod::fmg, PoissonMethod::mgcg, PoissonMethod::cg,
                          PoissonMethod::jacobi}) {
    PoissonOptions o = options(PoissonOperator::fe27, bc, m);
    o.rtol = 1e-9;
    o.max_iter = m == PoissonMethod::jacobi ? 3000 : 200;
    const double h = poisson_spacing(bc, n.nx);
    Field<double> f(n, 1), u(n, 1);
    poisson::manufactured<double>(bc, h, f, nullptr);
    const auto r = solve_poisson(o, f, u);
    ASSERT_TRUE(r.converged) << to_string(m) << ": " << r.message;
    if (!have) {
      copy(u, reference);
      have = true;
      continue;
    }
    double diff = 0;
    for (int z = 0; z < n.nz; ++z)
      for (int y = 0; y < n.ny; ++y)
        for (int x = 0; x < n.nx; ++x) diff = std::max(diff, std::fabs(u(x, y, z) - reference(x, y, z)));
    EXPECT_LT(diff, 1e-7) << to_string(m);
  }
}

// Non-cubic shapes whose axes coarsen differently (odd, even, prime) converge with every
// multigrid method to the discretisation error of the manufactured solution.
TEST(PoissonCpu, OddShapesConverge) {
  for (const Boundary& bc : {Boundary::dirichlet(-1.0), Boundary::neumann(), Boundary::periodic()})
    for (Extent n : {Extent{33, 65, 17}, Extent{50, 37, 22}})
      for (PoissonMethod m : {PoissonMethod::mg, PoissonMethod::fmg, PoissonMethod::mgcg}) {
        PoissonOptions o = options(PoissonOperator::fd7, bc, m);
        o.rtol = 1e-8;
        const Outcome r = solve_manufactured<double>(o, n);
        const std::string what = bc.describe() + " " + n.str() + " " + std::string(to_string(m));
        EXPECT_TRUE(r.rep.converged) << what << ": " << r.rep.message;
        EXPECT_LT(r.rep.rel_residual, 1e-8) << what;
        EXPECT_LE(r.rep.iterations, m == PoissonMethod::mgcg ? 10 : 16) << what;
        // The 7-point error for the manufactured mode is (k h)^2 / 12 per axis at leading order.
        const double periods = bc.kind == BoundaryKind::periodic ? 2.0 : 1.0;
        double worst = 0;
        for (int ext : {n.nx, n.ny, n.nz}) {
          const double kh = periods * std::acos(-1.0) / (bc.kind == BoundaryKind::dirichlet ? ext + 1 : ext);
          worst = std::max(worst, kh * kh / 12);
        }
        EXPECT_LT(r.err.rel_l2, 1.2 * worst) << what;
      }
}

TEST(PoissonCpu, MixedPrecisionCgReachesDoubleAccuracy) {
  PoissonOptions o = options(PoissonOperator::fd7, Boundary::dirichlet(0.0), PoissonMethod::mgcg);
  o.mixed_precision = true;
  const Outcome r = solve_manufactured<double>(o, {31, 31, 31});
  EXPECT_TRUE(r.rep.converged) << r.rep.message;
  EXPECT_LT(r.rep.rel_residual, 1e-10);
}

// A growing residual is reported as divergence (not as stagnation, nor blamed on the
// precision), naming the iteration; a NaN in the data is an error.
TEST(PoissonCpu, DivergenceStopsWithTheIteration) {
  PoissonOptions o = options(PoissonOperator::fd7, Boundary::dirichlet(0.0), PoissonMethod::jacobi);
  o.jacobi_omega = 1.9;  // lambda_max(D^-1 A) = 2: omega * 2 > 2 amplifies the top mode
  o.max_iter = 100000;
  Field<double> f({15, 15, 15}, 1), u({15, 15, 15}, 1);
  poisson::manufactured<double>(o.bc, poisson_spacing(o.bc, 15), f, nullptr);
  const PoissonReport r = solve_poisson(o, f, u);
  EXPECT_FALSE(r.converged);
  EXPECT_EQ(r.message.rfind("diverged at iteration", 0), 0u) << r.message;
  EXPECT_LT(r.iterations, 1000) << "a growing residual ran on";
  EXPECT_EQ(r.message.find("fp64"), std::string::npos) << r.message;
  f(3, 4, 5) = std::nan("");
  o = options(PoissonOperator::fd7, Boundary::dirichlet(0.0));
  EXPECT_THROW(solve_poisson(o, f, u), Error);
}

TEST(PoissonCpu, UnreachableToleranceEndsWithAMessage) {
  PoissonOptions o = options(PoissonOperator::fd7, Boundary::dirichlet(0.0));
  o.rtol = 1e-12;
  o.max_iter = 40;
  const Outcome r = solve_manufactured<float>(o, {31, 31, 31});
  EXPECT_FALSE(r.rep.converged);
  EXPECT_LE(r.rep.iterations, 40);
  EXPECT_NE(r.rep.message.find("fp32"), std::string::npos) << r.rep.message;
}

TEST(PoissonCpu, BadOptionsAreRefused) {
  Field<float> f({8, 8, 8}, 1), u({8, 8, 8}, 1), g({8, 8, 9}, 1);
  PoissonOptions o;
  o.pre = o.post = 0;
  EXPECT_THROW(solve_poisson(o, f, u), Error);
  o = PoissonOptions{};
  o.rtol = 0;  // and no atol: nothing to reach
  EXPECT_THROW(solve_poisson(o, f, u), Error);
  o.atol = -1e-3;
  EXPECT_THROW(solve_poisson(o, f, u), Error);
  o = PoissonOptions{};
  o.rtol = 1.0;
  EXPECT_THROW(solve_poisson(o, f, u), Error);
  o = PoissonOptions{};
  o.method = PoissonMethod::fft;
  o.bc = Boundary::neumann();
  EXPECT_THROW(solve_poisson(o, f, u), Error);  // the FFT solver solves the periodic problem only
  o = PoissonOptions{};
  EXPECT_THROW(solve_poisson(o, f, g), Error);
  EXPECT_THROW(parse_poisson_method("sor"), Error);
  EXPECT_THROW(parse_poisson_operator("fd9"), Error);
}

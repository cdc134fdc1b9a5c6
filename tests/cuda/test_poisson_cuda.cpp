// Poisson solvers on the GPU: the same answers as the CPU for every boundary condition and
// both operators, graph replay bit-identical to direct launches, the cuFFT solve against
// multigrid, and the V-cycle convergence factor matching the CPU's.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "core/poisson/manufactured.hpp"
#include "strata/device.hpp"
#include "strata/poisson.hpp"

using namespace strata;

#define REQUIRE_GPU() \
  if (!cuda_available()) GTEST_SKIP() << "no GPU: " << cuda_unavailable_reason()

namespace {

template <class T>
PoissonReport solve_on(Memory mem, const PoissonOptions& o, const Field<T>& f_host, Field<T>& u_host) {
  if (mem == Memory::host) return solve_poisson(o, f_host, u_host);
  const Extent n = f_host.extent();
  Field<T> f(n, 1, Memory::device), u(n, 1, Memory::device);
  copy(f_host, f);
  copy(u_host, u);
  const PoissonReport r = solve_poisson(o, f, u);
  copy(u, u_host);
  return r;
}

double max_diff(const Field<double>& a, const Field<double>& b) {
  double d = 0;
  const Extent n = a.extent();
  for (int z = 0; z < n.nz; ++z)
    for (int y = 0; y < n.ny; ++y)
      for (int x = 0; x < n.nx; ++x) d = std::max(d, std::fabs(a(x, y, z) - b(x, y, z)));
  return d;
}

}  // namespace

TEST(PoissonCuda, GpuAndCpuAgreeForEveryBoundaryAndOperator) {
  REQUIRE_GPU();
  const Extent n{33, 17, 25};
  for (PoissonOperator op : {PoissonOperator::fd7, PoissonOperator::fe27})
    for (const Boundary& bc : {Boundary::dirichlet(0.5), Boundary::neumann(), Boundary::periodic()})
      for (PoissonMethod m : {PoissonMethod::mg, PoissonMethod::fmg, PoissonMethod::mgcg, PoissonMethod::cg}) {
        PoissonOptions o;
        o.op = op;
        o.bc = bc;
        o.method = m;
        o.rtol = 1e-10;
        o.max_iter = 300;
        o.h = poisson_spacing(bc, n.nx);
        Field<double> f(n, 1), u_cpu(n, 1), u_gpu(n, 1);
        poisson::manufactured<double>(bc, o.h, f, nullptr);
        const auto rc = solve_on(Memory::host, o, f, u_cpu);
        const auto rg = solve_on(Memory::device, o, f, u_gpu);
        const std::string what = std::string(to_string(op)) + " " + bc.describe() + " " + std::string(to_string(m));
        ASSERT_TRUE(rc.converged && rg.converged) << what << ": " << rc.message << " / " << rg.message;
        EXPECT_LT(rg.rel_residual, 1e-9) << what;
        EXPECT_NEAR(rg.iterations, rc.iterations, 1) << what;
        EXPECT_LT(max_diff(u_cpu, u_gpu), 1e-8) << what;
      }
}

TEST(PoissonCuda, GraphReplayIsBitIdenticalToDirectLaunches) {
  REQUIRE_GPU();
  const Extent n{64, 48, 40};
  for (PoissonMethod m : {PoissonMethod::mg, PoissonMethod::mgcg}) {
    PoissonOptions o;
    o.method = m;
    o.bc = Boundary::neumann();
    o.op = PoissonOperator::fe27;
    o.rtol = 1e-5;
    o.h = poisson_spacing(o.bc, n.nx);
    Field<float> f(n, 1), a(n, 1), b(n, 1);
    poisson::manufactured<float>(o.bc, o.h, f, nullptr);
    o.use_graphs = true;
    const auto ra = solve_on(Memory::device, o, f, a);
    o.use_graphs = false;
    const auto rb = solve_on(Memory::device, o, f, b);
    EXPECT_EQ(ra.iterations, rb.iterations);
    EXPECT_EQ(std::memcmp(a.data(), b.data(), a.layout().bytes()), 0) << to_string(m);
  }
}

TEST(PoissonCuda, FftSolveMatchesMultigridOnThePeriodicSevenPointProblem) {
  REQUIRE_GPU();
  const Extent n{64, 32, 48};
  PoissonOptions o;
  o.bc = Boundary::periodic();
  o.op = PoissonOperator::fd7;
  o.rtol = 1e-11;
  o.h = poisson_spacing(o.bc, n.nx);
  Field<double> f(n, 1), u_mg(n, 1), u_fft(n, 1);
  poisson::manufactured<double>(o.bc, o.h, f, nullptr);
  o.method = PoissonMethod::mg;
  ASSERT_TRUE(solve_on(Memory::device, o, f, u_mg).converged);
  o.method = PoissonMethod::fft;
  const auto r = solve_on(Memory::device, o, f, u_fft);
  EXPECT_LT(r.rel_residual, 1e-11) << r.message;
  EXPECT_LT(max_diff(u_mg, u_fft), 1e-9);
}

TEST(PoissonCuda, ConvergenceFactorMatchesTheCpu) {
  REQUIRE_GPU();
  for (PoissonOperator op : {PoissonOperator::fd7, PoissonOperator::fe27}) {
    PoissonOptions o;
    o.op = op;
    o.max_iter = 6;
    o.rtol = 1e-14;
    const Extent n{63, 63, 63};
    o.h = poisson_spacing(o.bc, n.nx);
    Field<double> f(n, 1), a(n, 1), b(n, 1);
    poisson::manufactured<double>(o.bc, o.h, f, nullptr);
    const auto rc = solve_on(Memory::host, o, f, a);
    const auto rg = solve_on(Memory::device, o, f, b);
    EXPECT_NEAR(rg.convergence_factor, rc.convergence_factor, 0.02 * rc.convergence_factor) << to_string(op);
  }
}

TEST(PoissonCuda, MixedPrecisionAndLargeGrids) {
  REQUIRE_GPU();
  PoissonOptions o;
  o.method = PoissonMethod::mgcg;
  o.mixed_precision = true;
  o.rtol = 1e-10;
  const Extent n{127, 127, 127};
  o.h = poisson_spacing(o.bc, n.nx);
  Field<double> f(n, 1), u(n, 1);
  poisson::manufactured<double>(o.bc, o.h, f, nullptr);
  const auto r = solve_on(Memory::device, o, f, u);
  EXPECT_TRUE(r.converged) << r.message;
  EXPECT_LT(r.rel_residual, 1e-10);
  EXPECT_LE(r.iterations, 20);
}

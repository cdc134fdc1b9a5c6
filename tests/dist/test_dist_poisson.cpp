// Distributed Poisson solves against one process: run under mpirun with any rank count
// (CTest runs 1 to 4 CPU ranks). Every rank builds the whole right-hand side from one seed
// and solves it alone with strata::solve_poisson; the distributed solve of the same problem
// must give the same solution to 1e-9 relative (f64, rtol 1e-10) within one iteration, for
// mg, mgcg (mixed precision too) and cg, every boundary kind, shapes no rank count divides
// and every process grid the rank count allows. Gathering at one point (gather_below 1)
// partitions every level that can be; the default gathers the small ones. The GPU case
// skips without a GPU (it has not run yet: no GPU where it was written).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <string>

#include "common/process_grids.hpp"
#include "common/require_gpu.hpp"
#include "common/test_util.hpp"
#include "strata/device.hpp"
#include "strata/dist.hpp"
#include "strata/dist_poisson.hpp"
#include "strata/poisson.hpp"

namespace strata {
namespace {

using dist::DistField;
using dist::Job;
using dist::ProcessGrid;

using test::each_point;

// The distributed field (in `mem`) holding the host field `whole`'s values in every box.
template <class T>
DistField<T> distribute(const Field<T>& whole, const ProcessGrid& grid, Memory mem = Memory::host) {
  DistField<T> h(whole.extent(), grid, 1), d(whole.extent(), grid, 1, mem);
  each_point(h.box(), [&](int x, int y, int z, int gx, int gy, int gz) { h.local()(x, y, z) = whole(gx, gy, gz); });
  copy(h.local(), d.local());
  return d;
}

// A host copy of a field in any memory.
template <class T>
Field<T> on_host(const Field<T>& f) {
  Field<T> h(f.extent(), f.ghost());
  copy(f, h);
  return h;
}

// How far the residual histories may part while the residual is above kHistoryFrom (relative
// to ||f||): the order of the sums in the inner products is all that differs, a relative
// 1e-16 that CG's iterations grow by orders of magnitude towards the end (its directions
// drift apart); a level solved differently parts them by 1e-3 or more from the first cycle.
constexpr double kHistoryTol = 1e-6, kHistoryFrom = 1e-6;

struct Case {
  PoissonMethod method;
  Boundary bc;
  bool mixed = false;
  long long gather_below = 1;
  std::string str() const {
    return std::string(to_string(method)) + (mixed ? " mixed" : "") + ", " + bc.describe() + ", gather below " +
           std::to_string(gather_below);
  }
};

// Solves one case on one process and distributed; checks the solutions and the reports.
// `mem`: both solves on the CPU (host) or on the GPU (device: one process on this rank's GPU).
template <class T>
void check(const Case& c, Extent n, const ProcessGrid& grid, double rtol, double tol, Memory mem = Memory::host) {
  PoissonOptions o;
  o.method = c.method;
  o.bc = c.bc;
  o.mixed_precision = c.mixed;
  o.rtol = rtol;
  o.max_iter = 200;
  o.gather_below = c.gather_below;
  Field<T> f(n, 1), fm(n, 1, mem), um(n, 1, mem);
  test::fill_random(f, 7);
  copy(f, fm);
  const PoissonReport one = solve_poisson(o, fm, um);
  const Field<T> u1 = on_host(um);

  const DistField<T> df = distribute(f, grid, mem);
  DistField<T> dm(n, grid, 1, mem);
  const PoissonReport many = dist::solve_poisson(o, df, dm);
  const Field<T> du = on_host(dm.local());

  const std::string what = c.str() + ", " + n.str() + ", grid " + grid.str();
  EXPECT_TRUE(one.converged) << what << ": one process: " << one.message;
  EXPECT_TRUE(many.converged) << what << ": distributed: " << many.message;
  EXPECT_LE(std::abs(many.iterations - one.iterations), 1)
      << what << ": " << many.iterations << " iterations distributed, " << one.iterations << " on one process";
  // The same cycle: the residual after every iteration agrees far below the tolerance (a
  // coarse level solved differently still converges, but not along the same residuals).
  for (std::size_t i = 0; i < std::min(one.residuals.size(), many.residuals.size()) && one.residuals[i] > kHistoryFrom; ++i)
    EXPECT_LE(std::abs(many.residuals[i] - one.residuals[i]), kHistoryTol * one.residuals[i])
        << what << ": relative residual after iteration " << i << ": " << many.residuals[i] << " distributed, "
        << one.residuals[i] << " on one process";
  ASSERT_EQ(many.levels.size(), one.levels.size()) << what;
  for (std::size_t l = 0; l < one.levels.size(); ++l) EXPECT_EQ(many.levels[l].n, one.levels[l].n) << what;
  double diff2 = 0, ref2 = 0;
  bool finite = true;
  each_point(dm.box(), [&](int x, int y, int z, int gx, int gy, int gz) {
    const double got = du(x, y, z), want = u1(gx, gy, gz);
    finite = finite && std::isfinite(got);
    diff2 += (got - want) * (got - want);
    ref2 += want * want;
  });
  const Job& job = Job::get();
  EXPECT_EQ(job.first_failed(!finite), -1) << what << ": a non-finite value in the distributed solution";
  const double rel = std::sqrt(job.sum(diff2) / job.sum(ref2));
  EXPECT_LE(rel, tol) << what << ": relative difference to one process " << rel;
}

const Boundary kBoundaries[] = {Boundary::dirichlet(0.5), Boundary::neumann(), Boundary::periodic()};

// Odd, even and mixed axes; none divisible by 3; the second coarsens unevenly on Dirichlet.
const Extent kShapes[] = {{19, 17, 23}, {24, 20, 14}};

TEST(DistPoisson, MultigridMatchesOneProcessF64) {
  for (const Extent n : kShapes)
    for (const Boundary& bc : kBoundaries)
      for (const ProcessGrid& grid : test::grids_of(Job::get().size(), n, 1))
        check<double>({PoissonMethod::mg, bc}, n, grid, 1e-10, 1e-9);
}

TEST(DistPoisson, MultigridCgMatchesOneProcessF64) {
  for (const Extent n : kShapes)
    for (const Boundary& bc : kBoundaries)
      for (const ProcessGrid& grid : test::grids_of(Job::get().size(), n, 1))
        check<double>({PoissonMethod::mgcg, bc}, n, grid, 1e-10, 1e-9);
}

TEST(DistPoisson, MixedPrecisionMultigridCgMatchesOneProcess) {
  for (const Boundary& bc : kBoundaries)
    for (const ProcessGrid& grid : test::grids_of(Job::get().size(), {21, 18, 25}, 1))
      check<double>({PoissonMethod::mgcg, bc, true}, {21, 18, 25}, grid, 1e-10, 1e-9);
}

TEST(DistPoisson, PlainCgMatchesOneProcess) {
  const ProcessGrid grid = ProcessGrid::choose({17, 19, 21}, Job::get().size());
  for (const Boundary& bc : kBoundaries) check<double>({PoissonMethod::cg, bc}, {17, 19, 21}, grid, 1e-10, 1e-9);
}

// Every level gathered: every rank cycles the whole grid and keeps its box.
TEST(DistPoisson, AllGatheredMatchesOneProcess) {
  const Extent n{19, 17, 23};
  const ProcessGrid grid = ProcessGrid::choose(n, Job::get().size());
  for (const Boundary& bc : kBoundaries)
    for (PoissonMethod m : {PoissonMethod::mg, PoissonMethod::mgcg})
      check<double>({m, bc, false, 1LL << 40}, n, grid, 1e-10, 1e-9);
}

// The default threshold: the finest level partitioned, the coarse ones solved on rank 0.
TEST(DistPoisson, DefaultGatherMatchesOneProcess) {
  const Extent n{41, 37, 35};
  ASSERT_GT((long long)n.points(), dist::poisson_gather_below(Memory::host));
  const ProcessGrid grid = ProcessGrid::choose(n, Job::get().size());
  for (const Boundary& bc : kBoundaries)
    for (PoissonMethod m : {PoissonMethod::mg, PoissonMethod::mgcg}) check<double>({m, bc, false, 0}, n, grid, 1e-10, 1e-9);
}

// Single precision: the same iteration within one, the solutions as close as f32 allows.
TEST(DistPoisson, SinglePrecisionMatchesOneProcess) {
  const ProcessGrid grid = ProcessGrid::choose({19, 17, 23}, Job::get().size());
  for (const Boundary& bc : kBoundaries) check<float>({PoissonMethod::mg, bc}, {19, 17, 23}, grid, 1e-3, 1e-5);
}

// One rank per GPU (the device run): each rank's GPU solves the whole grid alone, then the
// GPUs solve it together.
TEST(DistPoisson, GpuMatchesOneGpu) {
  REQUIRE_GPU_PER_RANK();
  const Job& job = Job::get();
  const Extent n{70, 37, 45};
  for (const ProcessGrid& grid : test::grids_of(job.size(), n, 1))
    for (const Boundary& bc : kBoundaries) {
      for (PoissonMethod m : {PoissonMethod::mg, PoissonMethod::mgcg})
        for (long long gather : {1LL, dist::kPoissonGatherBelowCpu, 0LL}) check<double>({m, bc, false, gather}, n, grid, 1e-10, 1e-9, Memory::device);
      check<double>({PoissonMethod::mgcg, bc, true}, n, grid, 1e-10, 1e-9, Memory::device);
    }
}

// The same rank count gives the same bits, run to run.
TEST(DistPoisson, ReproducibleForAGivenRankCount) {
  const Extent n{19, 17, 23};
  const ProcessGrid grid = ProcessGrid::choose(n, Job::get().size());
  Field<double> f(n, 1);
  test::fill_random(f, 3);
  const DistField<double> df = distribute(f, grid);
  PoissonOptions o;
  o.method = PoissonMethod::mgcg;
  o.bc = Boundary::neumann();
  o.rtol = 1e-10;
  o.gather_below = 1;
  DistField<double> a(n, grid, 1), b(n, grid, 1);
  const PoissonReport ra = dist::solve_poisson(o, df, a), rb = dist::solve_poisson(o, df, b);
  EXPECT_EQ(ra.residuals, rb.residuals);
  std::size_t differ = 0;
  each_point(a.box(), [&](int x, int y, int z, int, int, int) { differ += a.local()(x, y, z) != b.local()(x, y, z); });
  EXPECT_EQ(Job::get().sum((long long)differ), 0);
}

TEST(DistPoisson, RefusesWhatItDoesNotRun) {
  const Extent n{12, 12, 12};
  const ProcessGrid grid = ProcessGrid::choose(n, Job::get().size());
  DistField<double> f(n, grid, 1), u(n, grid, 1);
  for (PoissonMethod m : {PoissonMethod::fmg, PoissonMethod::jacobi, PoissonMethod::fft}) {
    PoissonOptions o;
    o.method = m;
    o.bc = Boundary::periodic();
    EXPECT_NE(dist::poisson_unsupported(o, grid, n), "");
    EXPECT_THROW(dist::solve_poisson(o, f, u), Error) << to_string(m);
  }
  PoissonOptions o;
  o.op = PoissonOperator::fe27;
  EXPECT_NE(dist::poisson_unsupported(o, grid, n).find("fd7"), std::string::npos);
}

}  // namespace
}  // namespace strata

// Distributed stencils against one process: run under mpirun with any rank count (CTest runs
// 1 to 4 CPU ranks, the device run 2 GPUs). Every rank builds the whole grid from the same
// seed, applies the stencil to it alone, and checks that its own box of the distributed
// result is the same bit for bit, for every stencil family, boundary, precision and every
// process grid the rank count allows (z-slabs, y-slabs, x-slabs and the mixed ones).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <random>

#include "common/require_gpu.hpp"
#include "common/process_grids.hpp"
#include "common/test_util.hpp"
#include "parallel/halo.hpp"
#include "strata/apply.hpp"
#include "strata/device.hpp"
#include "strata/dist.hpp"
#include "strata/reduce.hpp"
#include "strata/steps.hpp"

namespace strata {
namespace {

using dist::DistField;
using dist::Job;
using dist::ProcessGrid;

using test::each_point;
using test::grids_of;

std::vector<Stencil> stencils() {
  return {test::random_stencil(StencilKind::star, 1, 11), test::random_stencil(StencilKind::star, 4, 12),
          test::random_stencil(StencilKind::sym27, 1, 13), test::random_stencil(StencilKind::box27, 1, 14)};
}

std::vector<Boundary> boundaries() {
  return {Boundary::dirichlet(1.5), Boundary::neumann(), Boundary::periodic()};
}

// Box b of `whole` into f's local field, its ghost layers poisoned (0xA5 bytes): a pass that
// reads a ghost nobody filled gives other bits than one process.
template <class T>
void take_mine(const Field<T>& whole, DistField<T>& f) {
  const dist::Subdomain& b = f.box();
  Field<T> mine(b.local, f.local().ghost());
  test::poison(mine);
  each_point(b, [&](int x, int y, int z, int gx, int gy, int gz) { mine(x, y, z) = whole(gx, gy, gz); });
  copy(mine, f.local());
}

// f's box against box b of `want`, bit for bit: a failure names `what`, the rank and the
// first three points.
template <class T>
void expect_box_bits(const DistField<T>& f, const Field<T>& want, const std::string& what) {
  const dist::Subdomain& b = f.box();
  Field<T> mine(b.local, f.local().ghost());
  copy(f.local(), mine);
  std::size_t bad = 0;
  each_point(b, [&](int x, int y, int z, int gx, int gy, int gz) {
    const T got = mine(x, y, z), exp = want(gx, gy, gz);
    if (std::memcmp(&got, &exp, sizeof(T)) != 0 && bad++ < 3)
      ADD_FAILURE() << what << ", rank " << Job::get().rank() << ": at global (" << gx << ", " << gy << ", " << gz
                    << ") got " << got << ", one process gives " << exp;
  });
  EXPECT_EQ(bad, 0u) << what;
}

// The distributed apply on `memory`, compared with the one-process CPU (host) or GPU
// (device) apply of the whole grid; the fields' ghost layers are the stencil's radius, or
// `min_ghost` where that is wider.
template <class T>
void check_all(Extent global, Memory memory, const std::vector<Boundary>& bcs = boundaries(),
               int min_ghost = 0) {
  const Job& job = Job::get();
  for (const Stencil& s : stencils())
    for (const Boundary& bc : bcs)
      for (const ProcessGrid& grid : grids_of(job.size(), global, s.radius())) {
        const int ghost = std::max(s.radius(), min_ghost);
        Field<T> whole(global, ghost), want(global, ghost);
        test::fill_random(whole, 42);
        if (memory == Memory::host) {
          apply(s, whole, want, bc);
        } else {
          Field<T> din(global, ghost, Memory::device), dout(global, ghost, Memory::device);
          copy(whole, din);
          apply(s, din, dout, bc);
          copy(dout, want);
        }
        DistField<T> in(global, grid, ghost, memory), out(global, grid, ghost, memory);
        take_mine(whole, in);
        dist::apply(s, in, out, bc);
        expect_box_bits(out, want, s.describe() + ", " + bc.describe() + ", grid " + grid.str());
      }
}

// DistField::fill_ghosts against strata::fill_ghosts on the whole grid: every point of the
// box widened by `width` (edges and corners included) holds what the whole grid's point at
// the same global place holds, for fields whose ghost layers are wider than `width` too
// (z faces travel as whole planes: what lies beyond `width` is not compared).
template <class T>
void check_ghosts(Extent global, Memory memory, int ghost, int width, std::uint64_t seed) {
  const Job& job = Job::get();
  for (const Boundary& bc : boundaries())
    for (const ProcessGrid& grid : grids_of(job.size(), global, ghost)) {
      Field<T> whole(global, width);
      test::fill_random(whole, seed);
      fill_ghosts(whole, bc, width);
      DistField<T> f(global, grid, ghost, memory);
      const dist::Subdomain& b = f.box();
      Field<T> mine(b.local, ghost);
      each_point(b, [&](int x, int y, int z, int gx, int gy, int gz) { mine(x, y, z) = whole(gx, gy, gz); });
      copy(mine, f.local());
      f.fill_ghosts(bc, width);
      copy(f.local(), mine);
      std::size_t bad = 0;
      for (int z = -width; z < b.local.nz + width; ++z)
        for (int y = -width; y < b.local.ny + width; ++y)
          for (int x = -width; x < b.local.nx + width; ++x) {
            const int g[3] = {b.offset[0] + x, b.offset[1] + y, b.offset[2] + z};
            const T got = mine(x, y, z), exp = whole(g[0], g[1], g[2]);
            if (std::memcmp(&got, &exp, sizeof(T)) != 0 && bad++ < 3)
              ADD_FAILURE() << bc.describe() << ", grid " << grid.str() << ", ghost " << ghost << ", width " << width
                            << ", rank " << job.rank() << ": at global (" << g[0] << ", " << g[1] << ", " << g[2]
                            << ") got " << got << ", one process gives " << exp;
          }
      EXPECT_EQ(bad, 0u) << bc.describe() << ", grid " << grid.str() << ", ghost " << ghost << ", width " << width;
    }
}

// Awkward sizes: no axis divisible by 2, 3 or 4, every box at least 4 thick for star4.
constexpr Extent kGlobal{19, 17, 23};
// On the GPU: every axis at least 48 points, so that every process grid of 1 to 4 ranks
// leaves boxes 12 thick, the ghosts of the device's fused radius-4 steps (3 R).
constexpr Extent kGpuGlobal{70, 49, 53};

TEST(DistApply, BitIdenticalToOneProcessCpuF32) { check_all<float>(kGlobal, Memory::host); }
TEST(DistApply, BitIdenticalToOneProcessCpuF64) { check_all<double>(kGlobal, Memory::host); }

TEST(DistGhosts, SameAsOneProcessFillEdgesAndCornersIncluded) {
  for (int width : {1, 2, 4}) {
    check_ghosts<float>(kGlobal, Memory::host, 4, width, 100 + width);
    check_ghosts<double>({23, 19, 17}, Memory::host, std::max(width, 3), width, 200 + width);
  }
}

TEST(DistApply, WiderGhostsThanTheStencilNeeds) {
  // The CLI gives a field the stencil's radius; a library user may keep the default 4.
  const Job& job = Job::get();
  const Stencil s = test::random_stencil(StencilKind::box27, 1, 15);
  for (const ProcessGrid& grid : grids_of(job.size(), kGlobal, 4)) {
    Field<float> whole(kGlobal, 4), want(kGlobal, 4);
    test::fill_random(whole, 9);
    apply(s, whole, want, Boundary::neumann());
    DistField<float> in(kGlobal, grid, 4), out(kGlobal, grid, 4);
    const dist::Subdomain& b = in.box();
    each_point(b, [&](int x, int y, int z, int gx, int gy, int gz) { in.local()(x, y, z) = whole(gx, gy, gz); });
    dist::apply(s, in, out, Boundary::neumann());
    std::size_t bad = 0;
    each_point(b, [&](int x, int y, int z, int gx, int gy, int gz) { bad += out.local()(x, y, z) != want(gx, gy, gz); });
    EXPECT_EQ(bad, 0u) << "grid " << grid.str();
  }
}

TEST(DistApply, BitIdenticalToOneProcessGpu) {
  REQUIRE_GPU_PER_RANK();
  // Dirichlet +0 too: where x is not split the passes read +0 beyond the unsplit axes and
  // the exchanged ghosts of the split ones (no fill); -0 takes the fill.
  std::vector<Boundary> bcs = boundaries();
  bcs.push_back(Boundary::dirichlet(0.0));
  bcs.push_back(Boundary::dirichlet(-0.0));
  check_all<float>(kGpuGlobal, Memory::device, bcs);
  check_all<double>(kGpuGlobal, Memory::device, bcs);
  // Ghost layers wider than the radius (a library user's default 4): the zero-ghost pass's
  // tensor keeps all of a split axis's layers and must read the R next to the box.
  check_all<float>(kGpuGlobal, Memory::device, {Boundary::dirichlet(0.0), Boundary::dirichlet(-0.0)}, 4);
  for (int width : {1, 4}) check_ghosts<float>(kGpuGlobal, Memory::device, 4, width, 300 + width);
}

// dist::apply_steps against strata::apply_steps on the whole grid in one process (on the
// device: its fused passes where it has them), bit for bit: every stencil family, boundary
// and process grid, both updates, odd and even step counts (odd ones end in the scratch).
template <class T>
void check_steps(Extent global, Memory memory) {
  const Job& job = Job::get();
  const StepOptions updates[2] = {{StepUpdate::repeat, 0}, {StepUpdate::relax, 0.04}};
  for (const Stencil& s : stencils())
    for (const Boundary& bc : boundaries())
      for (const StepOptions& o : updates)
        for (int steps : {2, 3}) {
          const int ghost = s.radius() * (memory == Memory::device ? 3 : 1);  // periodic fused passes: k R
          for (const ProcessGrid& grid : grids_of(job.size(), global, ghost)) {
            Field<T> whole(global, ghost), want(global, ghost);
            test::fill_random(whole, 43);
            copy(whole, want);
            if (memory == Memory::host) {
              apply_steps(s, want, bc, steps, o);
            } else {
              Field<T> d(global, ghost, Memory::device);
              copy(whole, d);
              apply_steps(s, d, bc, steps, o);
              copy(d, want);
            }
            DistField<T> u(global, grid, ghost, memory), scratch(global, grid, ghost, memory);
            take_mine(whole, u);
            dist::apply_steps(s, u, scratch, bc, steps, o);
            expect_box_bits(u, want, s.describe() + ", " + bc.describe() + ", grid " + grid.str() + ", " +
                                         std::to_string(steps) +
                                         (o.update == StepUpdate::relax ? " relax" : " repeat") + " steps");
          }
        }
}

TEST(DistSteps, BitIdenticalToOneProcessCpu) {
  check_steps<float>(kGlobal, Memory::host);
  check_steps<double>({23, 19, 17}, Memory::host);
  // A wrong scratch is refused on every rank alike.
  const ProcessGrid grid = grids_of(Job::get().size(), kGlobal, 2).front();
  DistField<float> u(kGlobal, grid, 1), thin(kGlobal, grid, 2);
  EXPECT_THROW(dist::apply_steps(Stencil::laplacian(2), u, thin, Boundary::neumann(), 1), Error);
  EXPECT_THROW(dist::apply_steps(Stencil::laplacian(2), u, u, Boundary::neumann(), 1), Error);
}

TEST(DistSteps, BitIdenticalToOneProcessGpu) {
  REQUIRE_GPU_PER_RANK();
  check_steps<float>(kGpuGlobal, Memory::device);
  check_steps<double>(kGpuGlobal, Memory::device);
}

TEST(DistReduce, SameOnEveryRankAndCloseToOneProcess) {
  const Job& job = Job::get();
  Field<double> whole(kGlobal, 1);
  test::fill_random(whole, 7);
  for (const ProcessGrid& grid : grids_of(job.size(), kGlobal, 1)) {
    DistField<double> f(kGlobal, grid, 1);
    const dist::Subdomain& b = f.box();
    each_point(b, [&](int x, int y, int z, int gx, int gy, int gz) { f.local()(x, y, z) = whole(gx, gy, gz); });
    const double s = dist::sum(f), n2 = dist::norm2(f), m = dist::max_abs(f);
    // Every rank holds the same bits.
    for (double v : {s, n2, m}) {
      const std::vector<double> all = job.gather_all(v);
      for (double a : all) EXPECT_EQ(std::memcmp(&a, &v, sizeof v), 0) << "ranks disagree: " << a << " vs " << v;
    }
    EXPECT_NEAR(s, sum(whole), 1e-12 * kGlobal.points());
    EXPECT_NEAR(n2, norm2(whole), 1e-12 * n2);
    EXPECT_EQ(m, max_abs(whole));
    EXPECT_NEAR(dist::dot(f, f), n2 * n2, 1e-13 * n2 * n2);
  }
}

TEST(ProcessGrid, ChoosesLeastWeightedSurfaceAndPrefersZ) {
  EXPECT_EQ(ProcessGrid::choose({512, 512, 512}, 2).str(), "1x1x2");
  EXPECT_EQ(ProcessGrid::choose({512, 512, 512}, 4).str(), "1x1x4");  // y cuts cost 2.5 z cuts
  EXPECT_EQ(ProcessGrid::choose({512, 512, 512}, 8).str(), "1x2x4");
  EXPECT_EQ(ProcessGrid::choose({512, 512, 64}, 4).str(), "2x2x1");  // z faces 8x the area of x and y
  EXPECT_EQ(ProcessGrid::choose({1024, 64, 64}, 4).str(), "4x1x1");  // cut the long axis
  EXPECT_EQ(ProcessGrid::choose({64, 64, 3}, 4, 1).str(), "2x2x1");  // z too thin for 4 slabs
  EXPECT_THROW(ProcessGrid::choose({3, 3, 3}, 64, 1), Error);
  EXPECT_EQ(ProcessGrid::parse("2x1x3").ranks(), 6);
  EXPECT_THROW(ProcessGrid::parse("2x1"), Error);
  EXPECT_THROW(ProcessGrid::parse("0x1x1"), Error);
  EXPECT_THROW(ProcessGrid::parse("1x1x2x"), Error);
  // Digits alone, each count 1 .. 2^20: signs, spaces, exponents and overflowing counts refused.
  for (const char* bad : {"", "x1x1", " 1x1x2", "1x1x2 ", "+1x1x2", "1x-1x2", "1x1x2e0", "1.0x1x2", "1X1X2",
                          "2147483648x1x1", "99999999999999999999x1x1", "1048577x1x1", "1x1x"})
    EXPECT_THROW(ProcessGrid::parse(bad), Error) << "'" << bad << "'";
  EXPECT_EQ(ProcessGrid::parse("1048576x1x1").dims[0], 1 << 20);
  EXPECT_EQ(ProcessGrid::parse("01x1x2").str(), "1x1x2");
  try {
    ProcessGrid::parse("2x1", "--grid");
    ADD_FAILURE() << "2x1 taken";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("--grid '2x1'"), std::string::npos) << e.what();
  }
}

// The rule as documented (strata/dist.hpp), over random odd extents, rank counts and widths:
// among the grids of N boxes that fit, the least surface with x cuts weighted 4, y 2.5 and z 1,
// ties to the most z splits, then y; and a refusal exactly when no grid fits.
TEST(ProcessGrid, ChoiceIsTheDocumentedRuleOnRandomShapes) {
  std::mt19937 rng(36);
  std::uniform_int_distribution<int> len(1, 71), ranks(1, 12), width(1, 4);
  for (int trial = 0; trial < 400; ++trial) {
    const Extent n{len(rng), len(rng), len(rng)};
    const int N = ranks(rng), w = width(rng);
    const double area[3] = {double(n.ny) * n.nz, double(n.nx) * n.nz, double(n.nx) * n.ny};
    const double weight[3] = {4.0, 2.5, 1.0};
    bool any = false;
    ProcessGrid want{};
    double want_cost = 0;
    for (int pz = N; pz >= 1; --pz)
      for (int py = N; py >= 1; --py) {
        if (N % (pz * py)) continue;
        const ProcessGrid g{{N / (pz * py), py, pz}};
        if (!g.fits(n, w)) continue;
        double cost = 0;
        for (int a = 0; a < 3; ++a) cost += (g.dims[a] - 1) * weight[a] * area[a];
        if (!any || cost < want_cost) any = true, want = g, want_cost = cost;
      }
    const std::string what = n.str() + ", " + std::to_string(N) + " ranks, width " + std::to_string(w);
    if (!any) {
      EXPECT_THROW(ProcessGrid::choose(n, N, w), Error) << what;
      continue;
    }
    const ProcessGrid got = ProcessGrid::choose(n, N, w);
    EXPECT_EQ(got.ranks(), N) << what;
    EXPECT_TRUE(got.fits(n, w)) << what;
    EXPECT_EQ(got.str(), want.str()) << what;
  }
}

// The process grids a test leaves out (test::grids_of) are the ones DistField refuses, on
// every rank alike, with a message naming the split, the thickness and the ghost layers;
// every other grid of the rank count is accepted.
TEST(ProcessGrid, RefusesExactlyTheGridsThatDoNotFit) {
  const Job& job = Job::get();
  const Extent global{40, 9, 5};  // z is thin: from 2 ranks on some split leaves boxes too thin
  int refused = 0;
  for (int ghost : {1, 3})
    for (const ProcessGrid& grid : test::all_grids_of(job.size())) {
      if (grid.fits(global, ghost)) {
        EXPECT_NO_THROW((DistField<float>(global, grid, ghost))) << "grid " << grid.str() << ", ghost " << ghost;
        continue;
      }
      ++refused;
      try {
        DistField<float> f(global, grid, ghost);
        ADD_FAILURE() << "grid " << grid.str() << " with " << ghost << " ghost layers was accepted";
      } catch (const Error& e) {
        const std::string m = e.what();
        EXPECT_NE(m.find("process grid " + grid.str() + " splits"), std::string::npos) << m;
        EXPECT_NE(m.find("thinner than the " + std::to_string(ghost) + " ghost layers"), std::string::npos) << m;
      }
    }
  if (job.size() > 1) {
    EXPECT_GT(refused, 0) << "the refusal was never exercised";
  }
  // The case that once failed on 4 GPUs: y of 37 points cut 4 ways leaves 9 < 12 layers.
  EXPECT_FALSE((ProcessGrid{{1, 4, 1}}).fits({70, 37, 45}, 12));
  EXPECT_TRUE((ProcessGrid{{1, 4, 1}}).fits({70, 49, 53}, 12));
  EXPECT_TRUE((ProcessGrid{{1, 1, 1}}).fits({1, 1, 1}, 12));  // nothing split: nothing to fit
}

TEST(ProcessGrid, BoxesTileTheGridWithoutGapsOrOverlap) {
  for (const Extent n : {Extent{19, 17, 23}, Extent{7, 5, 3}, Extent{100, 1, 1}})
    for (const ProcessGrid& g : {ProcessGrid{{1, 1, 3}}, ProcessGrid{{2, 1, 1}}, ProcessGrid{{1, 1, 1}}}) {
      if (n.nx < g.dims[0] || n.ny < g.dims[1] || n.nz < g.dims[2]) continue;
      std::vector<int> owner(n.points(), 0);
      for (int r = 0; r < g.ranks(); ++r) {
        const auto b = dist::Subdomain::of(g, n, r);
        each_point(b, [&](int, int, int, int gx, int gy, int gz) {
          ++owner[(std::size_t(gz) * n.ny + std::size_t(gy)) * n.nx + std::size_t(gx)];
        });
      }
      for (int o : owner) ASSERT_EQ(o, 1);
    }
}

// take_box: each rank's box of a whole grid it holds, for every pair of memories (host and,
// with a GPU, device) and every process grid the rank count allows, on an odd shape with
// random values; the box's ghosts are left alone (poison kept), a wrong shape refused.
void check_take_box(Memory from, Memory to) {
  const Extent global{19, 17, 23};
  Field<double> whole(global, 1);
  test::fill_random(whole, 77);
  Field<double> src(global, 1, from);
  copy(whole, src);
  for (const ProcessGrid& grid : test::grids_of(Job::get().size(), global, 1)) {
    const dist::Subdomain b = dist::Subdomain::of(grid, global, Job::get().rank());
    Field<double> poison(b.local, 1);
    for (int z = -1; z <= b.local.nz; ++z)
      for (int y = -1; y <= b.local.ny; ++y)
        for (int x = -1; x <= b.local.nx; ++x) poison(x, y, z) = -3.5;
    Field<double> mine(b.local, 1, to), got(b.local, 1);
    copy(poison, mine);
    dist::take_box(src, b, mine);
    copy(mine, got);
    std::size_t bad = 0;
    for (int z = -1; z <= b.local.nz; ++z)
      for (int y = -1; y <= b.local.ny; ++y)
        for (int x = -1; x <= b.local.nx; ++x) {
          const bool in = x >= 0 && y >= 0 && z >= 0 && x < b.local.nx && y < b.local.ny && z < b.local.nz;
          const double want = in ? whole(b.offset[0] + x, b.offset[1] + y, b.offset[2] + z) : -3.5;
          bad += std::memcmp(&want, &got(x, y, z), sizeof want) != 0;
        }
    EXPECT_EQ(bad, 0u) << "grid " << grid.str() << " from " << int(from) << " to " << int(to);
    Field<double> wrong(Extent{b.local.nx + 1, b.local.ny, b.local.nz}, 1, to);
    EXPECT_THROW(dist::take_box(src, b, wrong), Error);
  }
}

TEST(DistField, TakeBoxOfAWholeGridOnTheHost) { check_take_box(Memory::host, Memory::host); }

TEST(DistField, TakeBoxOfAWholeGridAcrossMemories) {
  REQUIRE_GPU_PER_RANK();
  check_take_box(Memory::device, Memory::device);
  check_take_box(Memory::device, Memory::host);
  check_take_box(Memory::host, Memory::device);
}

TEST(DistField, RefusesGridsThatDoNotFit) {
  const int ranks = Job::get().size();
  EXPECT_THROW(DistField<float>({19, 17, 23}, ProcessGrid{{1, 1, ranks + 1}}, 1), Error);
  if (ranks > 1) {
    EXPECT_THROW(DistField<float>({19, 17, 2 * ranks - 1}, ProcessGrid{{1, 1, ranks}}, 2), Error);
  }
}

}  // namespace
}  // namespace strata

namespace strata::dist {

// A field's pack buffers are sized when it is made: no exchange of any width, axis or wrap
// grows them (on the GPU a growth is an allocation that waits for the device mid-solve).
TEST(DistHalo, ReservedBuffersServeEveryExchange) {
  const int ghost = 3;
  for (const ProcessGrid& grid : test::grids_of(Job::get().size(), kGlobal, ghost)) {
    const Subdomain box = Subdomain::of(grid, kGlobal, Job::get().rank());
    Field<float> f(box.local, ghost, Memory::host);
    halo::Buffers hb;
    halo::reserve(f, grid, hb);
    const std::size_t reserved = hb.bytes;
    EXPECT_EQ(reserved > 0, grid.dims[0] > 1 || grid.dims[1] > 1) << grid.str();
    for (int axis = 0; axis < 3; ++axis)
      for (int w = 1; w <= ghost; ++w)
        for (bool wrap : {false, true}) {
          halo::exchange_axis(f, grid, box, wrap, w, axis, hb, nullptr);
          EXPECT_EQ(hb.bytes, reserved) << grid.str() << " axis " << axis << " width " << w;
        }
    for (int w = 1; w <= ghost; ++w)
      for (bool wrap : {false, true}) {
        halo::exchange_faces(f, grid, box, {wrap, wrap, wrap}, w, hb, nullptr);
        EXPECT_EQ(hb.bytes, reserved) << grid.str() << " every face, width " << w;
      }
  }
}

// exchange_faces (every split axis's faces in one round, for stars) puts in each face's
// ghosts, over the interior of the other axes, the bits the axes exchanged in turn put there:
// every process grid, width and wrap, on the host and on the device.
template <class T>
void check_faces_at_once(Extent global, Memory memory) {
  const int ghost = 4;
  const int rank = Job::get().rank();
  for (const ProcessGrid& grid : test::grids_of(Job::get().size(), global, ghost))
    for (int w : {1, 3, 4})
      for (bool wrap : {false, true}) {
        const Subdomain box = Subdomain::of(grid, global, rank);
        const Extent n = box.local;
        Field<T> start(n, ghost);
        test::fill_random(start, 500 + 7 * std::uint64_t(rank) + std::uint64_t(w));
        Field<T> in_turn(n, ghost, memory), at_once(n, ghost, memory);
        copy(start, in_turn);
        copy(start, at_once);
        halo::Buffers b1, b2;
        for (int a = 0; a < 3; ++a) halo::exchange_axis(in_turn, grid, box, wrap, w, a, b1, nullptr);
        halo::exchange_faces(at_once, grid, box, {wrap, wrap, wrap}, w, b2, nullptr);
        device_synchronize();
        Field<T> want(n, ghost), got(n, ghost);
        copy(in_turn, want);
        copy(at_once, got);
        std::size_t bad = 0, faces = 0;
        const int len[3] = {n.nx, n.ny, n.nz};
        for (int a = 0; a < 3; ++a) {
          const halo::Peers peer = halo::peers(grid, box, a, wrap);
          for (int side = 0; side < 2; ++side) {
            if ((side == 0 ? peer.lo : peer.hi) < 0) continue;
            ++faces;
            int lo[3] = {0, 0, 0}, hi[3] = {n.nx, n.ny, n.nz};
            lo[a] = side == 0 ? -w : len[a];
            hi[a] = lo[a] + w;
            for (int z = lo[2]; z < hi[2]; ++z)
              for (int y = lo[1]; y < hi[1]; ++y)
                for (int x = lo[0]; x < hi[0]; ++x) {
                  const T g = got(x, y, z), e = want(x, y, z);
                  if (std::memcmp(&g, &e, sizeof(T)) != 0 && bad++ < 3)
                    ADD_FAILURE() << "grid " << grid.str() << ", width " << w << (wrap ? ", wrapped" : "") << ", rank "
                                  << rank << ", axis " << a << ": ghost (" << x << ", " << y << ", " << z << ") got "
                                  << g << ", the axes in turn give " << e;
                }
          }
        }
        EXPECT_EQ(bad, 0u) << "grid " << grid.str() << ", width " << w;
        // Every rank of a split grid has a neighbour (wrapped: on both sides of every split axis).
        if (grid.ranks() > 1) {
          EXPECT_GT(faces, 0u) << grid.str();
        }
      }
}

TEST(DistHalo, FacesAtOnceAreTheAxesInTurnOnTheFacesCpu) {
  check_faces_at_once<float>(kGlobal, Memory::host);
  check_faces_at_once<double>(kGlobal, Memory::host);
}

TEST(DistHalo, FacesAtOnceAreTheAxesInTurnOnTheFacesGpu) {
  REQUIRE_GPU_PER_RANK();
  check_faces_at_once<float>(kGlobal, Memory::device);
  check_faces_at_once<double>(kGlobal, Memory::device);
}

}  // namespace strata::dist

// The temporal-blocking kernel's threads (cuda/kernels/temporal.cuh) run on the host, block
// by block and step by step: K fused steps must give the bits of K single steps computed
// with the same point arithmetic, for every boundary kind, radius, K, window, rows per
// thread and z split, on shapes with partial tiles and axes shorter than the halo. This checks the windows,
// the rings and the ghost rules on any machine; the GPU tests check the device build.
#include <gtest/gtest.h>

#include <cstring>
#include <limits>
#include <utility>
#include <vector>

#include "common/test_util.hpp"
#include "cuda/kernels/smoother.hpp"
#include "cuda/kernels/temporal.cuh"
#include "cuda/temporal/splits.hpp"
#include "cuda/tuning/temporal_block_policy.hpp"
#include "strata/apply.hpp"

namespace strata::cuda::kernels {
namespace {

// Coefficients that differ per tap, so a tap read from the wrong place shows.
template <class T>
T coefficient(int i, std::uint64_t seed) {
  return T(0.5 / (i % 5 + 1) - 0.03 * double((seed + i) % 7) + 0.001 * i);
}
template <class T, int R>
StarPoint<T, R> star(std::uint64_t seed) {
  StarPoint<T, R> op{};
  for (int r = 0; r <= R; ++r) op.c[r] = coefficient<T>(r, seed);
  return op;
}
template <class T>
Sym27Point<T> sym27(std::uint64_t seed) {
  Sym27Point<T> op{};
  for (int i = 0; i < 4; ++i) op.c[i] = coefficient<T>(i, seed);
  return op;
}
template <class T>
Box27Point<T> box27(std::uint64_t seed) {
  Box27Point<T> op{};
  for (int i = 0; i < 27; ++i) op.k[i] = coefficient<T>(i, seed) / 4;
  return op;
}

// One single step on the host: ghosts from bc (R wide), then the point arithmetic.
template <class T, class Op, class Epi>
void single_step(const Op& op, const Epi& epi, const Boundary& bc, Field<T>& u, Field<T>& v) {
  fill_ghosts(u, bc, Op::radius);
  const Extent n = u.extent();
  for (int z = 0; z < n.nz; ++z)
    for (int y = 0; y < n.ny; ++y)
      for (int x = 0; x < n.nx; ++x) {
        T centre;
        const T s = op([&](int xx, int yy, int zz) { return u(xx, yy, zz); }, x, y, z, centre);
        v(x, y, z) = epi(s, centre);
      }
}

// K fused steps the kernel's way: every block's threads step by step, the order of the
// threads reversed on every other step, so that a read that is not ordered after its write
// by a barrier finds a different value in one of the orders. Staged passes copy their
// planes in bulk where the kernel would with a tensor map (bulk), else per thread.
template <class T, class Op, int K, int PX, int TYT, int RY, bool Unroll, class Epi>
void fused(const Op& op, const Epi& epi, const Boundary& bc, Field<T>& u, Field<T>& v, int tz, bool bulk = true) {
  constexpr int R = Op::radius;
  using S = TemporalShape<T, Op, K, PX, TYT, RY>;
  using Thread = TemporalThread<T, Op, Epi, K, PX, TYT, RY, Unroll>;
  if (bc.kind == BoundaryKind::periodic) fill_ghosts(u, bc, K * R);
  const Extent n = u.extent();
  TemporalArgs<T, Op, Epi> a{};
  a.in = u.origin();
  a.out = v.origin();
  a.in_pitch = u.layout().pitch, a.in_plane = u.layout().plane;
  a.out_pitch = v.layout().pitch, a.out_plane = v.layout().plane;
  a.nx = n.nx, a.ny = n.ny, a.nz = n.nz, a.tz = tz;
  a.op = op;
  a.kind = bc.kind;
  a.value = T(bc.value);
  a.epi = epi;
  a.bulk = bulk;
  a.map_x = int(u.layout().xoff);  // where the launcher's tensor map has the interior origin
  std::vector<T> smem(S::smem_values, std::numeric_limits<T>::quiet_NaN());  // no stored point may read a stale value
  for (int bz = 0; bz < (n.nz + tz - 1) / tz; ++bz)
    for (int by = 0; by < (n.ny + S::TY - 1) / S::TY; ++by)
      for (int bx = 0; bx < (n.nx + S::TX - 1) / S::TX; ++bx) {
        std::vector<Thread> threads;
        threads.reserve(S::threads);
        for (int t = 0; t < S::threads; ++t) threads.emplace_back(a, bx, by, bz, t);
        for (Thread& t : threads) t.init(smem.data());
        for (Thread& t : threads) t.start(smem.data());
        const int steps = threads[0].steps();
        for (int i = 0; i < steps; ++i)
          for (int t = 0; t < S::threads; ++t) threads[i % 2 ? S::threads - 1 - t : t].step(i, smem.data());
      }
}

template <class T, class Op, int K, int PX, int TYT, int RY, bool Unroll, bool Bulk = true>
void check(const Op& op, Extent n, const Boundary& bc, bool relax, int tz, std::uint64_t seed) {
  constexpr int R = Op::radius;
  if (!TemporalThread<T, Op, StepStore<T>, K, PX, TYT, RY>::supports(bc.kind)) {
    EXPECT_FALSE(Op::mirror_symmetric) << "a symmetric operator fuses every boundary kind";
    return;
  }
  const int ghost = K * R;
  Field<T> start(n, ghost);
  test::fill_random(start, seed);
  Field<T> a(n, ghost), b(n, ghost), f(n, ghost), g(n, ghost);
  copy(start, a);
  copy(start, f);
  auto run = [&](auto epi) {
    for (int k = 0; k < K; ++k) {
      single_step<T>(op, epi, bc, a, b);
      copy(b, a);
    }
    fused<T, Op, K, PX, TYT, RY, Unroll>(op, epi, bc, f, g, tz, Bulk);
  };
  if (relax)
    run(StepRelax<T>{T(0.07)});
  else
    run(StepStore<T>{});
  EXPECT_EQ(test::interior_bit_diffs(a, g), "")
      << "R " << R << " K " << K << (Unroll ? " unrolled" : " rolled") << " window " << PX << "x" << TYT * RY
      << " rows " << RY << (Bulk ? "" : " per-thread copies") << " tz " << tz << " " << bc.describe() << " " << n.str() << (relax ? " relax" : " repeat")
      << ": fused against single steps";
}

// Windows just wide enough for the halo (so that shapes of a few points span several
// blocks, partial ones included), with one and several rows per thread.
template <class T, int K, class MakeOp, bool Unroll = temporal_unrolled<decltype(std::declval<MakeOp>()(0))>,
          bool Bulk = true>
void every_case(MakeOp make) {
  using Op = decltype(make(0));
  constexpr int W = 2 * K * Op::radius;
  std::uint64_t seed = 11 * K;
  for (Extent n : {Extent{13, 7, 5}, Extent{6, 11, 9}, Extent{2, 3, 1}, Extent{1, 1, 7}, Extent{17, 9, 12}, Extent{41, 38, 11}})
    for (const Boundary& bc : {Boundary::dirichlet(0.25), Boundary::neumann(), Boundary::periodic()})
      for (bool relax : {false, true})
        for (int tz : {n.nz, 2, 5}) {
          ++seed;
          check<T, Op, K, W + 5, 2, (W + 4) / 2, Unroll, Bulk>(make(seed), n, bc, relax, tz, seed);
          ++seed;
          check<T, Op, K, W + 3, W + 2, 1, Unroll, Bulk>(make(seed), n, bc, relax, tz, seed);
        }
}

// The multigrid smoothers fused (StepSmooth): K steps of Jacobi, or a Jacobi step then
// Chebyshev steps whose prev is the iterate two levels below, against single steps by the
// same point updates with the iterates kept in separate fields.
template <class T, int K, int PX, int TYT, int RY, bool Chebyshev, bool Unroll = true>
void check_smoother(Extent n, const Boundary& bc, int tz, std::uint64_t seed) {
  const auto op = star<T, 1>(seed);
  const int ghost = bc.kind == BoundaryKind::periodic ? K : 1;  // the hierarchy's fields keep one layer
  Field<T> f(n, ghost);
  test::fill_random(f, seed + 1);
  StepSmooth<T, Chebyshev> epi{};
  epi.f = f.origin();
  for (int k = 1; k <= K; ++k) {
    epi.w[k] = coefficient<T>(k, seed) / 3;
    epi.alpha[k] = coefficient<T>(k + 5, seed) / 2, epi.beta[k] = coefficient<T>(k + 9, seed) / 3;
  }
  std::vector<Field<T>> it;  // the iterates u_0 .. u_K, one step at a time
  it.reserve(K + 1);
  it.emplace_back(n, ghost);
  test::fill_random(it[0], seed);
  Field<T> start(n, ghost), g(n, ghost);
  copy(it[0], start);
  for (int k = 1; k <= K; ++k) {
    Field<T>& u = it[std::size_t(k - 1)];
    it.emplace_back(n, ghost);
    Field<T>& v = it.back();
    fill_ghosts(u, bc, 1);
    for (int z = 0; z < n.nz; ++z)
      for (int y = 0; y < n.ny; ++y)
        for (int x = 0; x < n.nx; ++x) {
          T centre;
          const T s = op([&](int xx, int yy, int zz) { return u(xx, yy, zz); }, x, y, z, centre);
          const T prev = k >= 2 ? it[std::size_t(k - 2)](x, y, z) : centre;
          const T fv = f(x, y, z);
          v(x, y, z) = k == 1   ? epi.template step<1>(s, centre, prev, fv)
                       : k == 2 ? epi.template step<2>(s, centre, prev, fv)
                                : epi.template step<3>(s, centre, prev, fv);
        }
  }
  fused<T, StarPoint<T, 1>, K, PX, TYT, RY, Unroll>(op, epi, bc, start, g, tz);
  const Field<T>& a = it.back();
  EXPECT_EQ(test::interior_bit_diffs(a, g), "")
      << "smoother K " << K << (Chebyshev ? " chebyshev" : " jacobi") << (Unroll ? " unrolled" : " rolled") << " tz "
      << tz << " " << bc.describe() << " " << n.str() << ": fused against single steps";
}

TEST(TemporalEmulation, MultigridSmoothers) {
  std::uint64_t seed = 5;
  for (Extent n : {Extent{13, 7, 5}, Extent{6, 11, 9}, Extent{2, 3, 1}, Extent{17, 9, 12}, Extent{41, 38, 11}})
    for (const Boundary& bc : {Boundary::dirichlet(0), Boundary::dirichlet(0.5), Boundary::neumann(), Boundary::periodic()})
      for (int tz : {n.nz, 2}) {
        check_smoother<float, 2, 9, 2, 4, true>(n, bc, tz, ++seed);
        check_smoother<double, 2, 7, 6, 1, false>(n, bc, tz, ++seed);
        check_smoother<float, 3, 11, 3, 4, true>(n, bc, tz, ++seed);
        check_smoother<double, 3, 13, 2, 6, false>(n, bc, tz, ++seed);
        check_smoother<float, 2, 9, 4, 2, true, false>(n, bc, tz, ++seed);
      }
}

// The production blocks of the fused smoothing pair (tuning/temporal_block_policy.hpp).
TEST(TemporalEmulation, MultigridSmoothersProductionWindow) {
  using strata::cuda::smoothing_block;
  constexpr auto f = smoothing_block(4, false), d = smoothing_block(8, false), dl = smoothing_block(8, true);
  std::uint64_t seed = 77;
  for (Extent n : {Extent{63, 47, 31}, Extent{40, 36, 50}, Extent{32, 24, 16}, Extent{70, 61, 9}})
    for (const Boundary& bc : {Boundary::dirichlet(0), Boundary::neumann()})
      for (int tz : {n.nz, 8, 5}) {
        check_smoother<float, 2, 64, f.threads / 64, f.rows, true>(n, bc, tz, ++seed);
        check_smoother<float, 2, 64, f.threads / 64, f.rows, false>(n, bc, tz, ++seed);
        check_smoother<double, 2, 64, d.threads / 64, d.rows, true>(n, bc, tz, ++seed);
        check_smoother<double, 2, 64, dl.threads / 64, dl.rows, true>(n, bc, tz, ++seed);
      }
}

TEST(TemporalEmulation, Radius1Stars) {
  every_case<float, 1>(star<float, 1>);
  every_case<float, 2>(star<float, 1>);
  every_case<double, 3>(star<double, 1>);
  every_case<float, 4>(star<float, 1>);
}

// The production blocks of the 7-point passes (tuning/temporal_block_policy.hpp), on shapes
// of several windows, partial ones included.
TEST(TemporalEmulation, Radius1StarsProductionWindows) {
  using strata::cuda::seven_point_block;
  constexpr auto f2 = seven_point_block(4, 2), f3 = seven_point_block(4, 3), f4 = seven_point_block(4, 4);
  constexpr auto d2 = seven_point_block(8, 2), d3 = seven_point_block(8, 3);
  std::uint64_t seed = 303;
  for (Extent n : {Extent{70, 61, 9}, Extent{130, 95, 6}})
    for (const Boundary& bc : {Boundary::dirichlet(0.25), Boundary::neumann(), Boundary::periodic()})
      for (int tz : {n.nz, 4}) {
        const bool relax = ++seed % 2 == 0;
        check<float, StarPoint<float, 1>, 2, 64, f2.threads / 64, f2.rows, true>(star<float, 1>(seed), n, bc, relax, tz, seed);
        check<float, StarPoint<float, 1>, 3, 64, f3.threads / 64, f3.rows, true>(star<float, 1>(seed), n, bc, relax, tz, seed);
        check<float, StarPoint<float, 1>, 4, 64, f4.threads / 64, f4.rows, true>(star<float, 1>(seed), n, bc, relax, tz, seed);
        check<double, StarPoint<double, 1>, 2, 64, d2.threads / 64, d2.rows, true>(star<double, 1>(seed), n, bc, relax, tz, seed);
        check<double, StarPoint<double, 1>, 3, 64, d3.threads / 64, d3.rows, true>(star<double, 1>(seed), n, bc, relax, tz, seed);
      }
}

// Staged passes without a tensor map (an input whose allocation a tensor copy cannot take)
// copy every plane per thread, dirichlet face blocks included.
TEST(TemporalEmulation, Radius1StarsPerThreadCopies) {
  every_case<float, 3, decltype(&star<float, 1>), true, false>(star<float, 1>);
  every_case<double, 2, decltype(&star<double, 1>), true, false>(star<double, 1>);
}

TEST(TemporalEmulation, Radius1StarsRolled) {  // the kernels' other form, with the same queues
  every_case<float, 3, decltype(&star<float, 1>), false>(star<float, 1>);
  every_case<double, 2, decltype(&sym27<double>), false>(sym27<double>);
}

TEST(TemporalEmulation, Radius2To4Stars) {
  every_case<double, 2>(star<double, 2>);
  every_case<float, 3>(star<float, 2>);
  every_case<float, 2>(star<float, 3>);
  every_case<double, 2>(star<double, 4>);
}

TEST(TemporalEmulation, TwentySevenPointStencils) {
  every_case<float, 2>(sym27<float>);
  every_case<double, 3>(sym27<double>);
  every_case<float, 4>(box27<float>);
  every_case<double, 2>(box27<double>);
}

}  // namespace
}  // namespace strata::cuda::kernels

// A thread keeps its rows' offsets within a plane in 32 bits; a plane whose rows, with the
// window's reach past the y faces, pass 2^31 points takes single steps instead.
TEST(TemporalEmulation, InPlaneOffsetsFitAnIntOrThePassIsRefused) {
  EXPECT_TRUE(strata::cuda::kernels::in_plane_offsets(544, 512, 3));
  EXPECT_TRUE(strata::cuda::kernels::in_plane_offsets(32, 1, 16));
  EXPECT_TRUE(strata::cuda::kernels::in_plane_offsets(65536, 32750, 4));        // (32750 + 9) x 65536 < 2^31
  EXPECT_FALSE(strata::cuda::kernels::in_plane_offsets(65536, 32760, 4));       // 32769 x 65536 >= 2^31
  EXPECT_FALSE(strata::cuda::kernels::in_plane_offsets(std::int64_t(1) << 31, 1, 1));
}

// The z splits of a pass: a real split (no two counts with the same planes per block), at
// most 64, and blocks of at most kLongestSplit planes wherever 64 splits allow it, however
// few the columns.
TEST(TemporalSplits, AreDistinctAndCapTheBlocksPlanes) {
  using strata::cuda::temporal::kLongestSplit;
  using strata::cuda::temporal::z_splits;
  std::uint64_t state = 99;
  auto next = [&](int lo, int hi) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return lo + int((state >> 33) % std::uint64_t(hi - lo + 1));
  };
  for (int c = 0; c < 20000; ++c) {
    const int columns = next(1, 600), nz = c % 7 == 0 ? next(8000, 20000) : next(1, 3000);
    const int lag = next(2, 32), slots = next(1, 300);
    const int s = z_splits(columns, nz, lag, slots);
    const int tz = (nz + s - 1) / s;
    ASSERT_GE(s, 1);
    ASSERT_LE(s, std::min(nz, 64));
    ASSERT_EQ((nz + tz - 1) / tz, s) << columns << " " << nz << " " << lag << " " << slots;
    if ((nz + 63) / 64 <= kLongestSplit) {
      ASSERT_LE(tz, kLongestSplit) << columns << " " << nz << " " << slots;
    }
  }
  // The block streams whole waves rather than a partial last one where that costs fewer
  // planes: 108 columns on 132 SMs, 512 planes, lag 6 (the 7-point f32 K = 3 pass at 512^3)
  // take 6 splits (5 waves of 86 + 6 planes), not 4 (4 waves of 128 + 6).
  EXPECT_EQ(z_splits(108, 512, 6, 132), 6);
  // One column on a whole GPU: as many splits as planes allow.
  EXPECT_EQ(z_splits(1, 40, 6, 132), 40);
}

// GPU stencils against the CPU reference: every stencil, precision and boundary condition on
// randomized shapes with 1, 7, 33, 65 and 130 points along the axes, random coefficients,
// poisoned outputs, and output ghosts/padding required to be bit-for-bit unchanged.
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <random>

#include "common/test_util.hpp"
#include "verify/stencil_check.hpp"
#include "strata/apply.hpp"
#include "common/require_gpu.hpp"
#include "strata/device.hpp"
#if STRATA_HAVE_CUDA
#include "backend/halo.hpp"
#include "cuda/stencil/registry.hpp"
#endif

using namespace strata;

namespace {

// STRATA_TEST_QUICK=1 (set by the sanitizer runs, which are slow) keeps two shapes.
std::vector<Extent> test_shapes() {
  if (std::getenv("STRATA_TEST_QUICK")) return {{1, 1, 1}, {67, 9, 33}};
  std::vector<Extent> s = {{1, 1, 1}, {130, 7, 33}, {7, 65, 1}, {33, 1, 130}, {65, 130, 7}};
  std::mt19937 rng(2024);
  const int sizes[] = {1, 7, 33, 65, 130};
  for (int i = 0; i < 3; ++i) s.push_back({sizes[rng() % 5], sizes[rng() % 5], sizes[rng() % 5]});
  return s;
}

// Runs `launch(din, dout)` on a poisoned device output and checks the result against the
// CPU reference of s (with in's ghosts already filled on the host), and that nothing
// outside the interior of the output changed. Returns the output, on the host.
template <class T, class Launch>
Field<T> check_device_pass(const Stencil& s, const Field<T>& in_host_filled, Field<T>& din,
                           int out_ghost, Launch&& launch, const std::string& what) {
  const Extent n = in_host_filled.extent();
  Field<T> poisoned(n, out_ghost), got(n, out_ghost);
  test::poison(poisoned);
  Field<T> dout(n, out_ghost, Memory::device);
  copy(poisoned, dout);
  launch(din, dout);
  device_synchronize();
  copy(dout, got);
  const auto m = verify::against_reference(s, in_host_filled, got);
  EXPECT_TRUE(m.ok()) << what << ": " << m.str();
  EXPECT_EQ(test::outside_interior_diffs(got, poisoned), 0u) << what << ": wrote outside the interior";
  return got;
}

template <class T>
void differential(const Extent& n, const Stencil& s, const Boundary& bc, std::uint64_t seed) {
  Field<T> in(n);
  test::fill_random(in, seed, -2.0, 3.0);
  Field<T> din(n, in.ghost(), Memory::device);
  copy(in, din);
  fill_ghosts(in, bc, s.radius());  // host reference ghosts
  const std::string what = s.describe() + " " + bc.describe() + " " + n.str() + " " +
                           to_string(precision_of<T>);
  check_device_pass<T>(s, in, din, in.ghost(),
                       [&](Field<T>& i, Field<T>& o) { apply(s, i, o, bc); }, what);
  // The device ghost fill must equal the host's bit for bit (ghosts included).
  Field<T> back(n, in.ghost());
  copy(din, back);
  EXPECT_EQ(std::memcmp(back.data(), in.data(), in.layout().bytes()), 0) << what << ": ghost fill differs";
}

}  // namespace

TEST(StencilCuda, EveryStencilBoundaryAndPrecisionMatchesTheReference) {
  REQUIRE_GPU();
  std::uint64_t seed = 1;
  for (const Extent& n : test_shapes())
    for (const Boundary& bc : {Boundary::dirichlet(-0.3), Boundary::neumann(), Boundary::periodic()}) {
      for (int r = 1; r <= 4; ++r) {
        seed += 2;
        differential<float>(n, test::random_stencil(StencilKind::star, r, seed), bc, seed);
        differential<double>(n, test::random_stencil(StencilKind::star, r, seed + 1), bc, seed + 1);
      }
      for (StencilKind k : {StencilKind::sym27, StencilKind::box27}) {
        seed += 2;
        differential<float>(n, test::random_stencil(k, 1, seed), bc, seed);
        differential<double>(n, test::random_stencil(k, 1, seed + 1), bc, seed + 1);
      }
    }
}

TEST(StencilCuda, LaplaciansAreExactOnPolynomials) {
  REQUIRE_GPU();
  for (int order : {2, 4, 6, 8}) {
    const double h = 1.0 / 40;
    const Stencil s = Stencil::laplacian(order, h);
    const auto m32 = verify::laplacian_exactness<float>(s, order + 1, {70, 41, 37}, h, Memory::device);
    const auto m64 = verify::laplacian_exactness<double>(s, order + 1, {70, 41, 37}, h, Memory::device);
    EXPECT_TRUE(m32.ok()) << order << ": " << m32.str();
    EXPECT_TRUE(m64.ok()) << order << ": " << m64.str();
  }
}

TEST(StencilCuda, DifferentGhostWidthsAndLargerGhosts) {
  REQUIRE_GPU();
  const Extent n{45, 19, 23};
  for (int in_ghost : {1, 4, 9})
    for (int out_ghost : {0, 2, 4}) {
      const Stencil s = test::random_stencil(StencilKind::box27, 1, 77 + in_ghost);
      Field<float> in(n, in_ghost);
      test::fill_random(in, 5);
      fill_ghosts(in, Boundary::neumann(), 1);
      Field<float> din(n, in_ghost, Memory::device);
      copy(in, din);
      check_device_pass<float>(s, in, din, out_ghost,
                               [&](Field<float>& i, Field<float>& o) { apply_interior(s, i, o); },
                               "ghost " + std::to_string(in_ghost) + "->" + std::to_string(out_ghost));
    }
}

#if STRATA_HAVE_CUDA
// One axis's ghosts on chosen sides (a distributed box's global faces): the device fill must
// write what the CPU's writes, bit for bit over the whole allocation (ghosts, padding and
// interior), for every rule, width, axis and side, on shapes shorter than the ghosts and
// longer than a block, the axes filled in order as the distributed fill does.
template <class T>
void ghost_sides(const Extent& n, int ghost, std::uint64_t seed) {
  for (const Boundary& bc : {Boundary::dirichlet(-1.5), Boundary::neumann(), Boundary::periodic()})
    for (int w = 1; w <= ghost; w += (ghost > 4 ? 3 : 1))
      for (int sides = 1; sides < 4; ++sides) {
        const bool lo = sides & 1, hi = sides & 2;
        Field<T> host(n, ghost);
        std::mt19937_64 rng(seed + std::uint64_t(w) * 7 + std::uint64_t(sides));
        std::uniform_real_distribution<double> u(-2.0, 3.0);
        for (std::size_t i = 0; i < host.layout().size; ++i) host.data()[i] = T(u(rng));
        Field<T> dev(n, ghost, Memory::device), back(n, ghost);
        copy(host, dev);
        for (int axis = 0; axis < 3; ++axis) {
          cpu::fill_ghost_sides(cpu::Tag{}, host, bc, w, axis, lo, hi);
          cuda::fill_ghost_sides(cuda::Tag{}, dev, bc, w, axis, lo, hi, nullptr);
          device_synchronize();
          copy(dev, back);
          EXPECT_EQ(std::memcmp(back.data(), host.data(), host.layout().bytes()), 0)
              << bc.describe() << " " << n.str() << " ghost " << ghost << " width " << w << " axis " << axis
              << (lo ? " lo" : "") << (hi ? " hi" : "") << " " << to_string(precision_of<T>);
        }
      }
}

TEST(StencilCuda, GhostSidesMatchTheCpuFillBitForBit) {
  REQUIRE_GPU();
  for (const Extent& n : test_shapes()) {
    ghost_sides<float>(n, 4, 11);
    ghost_sides<double>(n, 1, 12);
  }
  ghost_sides<float>({300, 3, 2}, 9, 13);  // rows longer than a block, an axis thinner than w
  ghost_sides<double>({2, 290, 5}, 6, 14);
}
#endif

// apply with Dirichlet +0 on the GPU reads +0 beyond the interior instead of filling in's
// ghosts (the TMA loaders' zero fill): the same bits as the fill and the pass, in's ghosts
// left as they were (garbage here, so that reading one would show); -0 takes the fill.
template <class T>
void zero_ghosts(const Extent& n, const Stencil& s, std::uint64_t seed) {
  const std::string what = s.describe() + " " + n.str() + " " + to_string(precision_of<T>);
  Field<T> in(n);
  test::poison(in);  // ghosts 0xA5 bytes
  test::fill_random(in, seed, -2.0, 3.0);
  Field<T> din(n, in.ghost(), Memory::device), filled(n, in.ghost(), Memory::device);
  copy(in, din);
  copy(in, filled);
  Field<T> reference(n, in.ghost());
  copy(in, reference);
  fill_ghosts(reference, Boundary::dirichlet(0.0), s.radius());
  const Field<T> got = check_device_pass<T>(
      s, reference, din, 1, [&](Field<T>& i, Field<T>& o) { apply(s, i, o, Boundary::dirichlet(0.0)); },
      what + " dirichlet 0");
  const Field<T> want = check_device_pass<T>(
      s, reference, filled, 1,
      [&](Field<T>& i, Field<T>& o) {
        fill_ghosts(i, Boundary::dirichlet(0.0), s.radius());
        apply_interior(s, i, o);
      },
      what + " fill then pass");
  EXPECT_EQ(test::interior_bit_diffs(want, got), "") << what << ": against the fill and the pass";
  Field<T> back(n, in.ghost());
  copy(din, back);
  EXPECT_EQ(std::memcmp(back.data(), in.data(), in.layout().bytes()), 0)
      << what << ": in's ghosts or interior were written";
  // -0 is filled: a ghost of -0 and one of +0 can give sums of different signs.
  Field<T> negative(n, in.ghost());
  copy(in, negative);
  fill_ghosts(negative, Boundary::dirichlet(-0.0), s.radius());
  check_device_pass<T>(s, negative, din, 1,
                       [&](Field<T>& i, Field<T>& o) { apply(s, i, o, Boundary::dirichlet(-0.0)); },
                       what + " dirichlet -0");
  copy(din, back);
  EXPECT_EQ(test::outside_interior_diffs(back, negative), 0u) << what << ": -0 was not filled";
}

TEST(StencilCuda, DirichletZeroReadsZerosBeyondTheInteriorWithoutItsGhosts) {
  REQUIRE_GPU();
  std::uint64_t seed = 900;
  std::vector<Extent> shapes = test_shapes();
  shapes.push_back({129, 33, 2});
  for (const Extent& n : shapes) {
    for (int r = 1; r <= 4; ++r, seed += 2) {
      zero_ghosts<float>(n, test::random_stencil(StencilKind::star, r, seed), seed);
      zero_ghosts<double>(n, test::random_stencil(StencilKind::star, r, seed + 1), seed + 1);
    }
    for (StencilKind k : {StencilKind::sym27, StencilKind::box27}) {
      seed += 2;
      zero_ghosts<float>(n, test::random_stencil(k, 1, seed), seed);
      zero_ghosts<double>(n, test::random_stencil(k, 1, seed + 1), seed + 1);
    }
  }
}

#if STRATA_HAVE_CUDA
// Every compiled implementation (every tuning candidate of every family and, in lab builds,
// every tile configuration) against the CPU reference, and bit for bit against the policy's
// output on the same input: the shape tuning picks never changes a result.
template <class T>
void every_impl() {
  for (const char* kernel :
       {"copy", "copy_halo", "7pt", "star2", "star3", "star4", "sym27", "box27"}) {
    const std::string k = kernel;
    const bool copy_kernel = k == "copy" || k == "copy_halo";
    const Stencil s = copy_kernel    ? Stencil::star(1, std::vector<double>{1.0, 0.0})
                      : k == "sym27" ? test::random_stencil(StencilKind::sym27, 1, 3)
                      : k == "box27"
                          ? test::random_stencil(StencilKind::box27, 1, 4)
                          : test::random_stencil(StencilKind::star, k == "7pt" ? 1 : k[4] - '0', 5);
    const auto& policy = cuda::default_impl<T>(k);
    for (const Extent& n : {Extent{1, 1, 1}, Extent{67, 45, 37}, Extent{130, 7, 65}, Extent{129, 33, 2}}) {
      for (int zchunks : {0, 3}) {
        Field<T> in(n);
        test::fill_random(in, 11);
        fill_ghosts(in, Boundary::periodic(), s.radius());
        Field<T> din(n, in.ghost(), Memory::device);
        copy(in, din);
        auto pass = [&](const cuda::StencilImpl<T>& impl) {
          return check_device_pass<T>(
              s, in, din, in.ghost(),
              [&](Field<T>& i, Field<T>& o) { impl.launch(&s, i, o, nullptr, zchunks, {}); },
              k + " " + impl.variant + " " + n.str() + " zchunks " + std::to_string(zchunks) + " " +
                  to_string(precision_of<T>));
        };
        const Field<T> want = pass(policy);
        int shapes = 0;
        for (const auto& impl : cuda::stencil_impls<T>()) {
          if (impl.kernel != k) continue;
          ++shapes;
          if (&impl == &policy) continue;
          EXPECT_EQ(test::interior_bit_diffs(want, pass(impl)), "")
              << k << " " << impl.variant << " against the policy's " << policy.variant << " on "
              << n.str() << " zchunks " << zchunks << " " << to_string(precision_of<T>);
        }
        EXPECT_GE(shapes, 3) << k << ": the tuning candidates are registered";
      }
    }
  }
}

TEST(StencilCuda, EveryImplementationAndZSplitMatchesTheReferenceAndThePolicysBits) {
  REQUIRE_GPU();
  every_impl<float>();
  every_impl<double>();
}
#endif

TEST(StencilCuda, OversizedGridIsRefusedBeforeAllocating) {
  REQUIRE_GPU();
  try {
    Field<double> f({8192, 8192, 8192}, 4, Memory::device);  // > 4 TiB
    FAIL() << "allocated an impossible grid";
  } catch (const Error& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("needs"), std::string::npos) << m;
    EXPECT_NE(m.find("free"), std::string::npos) << m;
  }
}

TEST(StencilCuda, DeviceCopiesRoundTrip) {
  REQUIRE_GPU();
  Field<double> a({33, 7, 5}, 3), b({33, 7, 5}, 3);
  test::fill_random(a, 1);
  Field<double> d1({33, 7, 5}, 3, Memory::device), d2({33, 7, 5}, 1, Memory::device);
  copy(a, d1);
  copy(d1, d2);  // device to device, different layouts
  copy(d2, b);
  for (int z = 0; z < 5; ++z)
    for (int y = 0; y < 7; ++y)
      for (int x = 0; x < 33; ++x) ASSERT_EQ(a(x, y, z), b(x, y, z));
  std::vector<double> dense(33 * 7 * 5);
  d1.store_interior(dense);
  EXPECT_EQ(dense[1], a(1, 0, 0));
}

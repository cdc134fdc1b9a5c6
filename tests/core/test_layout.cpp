// Field layout: alignment rules, index map, zero fill, interior import/export and copies.
#include <gtest/gtest.h>

#include <cstdint>
#include <numeric>

#include "base/ghost_index.hpp"
#include "strata/error.hpp"
#include "strata/device.hpp"
#include "strata/field.hpp"

using namespace strata;

TEST(Layout, RowsStartOn128BytesAndPitchIsAMultipleOf256Bytes) {
  for (std::size_t eb : {4u, 8u})
    for (int g : {0, 1, 4, 7, 16})
      for (int nx : {1, 7, 33, 65, 130, 512}) {
        const Layout L = Layout::make({nx, 3, 2}, g, eb);
        EXPECT_EQ(L.pitch % 32, 0);  // DESIGN.md's contract
        EXPECT_EQ((L.pitch * std::ptrdiff_t(eb)) % 256, 0);
        EXPECT_EQ((L.xoff * std::ptrdiff_t(eb)) % 128, 0);
        EXPECT_LT(L.xoff, g + std::ptrdiff_t(128 / eb));  // the left padding is one 128-byte unit at most
        EXPECT_EQ((L.xoff * eb + L.lead_bytes()) % 256, 0u);
        EXPECT_LT(L.lead_bytes(), 256u);
        EXPECT_EQ(L.xoff, Layout::xoff_for(g, eb));  // the rule estimates use (wave's memory)
        EXPECT_EQ(L.pitch, Layout::pitch_for(nx, g, eb));
        EXPECT_GE(L.xoff, g);
        EXPECT_GE(L.pitch, L.xoff + nx + g);
        for (int z = -g; z < 2 + g; ++z)
          for (int y = -g; y < 3 + g; ++y)
            EXPECT_EQ((L.index(0, y, z) * std::ptrdiff_t(eb)) % 128, 0);
        EXPECT_EQ(L.index(-g, -g, -g), (L.xoff - g));
        EXPECT_EQ(std::size_t(L.index(nx + g - 1, 3 + g - 1, 2 + g - 1)) < L.size, true);
      }
}

// ghost_source against the rules walked one wrap at a time: periodic steps by n, neumann
// reflects about the nearer face until the index lies inside; every ghost depth, short and
// long axes (its short form covers ghosts within n of the axis, the general one the rest).
TEST(GhostSource, MatchesTheRulesWalkedOneWrapAtATime) {
  auto periodic = [](int i, int n) {
    while (i < 0) i += n;
    while (i >= n) i -= n;
    return i;
  };
  auto neumann = [](int i, int n) {
    while (i < 0 || i >= n) i = i < 0 ? -1 - i : 2 * n - 1 - i;
    return i;
  };
  for (int n = 1; n <= 9; ++n)
    for (int i = -5 * n - 3; i < 6 * n + 3; ++i) {
      EXPECT_EQ(ghost_source(BoundaryKind::periodic, i, n), periodic(i, n)) << "periodic " << i << " of " << n;
      EXPECT_EQ(ghost_source(BoundaryKind::neumann, i, n), neumann(i, n)) << "neumann " << i << " of " << n;
    }
}

TEST(Layout, RejectsBadExtentsAndGhosts) {
  EXPECT_THROW(Layout::make({0, 1, 1}, 4, 4), Error);
  EXPECT_THROW(Layout::make({1, -3, 1}, 4, 4), Error);
  EXPECT_THROW(Layout::make({1, 1, 1}, -1, 4), Error);
  EXPECT_THROW(Layout::make({1, 1, 1}, kMaxGhost + 1, 4), Error);
}

// A Field's own allocation puts x = 0 of every row on a 256-byte boundary (an H200 copies
// such rows at 0.93-0.95 of cudaMemcpy, rows 128 bytes past one at 0.85-0.90), with the
// ghosts, the padding and the bytes before index 0 zero.
TEST(Field, RowsOfItsOwnAllocationStartOn256Bytes) {
  auto check = [](auto zero, Extent n, int g) {
    using T = decltype(zero);
    Field<T> f(n, g);
    const Layout& L = f.layout();
    for (int z = -g; z < n.nz + g; ++z)
      for (int y = -g; y < n.ny + g; ++y)
        ASSERT_EQ(reinterpret_cast<std::uintptr_t>(&f(0, y, z)) % 256, 0u)
            << n.str() << " ghost " << g << " row " << y << " plane " << z;
    const unsigned char* before = reinterpret_cast<const unsigned char*>(f.data()) - L.lead_bytes();
    for (std::size_t i = 0; i < L.lead_bytes(); ++i) ASSERT_EQ(before[i], 0u);
    for (std::size_t i = 0; i < L.size; ++i) ASSERT_EQ(f.data()[i], T(0));
  };
  for (int g : {0, 1, 4, 12, 16})
    for (Extent n : {Extent{1, 1, 1}, Extent{33, 5, 3}, Extent{130, 4, 2}, Extent{512, 2, 2}}) {
      check(0.f, n, g);
      check(0.0, n, g);
    }
}

TEST(Field, ZeroFilledAlignedAndRoundTripsTheInterior) {
  Field<double> f({5, 4, 3}, 2);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(f.origin()) % 128, 0u);
  for (std::size_t i = 0; i < f.layout().size; ++i) ASSERT_EQ(f.data()[i], 0.0);
  std::vector<double> dense(60), back(60);
  std::iota(dense.begin(), dense.end(), 1.0);
  f.load_interior(dense);
  EXPECT_EQ(f(0, 0, 0), 1.0);
  EXPECT_EQ(f(1, 0, 0), 2.0);   // x fastest
  EXPECT_EQ(f(0, 1, 0), 6.0);
  EXPECT_EQ(f(0, 0, 1), 21.0);
  EXPECT_EQ(f(-1, 0, 0), 0.0);  // ghosts untouched
  f.store_interior(back);
  EXPECT_EQ(dense, back);
  std::vector<double> wrong(59);
  EXPECT_THROW(f.load_interior(wrong), Error);
}

TEST(Field, CopyBetweenGhostWidthsCopiesTheInterior) {
  Field<float> a({9, 2, 3}, 4), b({9, 2, 3}, 1), c({9, 2, 3}, 4);
  for (int z = 0; z < 3; ++z)
    for (int y = 0; y < 2; ++y)
      for (int x = 0; x < 9; ++x) a(x, y, z) = float(x + 10 * y + 100 * z);
  a(-1, 0, 0) = 7.f;
  copy(a, b);
  EXPECT_EQ(b(8, 1, 2), 218.f);
  EXPECT_EQ(b(-1, 0, 0), 0.f);  // different layouts: interior only
  copy(a, c);
  EXPECT_EQ(c(-1, 0, 0), 7.f);  // same layout: the whole allocation
  Field<float> d({9, 2, 4});
  EXPECT_THROW(copy(a, d), Error);
}

TEST(Field, DeviceFieldWithoutGpuSaysWhy) {
  if (cuda_available()) GTEST_SKIP() << "a GPU is present";
  try {
    Field<float> f({4, 4, 4}, 4, Memory::device);
    FAIL() << "allocated a device field without a GPU";
  } catch (const Error& e) {
    const std::string m = e.what();
    EXPECT_TRUE(m.find("CUDA") != std::string::npos || m.find("GPU") != std::string::npos) << m;
  }
}

// A printed grid size says its order, so it is never mistaken for a NumPy shape (nz, ny, nx).
TEST(Extent, PrintedSizesSayTheirAxisOrder) {
  const Extent n{64, 48, 32};
  EXPECT_EQ(n.str(), "64x48x32 (x,y,z)");
  EXPECT_EQ(n.xyz(), "64x48x32");
  // Messages take it: a copy between extents that differ names both with their order.
  Field<float> a(n), b({64, 48, 30});
  std::string m;
  try {
    copy(a, b);
  } catch (const Error& e) {
    m = e.what();
  }
  EXPECT_NE(m.find("64x48x32 (x,y,z) to 64x48x30 (x,y,z)"), std::string::npos) << m;
}

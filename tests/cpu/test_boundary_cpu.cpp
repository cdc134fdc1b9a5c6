// Ghost fills on the host against the independent np.pad model, for every mode, width,
// precision and awkward axis lengths (1 and 2 need repeated reflection / wrap).
#include <gtest/gtest.h>

#include <cstring>

#include "common/test_util.hpp"
#include "cpu/padded.hpp"
#include "strata/apply.hpp"

using namespace strata;

namespace {

template <class T>
void check_fill(Extent n, int ghost, int width, const Boundary& bc, std::uint64_t seed) {
  Field<T> f(n, ghost);
  test::fill_random(f, seed);
  Field<T> before(n, ghost);
  copy(f, before);
  fill_ghosts(f, bc, width);
  std::size_t bad = 0;
  for (int z = -ghost; z < n.nz + ghost; ++z)
    for (int y = -ghost; y < n.ny + ghost; ++y)
      for (int x = -ghost; x < n.nx + ghost; ++x) {
        const bool in_reach = x >= -width && y >= -width && z >= -width && x < n.nx + width &&
                              y < n.ny + width && z < n.nz + width;
        // Within `width` the np.pad value; beyond it the ghosts must be untouched.
        const T want = in_reach ? test::padded_value(before, bc, x, y, z) : before(x, y, z);
        if (std::memcmp(&f(x, y, z), &want, sizeof(T)) != 0 && ++bad <= 3)
          ADD_FAILURE() << bc.describe() << " " << n.str() << " w=" << width << " at (" << x
                        << "," << y << "," << z << "): " << f(x, y, z) << " != " << want;
      }
  EXPECT_EQ(bad, 0u);
}

}  // namespace

TEST(BoundaryCpu, MatchesNumpyPadOnAwkwardSizes) {
  const int sizes[] = {1, 2, 7, 33, 65};
  std::uint64_t seed = 1;
  for (const Boundary& bc : {Boundary::dirichlet(0.0), Boundary::dirichlet(-2.5), Boundary::neumann(),
                             Boundary::periodic()})
    for (int i = 0; i < 5; ++i) {
      const Extent n{sizes[i], sizes[(i + 2) % 5], sizes[(i + 4) % 5]};  // non-cubic
      for (int width : {1, 3, 4}) {
        check_fill<float>(n, 4, width, bc, ++seed);
        check_fill<double>(n, 4, width, bc, ++seed);
      }
    }
}

TEST(BoundaryCpu, WidthMustFitTheGhostLayers) {
  Field<float> f({3, 3, 3}, 2);
  EXPECT_THROW(fill_ghosts(f, Boundary::neumann(), 3), Error);
  EXPECT_THROW(fill_ghosts(f, Boundary::neumann(), 0), Error);
}

TEST(BoundaryCpu, ParseAcceptsTheDocumentedWordsOnly) {
  EXPECT_EQ(Boundary::parse("neumann"), Boundary::neumann());
  EXPECT_EQ(Boundary::parse("periodic"), Boundary::periodic());
  EXPECT_EQ(Boundary::parse("dirichlet"), Boundary::dirichlet(0));
  EXPECT_EQ(Boundary::parse("dirichlet:-1.5e3"), Boundary::dirichlet(-1500));
  for (const char* bad : {"", "Neumann", "dirichlet:", "dirichlet:abc", "dirichlet:nan", "wrap", "dirichlet:1x"})
    EXPECT_THROW(Boundary::parse(bad), Error) << bad;
}

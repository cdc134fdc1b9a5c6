// The CPU reference: end to end against a brute-force sum over the np.pad model, exactness
// of every Laplacian on polynomials of its order (and failure one degree beyond), and the
// equivalences sym27 == box27, star radius 1 == 7pt.
#include <gtest/gtest.h>

#include <cmath>
#include <optional>
#include <utility>
#include <vector>

#include "common/test_util.hpp"
#include "verify/stencil_check.hpp"
#include "cpu/cpu.hpp"
#include "cpu/padded.hpp"
#include "strata/apply.hpp"

using namespace strata;

namespace {

// out(x,y,z) = sum over the stencil's offsets of weight * np.pad value, in long double.
template <class T>
Field<T> brute_force(const Stencil& s, const Field<T>& in, const Boundary& bc) {
  const Extent n = in.extent();
  Field<T> out(n, in.ghost());
  const int R = s.radius();
  std::vector<std::array<int, 3>> off;
  std::vector<double> w;
  if (s.kind() == StencilKind::star) {
    off.push_back({0, 0, 0});
    w.push_back(s.coeffs()[0]);
    for (int r = 1; r <= R; ++r)
      for (int ax = 0; ax < 3; ++ax)
        for (int sign : {-1, 1}) {
          std::array<int, 3> o{0, 0, 0};
          o[ax] = sign * r;
          off.push_back(o);
          w.push_back(s.coeffs()[r]);
        }
  } else {
    const auto k = s.as_box27();
    for (int i = 0; i < 27; ++i) {
      off.push_back({i % 3 - 1, (i / 3) % 3 - 1, i / 9 - 1});
      w.push_back(k[i]);
    }
  }
  for (int z = 0; z < n.nz; ++z)
    for (int y = 0; y < n.ny; ++y)
      for (int x = 0; x < n.nx; ++x) {
        long double acc = 0;
        for (std::size_t i = 0; i < off.size(); ++i)
          acc += (long double)w[i] *
                 test::padded_value(in, bc, x + off[i][0], y + off[i][1], z + off[i][2]);
        out(x, y, z) = T(acc);
      }
  return out;
}

template <class T>
void check_against_brute_force(Extent n, const Stencil& s, const Boundary& bc, std::uint64_t seed) {
  Field<T> in(n), out(n), keep(n);
  test::fill_random(in, seed);
  copy(in, keep);  // interior only matters: ghosts are overwritten by apply
  apply(s, in, out, bc);
  const Field<T> want = brute_force(s, keep, bc);
  Field<T> abs_in(n);
  fill_ghosts(in, bc, s.radius());
  for (std::size_t i = 0; i < in.layout().size; ++i) abs_in.data()[i] = std::fabs(in.data()[i]);
  Field<T> mag(n);
  apply_interior(cpu::Tag{}, verify::abs_stencil(s), abs_in, mag);
  const auto m = verify::compare(out, want, mag, verify::terms_of(s));
  EXPECT_TRUE(m.ok()) << s.describe() << " " << bc.describe() << " " << n.str() << ": " << m.str();
}

}  // namespace

TEST(StencilCpu, EveryKindMatchesBruteForceWithEveryBoundary) {
  const Extent shapes[] = {{1, 1, 1}, {7, 2, 33}, {33, 7, 1}, {2, 65, 7}, {9, 10, 11}};
  std::uint64_t seed = 100;
  for (const Extent& n : shapes)
    for (const Boundary& bc : {Boundary::dirichlet(0.75), Boundary::neumann(), Boundary::periodic()}) {
      for (int r = 1; r <= 4; ++r) {
        seed += 2;
        check_against_brute_force<float>(n, test::random_stencil(StencilKind::star, r, seed), bc, seed);
        check_against_brute_force<double>(n, test::random_stencil(StencilKind::star, r, seed + 1), bc, seed + 1);
      }
      for (StencilKind k : {StencilKind::sym27, StencilKind::box27}) {
        seed += 2;
        check_against_brute_force<float>(n, test::random_stencil(k, 1, seed), bc, seed);
        check_against_brute_force<double>(n, test::random_stencil(k, 1, seed + 1), bc, seed + 1);
      }
    }
}

TEST(StencilCpu, LaplaciansAreExactOnPolynomialsOfTheirOrder) {
  for (int order : {2, 4, 6, 8}) {
    const double h = 1.0 / 24;
    const Stencil s = Stencil::laplacian(order, h);
    const Extent n{24, 17, 13};
    const auto m32 = verify::laplacian_exactness<float>(s, order + 1, n, h, Memory::host);
    const auto m64 = verify::laplacian_exactness<double>(s, order + 1, n, h, Memory::host);
    EXPECT_TRUE(m32.ok()) << order << ": " << m32.str();
    EXPECT_TRUE(m64.ok()) << order << ": " << m64.str();
    // One degree more and the truncation error shows: the check can fail.
    const auto beyond = verify::laplacian_exactness<double>(s, order + 2, n, h, Memory::host);
    EXPECT_FALSE(beyond.ok()) << "order " << order << " looks exact on degree " << order + 2;
  }
  // The finite-element Laplacian (sym27's default): the same sign, exact on cubics.
  const double h = 1.0 / 24;
  const Extent n{24, 17, 13};
  const auto fe = verify::laplacian_exactness<double>(Stencil::fe27(h), 3, n, h, Memory::host);
  EXPECT_TRUE(fe.ok()) << "fe27: " << fe.str();
  EXPECT_FALSE(verify::laplacian_exactness<double>(Stencil::fe27(h), 4, n, h, Memory::host).ok());
}

// One sign convention: every default stencil, as the CLI and Python build it (Stencil::named),
// gives +Lap(u) where it is exact: +2 on x^2, y^2 and z^2, 0 on xy, yz and xz, 2 + 2 - 4 on
// a mixed quadratic, at the grid spacing asked for. (sym27 gave -2: the opposite sign.)
TEST(StencilCpu, EveryDefaultStencilGivesPlusTheLaplacianOnQuadratics) {
  struct Quadratic {
    const char* name;
    double xx, yy, zz, xy, yz, xz;  // p = xx x^2 + yy y^2 + zz z^2 + xy x y + yz y z + xz x z
    double laplacian() const { return 2 * (xx + yy + zz); }
  };
  const Quadratic polys[] = {{"x^2", 1, 0, 0, 0, 0, 0}, {"y^2", 0, 1, 0, 0, 0, 0}, {"z^2", 0, 0, 1, 0, 0, 0},
                             {"xy", 0, 0, 0, 1, 0, 0},  {"yz", 0, 0, 0, 0, 1, 0},  {"xz", 0, 0, 0, 0, 0, 1},
                             {"x^2 + y^2 - 2 z^2 + 3xy - yz", 1, 1, -2, 3, -1, 0}};
  const Extent n{11, 9, 7};
  for (const double h : {1.0, 0.25})
    for (const auto& [kind, radius] : std::vector<std::pair<const char*, int>>{
             {"7pt", 1}, {"star", 1}, {"star", 2}, {"star", 3}, {"star", 4}, {"sym27", 1}}) {
      const Stencil s = Stencil::named(kind, radius, std::nullopt, h);
      for (const Quadratic& p : polys) {
        Field<double> u(n, s.radius()), out(n, s.radius());
        const int g = s.radius();
        for (int z = -g; z < n.nz + g; ++z)
          for (int y = -g; y < n.ny + g; ++y)
            for (int x = -g; x < n.nx + g; ++x) {
              const double X = x * h, Y = y * h, Z = z * h;
              u(x, y, z) = p.xx * X * X + p.yy * Y * Y + p.zz * Z * Z + p.xy * X * Y + p.yz * Y * Z + p.xz * X * Z;
            }
        apply_interior(s, u, out);
        double worst = 0;
        for (int z = 0; z < n.nz; ++z)
          for (int y = 0; y < n.ny; ++y)
            for (int x = 0; x < n.nx; ++x) worst = std::max(worst, std::fabs(out(x, y, z) - p.laplacian()));
        EXPECT_LT(worst, 1e-9) << s.describe() << " on " << p.name << " at h = " << h << ": want "
                               << p.laplacian() << ", got " << out(0, 0, 0);
      }
    }
}

TEST(StencilCpu, Sym27EqualsBox27WithTheSame27Weights) {
  const Extent n{13, 8, 5};
  Field<double> in(n), a(n), b(n);
  test::fill_random(in, 7);
  fill_ghosts(in, Boundary::periodic(), 1);
  const Stencil sym = Stencil::sym27(1.3, -0.7, 0.21, -0.05);
  std::vector<double> k(27);
  for (int dz = -1; dz <= 1; ++dz)
    for (int dy = -1; dy <= 1; ++dy)
      for (int dx = -1; dx <= 1; ++dx) {
        const int far = (dx != 0) + (dy != 0) + (dz != 0);
        k[(dz + 1) * 9 + (dy + 1) * 3 + dx + 1] = std::array<double, 4>{1.3, -0.7, 0.21, -0.05}[far];
      }
  apply_interior(sym, in, a);
  apply_interior(Stencil::box27(k), in, b);
  for (int z = 0; z < n.nz; ++z)
    for (int y = 0; y < n.ny; ++y)
      for (int x = 0; x < n.nx; ++x) ASSERT_NEAR(a(x, y, z), b(x, y, z), 1e-14);
}

TEST(StencilCpu, StarRadiusOneIs7Point) {
  const Extent n{6, 5, 4};
  Field<float> in(n), a(n), b(n);
  test::fill_random(in, 9);
  fill_ghosts(in, Boundary::neumann(), 1);
  const double c[] = {-5.5, 0.8};
  apply_interior(Stencil::star(1, c), in, a);
  apply_interior(Stencil::from_name("7pt", 1, c), in, b);
  for (int z = 0; z < n.nz; ++z)
    for (int y = 0; y < n.ny; ++y)
      for (int x = 0; x < n.nx; ++x) ASSERT_EQ(a(x, y, z), b(x, y, z));
}

TEST(StencilCpu, ApplyRejectsBadPairs) {
  Field<float> a({4, 4, 4}, 1), b({4, 4, 4}, 1), c({4, 4, 5}, 1);
  EXPECT_THROW(apply(Stencil::laplacian(4), a, b, Boundary::neumann()), Error);  // ghost 1 < radius 2
  EXPECT_THROW(apply(Stencil::laplacian7(), a, a, Boundary::neumann()), Error);  // aliasing
  EXPECT_THROW(apply(Stencil::laplacian7(), a, c, Boundary::neumann()), Error);  // extents
}

TEST(StencilCpu, OutputGhostsAndPaddingAreUntouched) {
  const Extent n{7, 5, 3};
  Field<double> in(n), out(n), before(n);
  test::fill_random(in, 3);
  test::poison(out);
  copy(out, before);
  apply(Stencil::laplacian(8), in, out, Boundary::periodic());
  EXPECT_EQ(test::outside_interior_diffs(out, before), 0u);
}

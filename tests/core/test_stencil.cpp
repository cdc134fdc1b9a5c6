// Stencil specification: validation messages, named constructors, the box27 view.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "strata/error.hpp"
#include "strata/stencil.hpp"

using namespace strata;

namespace {
template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}
}  // namespace

TEST(Stencil, StarValidatesRadiusCountAndFiniteness) {
  const double c2[] = {1, 2}, c3[] = {1, 2, 3}, c6[] = {1, 2, 3, 4, 5, 6};
  EXPECT_NO_THROW(Stencil::star(1, c2));
  EXPECT_NE(error_of([&] { Stencil::star(0, c2); }).find("allowed 1..4"), std::string::npos);
  EXPECT_NE(error_of([&] { Stencil::star(5, c6); }).find("allowed 1..4"), std::string::npos);
  EXPECT_NE(error_of([&] { Stencil::star(1, c3); }).find("takes 2 coefficients"), std::string::npos);
  const double bad[] = {1, std::numeric_limits<double>::quiet_NaN()};
  EXPECT_NE(error_of([&] { Stencil::star(1, bad); }).find("finite"), std::string::npos);
  const double inf[] = {std::numeric_limits<double>::infinity(), 1};
  EXPECT_NE(error_of([&] { Stencil::star(1, inf); }).find("coefficient 0"), std::string::npos);
}

TEST(Stencil, FromNameChecksKindRadiusAndCount) {
  const double c4[] = {1, 2, 3, 4};
  EXPECT_EQ(Stencil::from_name("sym27", 1, c4).kind(), StencilKind::sym27);
  EXPECT_NE(error_of([&] { Stencil::from_name("9pt", 1, c4); }).find("unknown stencil"), std::string::npos);
  EXPECT_NE(error_of([&] { Stencil::from_name("box27", 1, c4); }).find("27 coefficients"), std::string::npos);
  EXPECT_NE(error_of([&] { Stencil::from_name("7pt", 2, c4); }).find("radius"), std::string::npos);
  EXPECT_NE(error_of([&] { Stencil::from_name("sym27", 1, std::span<const double>(c4, 3)); }).find("4 coefficients"),
            std::string::npos);
}

TEST(Stencil, LaplacianCoefficientsSumToZeroAndScaleWithH) {
  for (int order : {2, 4, 6, 8}) {
    const Stencil s = Stencil::laplacian(order, 0.5);
    ASSERT_EQ(s.radius(), order / 2);
    double sum = s.coeffs()[0];
    for (int r = 1; r <= s.radius(); ++r) sum += 6 * s.coeffs()[r];
    EXPECT_NEAR(sum, 0.0, 1e-12) << order;  // constants are in the null space
    // second moment: sum_r c_r * 2 r^2 per axis = 2 (d2/dx2 of x^2), scaled by 1/h^2
    double m2 = 0;
    for (int r = 1; r <= s.radius(); ++r) m2 += s.coeffs()[r] * 2 * r * r;
    EXPECT_NEAR(m2, 2.0 / 0.25, 1e-12) << order;
  }
  EXPECT_THROW(Stencil::laplacian(3), Error);
  EXPECT_THROW(Stencil::laplacian(2, 0.0), Error);
  EXPECT_THROW(Stencil::laplacian(2, std::nan("")), Error);
}

TEST(Stencil, FeStencilIsThePapers) {
  const Stencil s = Stencil::fe27();
  ASSERT_EQ(s.kind(), StencilKind::sym27);
  EXPECT_DOUBLE_EQ(s.coeffs()[0], 8.0 / 3);
  EXPECT_DOUBLE_EQ(s.coeffs()[1], 0.0);
  EXPECT_DOUBLE_EQ(s.coeffs()[2], -1.0 / 6);
  EXPECT_DOUBLE_EQ(s.coeffs()[3], -1.0 / 12);
  // row sum: 8/3 + 12*(-1/6) + 8*(-1/12) = 0
  EXPECT_NEAR(s.coeffs()[0] + 6 * s.coeffs()[1] + 12 * s.coeffs()[2] + 8 * s.coeffs()[3], 0, 1e-15);
}

TEST(Stencil, AsBox27PlacesEveryCoefficient) {
  const Stencil s = Stencil::sym27(1, 2, 3, 4);
  const auto k = s.as_box27();
  EXPECT_EQ(k[13], 1);                 // centre
  EXPECT_EQ(k[4], 2);                  // (dz=-1, dy=0, dx=0): face
  EXPECT_EQ(k[1], 3);                  // (dz=-1, dy=-1, dx=0): edge
  EXPECT_EQ(k[0], 4);                  // corner
  EXPECT_EQ(k[26], 4);
  const double c[] = {5, 6};
  const auto k7 = Stencil::star(1, c).as_box27();
  EXPECT_EQ(k7[13], 5);
  EXPECT_EQ(k7[12], 6);
  EXPECT_EQ(k7[0], 0);
  const double c3[] = {1, 2, 3};
  EXPECT_THROW(Stencil::star(2, c3).as_box27(), Error);
}

TEST(Stencil, NamesAndDescriptions) {
  EXPECT_EQ(Stencil::laplacian7().name(), "7pt");
  EXPECT_EQ(Stencil::laplacian(8).name(), "star4");
  EXPECT_EQ(Stencil::fe27().name(), "sym27");
  EXPECT_NE(Stencil::laplacian7().describe().find("7pt ["), std::string::npos);
}

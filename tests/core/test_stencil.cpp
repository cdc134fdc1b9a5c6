// Stencil specification: validation messages, named constructors, the box27 view.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <string>

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

// +Laplacian, as laplacian(): minus the paper's stiffness stencil 8/3, 0, -1/6, -1/12, over h^2.
TEST(Stencil, FeStencilIsMinusThePapersOverHSquared) {
  const Stencil s = Stencil::fe27();
  ASSERT_EQ(s.kind(), StencilKind::sym27);
  EXPECT_EQ(s.coeffs()[0], -(8.0 / 3));  // exactly the negation: results are the old ones negated, bit for bit
  EXPECT_EQ(s.coeffs()[1], 0.0);
  EXPECT_EQ(s.coeffs()[2], 1.0 / 6);
  EXPECT_EQ(s.coeffs()[3], 1.0 / 12);
  // row sum: -8/3 + 12/6 + 8/12 = 0
  EXPECT_NEAR(s.coeffs()[0] + 6 * s.coeffs()[1] + 12 * s.coeffs()[2] + 8 * s.coeffs()[3], 0, 1e-15);
  const Stencil half = Stencil::fe27(0.5);
  for (int i = 0; i < 4; ++i) EXPECT_DOUBLE_EQ(half.coeffs()[i], 4 * s.coeffs()[i]) << i;
  EXPECT_THROW(Stencil::fe27(0.0), Error);
}

// One sign for every default: the centre weight is negative (+Lap), as laplacian(2)'s -6.
TEST(Stencil, EveryDefaultIsPlusLaplacianWithANegativeCentre) {
  for (const char* kind : {"7pt", "star", "sym27"})
    for (int radius = 1; radius <= (std::string(kind) == "star" ? 4 : 1); ++radius) {
      const Stencil s = Stencil::named(kind, radius, std::nullopt);
      EXPECT_LT(s.coeffs()[0], 0) << s.describe();
      const Stencil h2 = Stencil::named(kind, radius, std::nullopt, 0.25);
      EXPECT_DOUBLE_EQ(h2.coeffs()[0], 16 * s.coeffs()[0]) << "1/h^2 with h = 0.25: " << h2.describe();
    }
}

TEST(Stencil, NamedTakesDefaultsOrCoefficientsAndRefusesWhatItCannotMean) {
  const double c2[] = {-6, 1};
  EXPECT_EQ(Stencil::named("7pt", 0, c2).coeffs()[0], -6);
  EXPECT_EQ(Stencil::named("star", 3, std::nullopt).radius(), 3);
  EXPECT_EQ(Stencil::named("star", 0, std::nullopt).radius(), 1);  // radius 0: the kind's own
  EXPECT_NE(error_of([&] { Stencil::named("7pt", 1, c2, 0.5); }).find("default Laplacians only"), std::string::npos);
  EXPECT_NE(error_of([] { Stencil::named("box27", 1, std::nullopt); }).find("27 coefficients"), std::string::npos);
  EXPECT_NE(error_of([] { Stencil::named("7pt", 2, std::nullopt); }).find("radius"), std::string::npos);
  EXPECT_NE(error_of([] { Stencil::named("star", 5, std::nullopt); }).find("allowed 1..4"), std::string::npos);
  // "starR" (Python's word, the CLI's too) is "star" of radius R, defaults and coefficients alike.
  for (int r = 1; r <= 4; ++r) {
    const std::string word = "star" + std::to_string(r);
    const Stencil a = Stencil::named(word, 0, std::nullopt, 0.5), b = Stencil::named("star", r, std::nullopt, 0.5);
    EXPECT_EQ(a.radius(), r);
    EXPECT_TRUE(std::equal(a.coeffs().begin(), a.coeffs().end(), b.coeffs().begin(), b.coeffs().end())) << word;
    EXPECT_EQ(Stencil::named(word, r, std::nullopt).radius(), r);  // the same radius given is fine
    EXPECT_NE(error_of([&] { Stencil::named(word, r % 4 + 1, std::nullopt); }).find("has radius " + std::to_string(r)),
              std::string::npos);
  }
  for (const char* bad : {"star0", "star5", "star12", "STAR2"})
    EXPECT_NE(error_of([&] { Stencil::named(bad, 0, std::nullopt); }).find("unknown stencil"), std::string::npos)
        << bad;
  EXPECT_NE(error_of([] { Stencil::named("sym27", 2, std::nullopt); }).find("radius 1"), std::string::npos);
  EXPECT_NE(error_of([] { Stencil::named("9pt", 1, std::nullopt); }).find("unknown stencil"), std::string::npos);
  EXPECT_NE(error_of([] { Stencil::named("7pt", 1, std::nullopt, -1); }).find("spacing"), std::string::npos);
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

// Coefficients print with the digits that matter: the shortest text that reads back as the
// same double, never 6 fixed digits (1/3 -> 0.333333) nor 17 (0.1 -> 0.10000000000000001).
TEST(Stencil, DescriptionsPrintTheShortestRoundTrip) {
  const double c[] = {-0.6, 0.1};
  EXPECT_EQ(Stencil::star(1, c).describe(), "7pt [-0.6,0.1]");
  EXPECT_EQ(Stencil::fe27().describe(), "sym27 [-2.6666666666666665,0,0.16666666666666666,0.08333333333333333]");
  for (double v : {1.0 / 3, 0.1, 2.5e-300, 1e38, -7.0})
    EXPECT_EQ(std::stod(format_number(v)), v) << format_number(v);
  EXPECT_EQ(format_number(1.0 / 3), "0.3333333333333333");
  EXPECT_EQ(format_number(-7.0), "-7");
}

// Stencil construction and validation; nothing here depends on a backend.
#include <cmath>
#include <sstream>

#include "strata/error.hpp"
#include "strata/stencil.hpp"

namespace strata {

std::string_view to_string(StencilKind kind) {
  switch (kind) {
    case StencilKind::star: return "star";
    case StencilKind::sym27: return "sym27";
    case StencilKind::box27: return "box27";
  }
  return "?";
}

namespace {
void require_finite(std::span<const double> c, std::string_view what) {
  for (std::size_t i = 0; i < c.size(); ++i)
    if (!std::isfinite(c[i])) {
      std::ostringstream m;
      m << what << " coefficient " << i << " is " << c[i]
        << ": every coefficient must be a finite number";
      throw Error(m.str());
    }
}
}  // namespace

Stencil::Stencil(StencilKind kind, int radius, std::vector<double> coeffs)
    : kind_(kind), radius_(radius), coeffs_(std::move(coeffs)) {}

Stencil Stencil::star(int radius, std::span<const double> c) {
  require(radius >= 1 && radius <= kMaxRadius,
          "star radius " + std::to_string(radius) + " is not supported: allowed 1..4");
  require(c.size() == std::size_t(radius) + 1,
          "star of radius " + std::to_string(radius) + " takes " +
              std::to_string(radius + 1) + " coefficients c0..c" + std::to_string(radius) +
              ", got " + std::to_string(c.size()));
  require_finite(c, "star");
  return Stencil(StencilKind::star, radius, {c.begin(), c.end()});
}

Stencil Stencil::sym27(double c0, double c1, double c2, double c3) {
  const double c[4] = {c0, c1, c2, c3};
  require_finite(c, "sym27");
  return Stencil(StencilKind::sym27, 1, {c0, c1, c2, c3});
}

Stencil Stencil::box27(std::span<const double> k) {
  require(k.size() == 27, "box27 takes 27 coefficients K[dz+1][dy+1][dx+1] in C order, got " +
                              std::to_string(k.size()));
  require_finite(k, "box27");
  return Stencil(StencilKind::box27, 1, {k.begin(), k.end()});
}

Stencil Stencil::from_name(std::string_view kind, int radius, std::span<const double> c) {
  if (kind == "7pt") {
    require(radius == 1, "7pt is the radius-1 star: --radius must be 1 (or omitted), got " +
                             std::to_string(radius));
    return star(1, c);
  }
  if (kind == "star") return star(radius, c);
  if (kind == "sym27" || kind == "box27") {
    require(radius == 1, std::string(kind) + " has radius 1: --radius must be 1 (or omitted), got " +
                             std::to_string(radius));
    if (kind == "box27") return box27(c);
    require(c.size() == 4, "sym27 takes 4 coefficients c0 (centre), c1 (faces), c2 (edges), "
                           "c3 (corners), got " + std::to_string(c.size()));
    return sym27(c[0], c[1], c[2], c[3]);
  }
  throw Error("unknown stencil '" + std::string(kind) +
              "': allowed 7pt, star (or star1..star4), sym27, box27");
}

Stencil Stencil::named(std::string_view kind, int radius,
                       std::optional<std::span<const double>> coeffs, double h) {
  require(std::isfinite(h) && h > 0, "grid spacing h must be a positive finite number");
  // "star1".."star4" (Python's words) is the star of that radius: one spelling policy.
  if (kind.size() == 5 && kind.substr(0, 4) == "star" && kind[4] >= '1' && kind[4] <= '4') {
    const int r = kind[4] - '0';
    require(radius == 0 || radius == r, std::string(kind) + " has radius " + std::to_string(r) +
                                            ": --radius must be " + std::to_string(r) +
                                            " (or omitted), got " + std::to_string(radius));
    kind = "star";
    radius = r;
  }
  if (radius == 0) radius = 1;
  if (coeffs) {
    require(h == 1,
            "the grid spacing scales the default Laplacians only: with coefficients given, put "
            "the 1/h^2 into them (or leave the spacing at 1)");
    return from_name(kind, radius, *coeffs);
  }
  if (kind == "box27")
    throw Error("box27 has no default: give its 27 coefficients K[dz+1][dy+1][dx+1] in C order "
                "(--coeffs, coeffs=)");
  if (kind == "sym27" && radius == 1) return fe27(h);
  if (kind == "7pt" && radius == 1) return laplacian(2, h);
  if (kind == "star") {
    require(radius >= 1 && radius <= kMaxRadius,
            "star radius " + std::to_string(radius) + " is not supported: allowed 1..4");
    return laplacian(2 * radius, h);
  }
  return from_name(kind, radius, {});  // the same message for a bad kind or radius
}

Stencil Stencil::laplacian(int order, double h) {
  require(order == 2 || order == 4 || order == 6 || order == 8,
          "Laplacian order " + std::to_string(order) + " is not supported: allowed 2, 4, 6, 8");
  require(std::isfinite(h) && h > 0, "grid spacing h must be a positive finite number");
  // Central differences for d2/dx2; the 3D Laplacian sums three axes at the centre.
  static const std::vector<double> a[4] = {
      {-2.0, 1.0},
      {-5.0 / 2, 4.0 / 3, -1.0 / 12},
      {-49.0 / 18, 3.0 / 2, -3.0 / 20, 1.0 / 90},
      {-205.0 / 72, 8.0 / 5, -1.0 / 5, 8.0 / 315, -1.0 / 560}};
  std::vector<double> c = a[order / 2 - 1];
  const double s = 1.0 / (h * h);
  c[0] *= 3.0;
  for (double& v : c) v *= s;
  return star(order / 2, c);
}

Stencil Stencil::fe27(double h) {
  require(std::isfinite(h) && h > 0, "grid spacing h must be a positive finite number");
  const double s = 1.0 / (h * h);
  return sym27(-8.0 / 3 * s, 0.0, 1.0 / 6 * s, 1.0 / 12 * s);
}

std::array<double, 27> Stencil::as_box27() const {
  std::array<double, 27> k{};
  if (kind_ == StencilKind::box27) {
    std::copy(coeffs_.begin(), coeffs_.end(), k.begin());
    return k;
  }
  require(kind_ == StencilKind::sym27 || radius_ == 1,
          "as_box27: a star of radius " + std::to_string(radius_) + " is not a 3x3x3 stencil");
  for (int dz = -1; dz <= 1; ++dz)
    for (int dy = -1; dy <= 1; ++dy)
      for (int dx = -1; dx <= 1; ++dx) {
        const int far = std::abs(dx) + std::abs(dy) + std::abs(dz);  // 0 centre .. 3 corner
        double v = 0;
        if (kind_ == StencilKind::sym27)
          v = coeffs_[far];
        else if (far <= 1)
          v = coeffs_[far];
        k[(dz + 1) * 9 + (dy + 1) * 3 + (dx + 1)] = v;
      }
  return k;
}

int Stencil::flops_per_point() const {
  switch (kind_) {
    case StencilKind::star: return 1 + 7 * radius_;  // c0*u + per ring: 5 adds, 1 mul, 1 add
    case StencilKind::sym27: return 18;               // with common subexpressions (paper)
    case StencilKind::box27: return 53;               // 27 mul + 26 add
  }
  return 0;
}

std::string Stencil::name() const {
  if (kind_ == StencilKind::star) return radius_ == 1 ? "7pt" : "star" + std::to_string(radius_);
  return std::string(to_string(kind_));
}

std::string Stencil::describe() const {
  std::string s = name() + " [";
  for (std::size_t i = 0; i < coeffs_.size(); ++i) {
    if (i) s += ',';  // appended, not "," + ...: GCC 12 flags that with a bogus -Wrestrict
    s += format_number(coeffs_[i]);
  }
  return s + "]";
}

}  // namespace strata

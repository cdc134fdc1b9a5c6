// Stencil: what a pass computes at each interior point. Three families, each a
// validated set of coefficients; the kernels are specialised per family and radius.
//   star  radius R (1..4), R+1 coefficients: out = c0*u + sum_r c_r * (6 neighbours at r)
//   sym27 c0 centre, c1 6 faces, c2 12 edges, c3 8 corners of the 3x3x3 box
//   box27 27 coefficients K[dz+1][dy+1][dx+1] (C order): out = sum K * u(x+dx,y+dy,z+dz)
// Sign: every default Laplacian here (laplacian, fe27, and so the defaults of the CLI's and
// Python's 7pt, star and sym27) approximates +Lap(u) = u_xx + u_yy + u_zz (negative centre):
// on u = x^2 it gives +2. The Poisson operators are A = -Lap (poisson_stencil, poisson.hpp).
#pragma once

#include <array>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace strata {

enum class StencilKind { star, sym27, box27 };

class Stencil {
public:
  static constexpr int kMaxRadius = 4;

  // Each throws Error for a radius outside 1..4, a wrong coefficient count, or a
  // coefficient that is not finite.
  static Stencil star(int radius, std::span<const double> coeffs);
  static Stencil sym27(double c0, double c1, double c2, double c3);
  static Stencil box27(std::span<const double> k27);
  // Build from the CLI's words: kind "7pt" (star radius 1), "star", "sym27", "box27".
  static Stencil from_name(std::string_view kind, int radius, std::span<const double> coeffs);
  // What the CLI (--stencil, --radius, --coeffs, --spacing) and strata.apply (stencil, coeffs,
  // h) name; "star1".."star4" is "star" of that radius. radius 0: 1. With coefficients, from_name (and h must be 1: it scales only the
  // defaults). Without (nullopt), the kind's default, +Lap at spacing h: laplacian(2 radius,
  // h) for 7pt and star, fe27(h) for sym27; box27 has none (Error).
  static Stencil named(std::string_view kind, int radius,
                       std::optional<std::span<const double>> coeffs, double h = 1.0);

  // Central-difference +Laplacian of order 2, 4, 6 or 8 (star radius order/2), spacing h:
  // the unit-spacing coefficients times 1/h^2 (c0 = -6, c1 = 1 for order 2 at h = 1).
  static Stencil laplacian(int order, double h = 1.0);
  static Stencil laplacian7(double h = 1.0) { return laplacian(2, h); }
  // The trilinear finite-element +Laplacian of the paper (sym27: minus the stiffness matrix
  // over the lumped mass h^3): c0 = -8/3, c1 = 0, c2 = 1/6, c3 = 1/12, times 1/h^2.
  static Stencil fe27(double h = 1.0);

  StencilKind kind() const { return kind_; }
  int radius() const { return radius_; }
  std::span<const double> coeffs() const { return coeffs_; }
  // The same stencil as 27 box coefficients (sym27, star radius 1); throws for larger stars.
  std::array<double, 27> as_box27() const;

  // Floating-point operations per point of the reference formula (for reports).
  int flops_per_point() const;
  std::string name() const;      // "7pt", "star4", "sym27", "box27"
  std::string describe() const;  // name and coefficients

private:
  Stencil(StencilKind kind, int radius, std::vector<double> coeffs);
  StencilKind kind_ = StencilKind::star;
  int radius_ = 1;
  std::vector<double> coeffs_;
};

std::string_view to_string(StencilKind kind);

}  // namespace strata

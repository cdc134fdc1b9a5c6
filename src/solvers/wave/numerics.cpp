// Central-difference coefficients (Fornberg's tables), the stability limit and the Ricker
// wavelet. The symbol of the second-derivative stencil is sampled on [0, pi] (k = pi, where
// it peaks for these coefficients, is a sample), so the limit is exact and deterministic.
#include "solvers/wave/numerics.hpp"

#include <cmath>
#include <numbers>

#include "strata/error.hpp"

namespace strata::wave {

namespace {
int index_of(int order) {
  require(order == 2 || order == 4 || order == 6 || order == 8,
          "space order " + std::to_string(order) + " is not supported: allowed 2, 4, 6, 8");
  return order / 2 - 1;
}
}  // namespace

const std::vector<double>& second_derivative_coeffs(int order) {
  static const std::vector<double> a[4] = {
      {-2.0, 1.0},
      {-5.0 / 2, 4.0 / 3, -1.0 / 12},
      {-49.0 / 18, 3.0 / 2, -3.0 / 20, 1.0 / 90},
      {-205.0 / 72, 8.0 / 5, -1.0 / 5, 8.0 / 315, -1.0 / 560}};
  return a[index_of(order)];
}

const std::vector<double>& first_derivative_coeffs(int order) {
  static const std::vector<double> d[4] = {
      {0.0, 1.0 / 2},
      {0.0, 2.0 / 3, -1.0 / 12},
      {0.0, 3.0 / 4, -3.0 / 20, 1.0 / 60},
      {0.0, 4.0 / 5, -1.0 / 5, 4.0 / 105, -1.0 / 280}};
  return d[index_of(order)];
}

double laplacian_lambda_max(int order, double h) {
  const auto& a = second_derivative_coeffs(order);
  constexpr int kSamples = 1024;
  double peak = 0;
  for (int j = 0; j <= kSamples; ++j) {
    const double k = std::numbers::pi * j / kSamples;
    double s = a[0];
    for (std::size_t r = 1; r < a.size(); ++r) s += 2 * a[r] * std::cos(double(r) * k);
    peak = std::max(peak, std::fabs(s));
  }
  return 3.0 * peak / (h * h);
}

double stability_limit(int order, double h, double v_max) {
  return 2.0 / (v_max * std::sqrt(laplacian_lambda_max(order, h)));
}

double ricker(double t, double f, double delay) {
  const double a = std::numbers::pi * f * (t - delay);
  const double a2 = a * a;
  return (1.0 - 2.0 * a2) * std::exp(-a2);
}

double min_points_per_wavelength(int order) {
  switch (order) {
    case 2: return 10.0;
    case 4: return 5.0;
    case 6: return 4.0;
    default: return 3.5;
  }
}

}  // namespace strata::wave

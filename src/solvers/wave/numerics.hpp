// The numbers behind the wave scheme, independent of any backend: central-difference
// coefficients of the first and second derivative, the leapfrog stability limit, the
// Ricker wavelet and the points-per-wavelength rule of thumb per order.
// Pure functions of numbers: no configuration, no backend, no I/O (tests use them directly).
#pragma once

#include <vector>

namespace strata::wave {

// 1D second derivative of order `order` (2, 4, 6, 8) in grid units: a[0] centre, a[r] the
// two points at distance r (a[r] = a[-r]). d2u/dx2 ~ sum_r a[r] u(x + r h) / h^2.
const std::vector<double>& second_derivative_coeffs(int order);
// 1D first derivative: d[0] = 0, du/dx ~ sum_{r>=1} d[r] (u(x + r h) - u(x - r h)) / h.
const std::vector<double>& first_derivative_coeffs(int order);

// Largest eigenvalue of -Lap_h on a 3D grid of spacing h: (3 / h^2) max_k |a0 + 2 sum_r
// a_r cos(r k)|. Leapfrog is stable for dt <= 2 / (v_max sqrt(lambda_max)).
double laplacian_lambda_max(int order, double h);
double stability_limit(int order, double h, double v_max);

// Ricker wavelet of peak frequency f, centred at `delay`.
double ricker(double t, double f, double delay);
// The default delay: 1.5 / f, where the wavelet is 1e-8 of its peak at t = 0.
inline double default_delay(double f) { return 1.5 / f; }

// The highest frequency with significant energy in a Ricker wavelet, and the fewest grid
// points per wavelength at that frequency each order needs before dispersion shows.
inline double ricker_f_max(double f_peak) { return 2.5 * f_peak; }
double min_points_per_wavelength(int order);

}  // namespace strata::wave

// The symbol of the periodic 7-point operator, the mathematics of the spectral Poisson solve
// that both backends' division evaluates (the CUDA kernel in src/cuda/poisson/fft.cu per point, the
// CPU loop in src/cpu/fft.cpp from per-axis tables of the same values): one definition, so
// that both divide by the same numbers in the same precision.
#pragma once

#include <cmath>
#include <numbers>

#include "base/host_device.hpp"

namespace strata::poisson {

// 2 cos(2 pi k / n): one axis's share of the symbol at wave number k of a period of n points.
template <class T>
STRATA_HOST_DEVICE inline T fd7_axis_cosine(int k, int n) {
  return 2 * std::cos(T(2 * std::numbers::pi) * k / n);
}

// The factor that turns f's spectrum into u's at the wave number whose axis shares are cx,
// cy, cz (fd7_axis_cosine): 1 / lambda for A = -Lap_h, lambda = (6 - cx - cy - cz) / h^2
// (inv_h2 = 1 / h^2), times `scale` (the inverse transform's 1 / N, folded in). The mean
// mode (lambda = 0) maps to 0, so u has zero mean.
template <class T>
STRATA_HOST_DEVICE inline T fd7_inverse_gain(T cx, T cy, T cz, T inv_h2, T scale, bool mean) {
  const T lambda = inv_h2 * (T(6) - cx - cy - cz);
  return mean ? T(0) : scale / lambda;
}

}  // namespace strata::poisson

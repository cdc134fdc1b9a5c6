// CPML profiles: quadratic damping, linear frequency shift, recursive-convolution constants.
#include "solvers/wave/cpml.hpp"

#include <cmath>

namespace strata::wave {

CpmlLayer cpml_layer(int width, bool high_side, double h, double dt, double v_max,
                     double reflection, double power, double alpha_max) {
  CpmlLayer L;
  L.width = width;
  L.a.resize(width);
  L.b.resize(width);
  const double thickness = width * h;
  const double d0 = (power + 1) * v_max * std::log(1.0 / reflection) / (2 * thickness);
  for (int i = 0; i < width; ++i) {
    const int k = high_side ? width - 1 - i : i;  // distance order from the domain face
    const double xi = (width - k - 0.5) / width;
    const double d = d0 * std::pow(xi, power);
    const double alpha = alpha_max * (1 - xi);
    const double b = std::exp(-(d + alpha) * dt);
    L.b[i] = b;
    L.a[i] = d + alpha > 0 ? d * (b - 1) / (d + alpha) : 0.0;
  }
  return L;
}

}  // namespace strata::wave

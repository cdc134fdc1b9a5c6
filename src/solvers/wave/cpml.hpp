// Coefficients of the convolutional PML (CPML) memory variables for one absorbing layer:
// the recursive-convolution constants a, b of Roden & Gedney (2000) / Komatitsch & Martin
// (2007) with kappa = 1, per grid point of the layer, for the update psi = b psi + a du.
// Numbers only (no other strata header, no I/O); plan.cpp turns them into PmlFaces.
#pragma once

#include <vector>

namespace strata::wave {

struct CpmlLayer {
  int width = 0;
  std::vector<double> a, b;  // per layer point, in grid order (index 0 = lowest index)
};

// A layer of `width` points on the low (high_side = false) or high side of an axis. The
// layer spans the cells between the domain face and the interface `width` spacings inside;
// point i of the layer sits at normalised depth xi = (width - i - 1/2) / width on the low
// side (mirrored on the high side). Profiles (Collino & Tsogka 2001, Komatitsch & Martin
// 2007): d = d0 xi^power with d0 = (power + 1) v_max ln(1 / reflection) / (2 width h);
// alpha = alpha_max (1 - xi). Then b = exp(-(d + alpha) dt), a = d (b - 1) / (d + alpha).
CpmlLayer cpml_layer(int width, bool high_side, double h, double dt, double v_max,
                     double reflection, double power, double alpha_max);

}  // namespace strata::wave

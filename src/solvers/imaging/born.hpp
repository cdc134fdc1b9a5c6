// The Born (linearised) forward operator: the first-order change of a shot's data for a
// change dm of the squared slowness m = 1 / v^2,
//   du_{n+1} = 2 du_n - du_{n-1} + c2 (Lap du + CPML terms) - v^2 dm (u_{n+1} - 2 u_n + u_{n-1} - S
//   s_n), dd_{n+1} = R du_{n+1},
// u the background field: the derivative of the discrete scheme itself, whose adjoint is the
// misfit gradient's correlation (misfit_gradient with the data as residual), so that least-
// squares RTM can iterate on the pair. Issue 40, item 1.
#pragma once

#include <span>
#include <vector>

#include "backend/wave.hpp"
#include "solvers/imaging/gradient.hpp"
#include "strata/device.hpp"

namespace strata::imaging {

// dd (steps x receivers, the samples after each step) for dm (dense [z][y][x]) about the
// background model `velocity`. Two forward runs side by side (the background and the
// perturbation); the perturbation's source term is added through the backend's state each
// step (on the GPU a copy each way per step: right, not fast). Throws Error for sizes that
// do not match.
template <class T>
std::vector<double> born(const wave::Setup& s, Device device, std::span<const T> velocity,
                         double dt_over_h, const Shot& shot, std::span<const double> dm);

}  // namespace strata::imaging

// One shot's least-squares misfit and its gradient with respect to the squared slowness
// m = 1 / v^2 at every grid point, by the exact discrete adjoint of the wave scheme
// (backend/wave_adjoint.hpp), so that the gradient is that of the computed misfit to
// rounding (the Taylor test shows it). With d_n the receivers' samples after step n and
// lambda_n the adjoint of u_n,
//   J = 1/2 sum_n |d_n - observed_n|^2,
//   dJ/dm = -v^2 sum_n lambda_{n+1} (u_{n+1} - 2 u_n + u_{n-1} - S s_n),
// the zero-lag correlation of the adjoint field with the forward field's second time
// difference (less the injected source), which v^2 (dt/h)^2 (Lap u + CPML terms) equals.
// Issue 40, item 1. Numbers only: no file, nothing printed.
#pragma once

#include <span>
#include <vector>

#include "backend/wave.hpp"
#include "strata/device.hpp"

namespace strata::imaging {

// One shot: what the sources inject and what the receivers recorded.
struct Shot {
  int steps = 0;
  std::vector<double> wavelets;  // steps x sources: the amplitude injected at step n
  std::vector<double> observed;  // steps x receivers: u sampled after step n (empty: zeros)
};

struct Gradient {
  double misfit = 0;                 // J
  std::vector<double> predicted;     // steps x receivers: the model's samples
  std::vector<double> gradient;      // dJ/dm, dense [z][y][x] (empty when not asked)
  std::vector<double> illumination;  // sum_n u_n^2 per point: the source side's energy
};

// The forward run of `shot` through the model (velocity dense [z][y][x], dt / h), and with
// `adjoint` the backward one. The forward field of every step is kept in memory, in T
// (steps + 1 grids): checkpointing (checkpointing.hpp) is the next step of this solver.
// On the GPU the forward field is copied to the host after every step and the adjoint's
// back at each (the correlation is the host's): correct, not fast, until checkpointing keeps
// them on the device. Throws Error for a shot of the wrong sizes, or a forward field that
// would not fit in the host memory available.
template <class T>
Gradient misfit_gradient(const wave::Setup& s, Device device, std::span<const T> velocity,
                         double dt_over_h, const Shot& shot, bool adjoint = true);

}  // namespace strata::imaging

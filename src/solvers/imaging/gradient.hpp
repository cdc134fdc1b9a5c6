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
#include <string>
#include <utility>
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

// How the adjoint run gets the forward states it needs in reverse order: binomial
// checkpointing (checkpointing.hpp) with as many states kept as the budget holds; every step
// is kept, and nothing recomputed, when the budget holds them all.
struct GradientOptions {
  bool adjoint = true;       // false: the forward run and the misfit alone
  double memory_budget = 0;  // bytes for the kept states (0: half the memory free where
                             // the backend keeps them: the host's, or the GPU's own)
  int checkpoints = 0;       // > 0: this many kept states, whatever the budget
  // The adjoint's source: predicted - observed (the misfit's residual), or with `migrate` the
  // negated observed data alone (what migrate() back-propagates).
  bool migrate = false;
  // Instead of checkpoints: keep each step's u on the ring just outside the interior (the
  // absorbing layers' inner `radius` points), then run the forward field backward in time,
  // u_{n-1} = 2 u_n - u_{n+1} + c2 Lap u_n + S s_n (the leapfrog read the other way), the
  // ring put back each step. The interior is right to rounding; inside the absorbing layers
  // the field is not (their damping does not run backward), so the gradient there is zero.
  // 2 S forward steps, (S + 1) rings of memory, kept where the backend keeps its states.
  bool boundary_saving = false;
  // The source side's illumination (sum_n u_n^2 per point, Gradient::illumination): a pass
  // over the field at every forward step and a sum of doubles the grid's size. A gradient for
  // an inversion does not need it: false leaves it empty and skips both (the gradient's bits
  // are the same). migrate() always sums it (its compensated image divides by it).
  bool illumination = true;
  // Where the backend can (the GPU): the imaging condition computed inside a step, not as a
  // pass of its own over the fields. With boundary saving inside the forward field's reversed
  // step (its kernel holds u_{m+1}, u_m and u_{m-1}), with checkpointing inside the adjoint's
  // step back (its kernel holds lambda). The same bits either way; false is for comparing
  // costs.
  bool fused_imaging = true;
  // With boundary saving: whether the reversed steps also update the absorbing layers (their
  // points, psi and zeta) as the forward steps do. Nothing reads them there (the interior's
  // update reads the interior and the ring, and the ring is put back), so by default they are
  // left (Backend::step_without_layers; the same bits); true is for tests and comparing costs.
  bool reversed_step_updates_layers = false;
};

struct Gradient {
  double misfit = 0;                 // J
  std::vector<double> predicted;     // steps x receivers: the model's samples
  std::vector<double> gradient;      // dJ/dm, dense [z][y][x] (empty without the adjoint)
  std::vector<double> illumination;  // sum_n u_n^2 per point: the source side's energy
                                     // (empty when GradientOptions::illumination is false)
  // What the schedule cost: states kept, their bytes, forward steps run in all (the first
  // sweep included) and per adjoint step (the recomputation factor).
  int checkpoints = 0;
  double checkpoint_bytes = 0;  // each kept state (boundary saving: each step's ring)
  long long forward_steps = 0;  // boundary saving: the forward and the backward sweeps
  // Of forward_steps, those whose time is in forward_seconds: all of them, but with the
  // correlation fused into boundary saving's reversed steps, the first sweep's (the backward
  // sweep runs each reversed step beside the adjoint's step back: adjoint_seconds has both).
  long long forward_timed_steps = 0;
  bool boundary_saving = false;  // the strategy that ran
  bool fused_imaging = false;    // the correlation ran inside the steps (fused_imaging above)
  double recomputation = 0;
  // Where the run's wall time went (s): the forward steps (with the illumination's sum), the
  // adjoint actions (injection, correlation, step back; with boundary saving's fused
  // correlation, the whole backward sweep: each reversed step with the correlation on the
  // interior, its rest, and the adjoint's step back beside it), the kept states' copies and
  // trades (each waited for: not in the next step's time), and all of it (set-up included).
  // seconds / (forward_seconds / forward_timed_steps x steps) is the run's cost in forward
  // runs of the shot.
  double forward_seconds = 0, adjoint_seconds = 0, checkpoint_seconds = 0, seconds = 0;
  // Of `seconds`, before the first step (backends, velocity, sums, rings) and after the last
  // (the sums brought back, the gradient formed).
  double setup_seconds = 0, finish_seconds = 0;
  // Of setup_seconds, in order, each with the device work it queued: "ring" (boundary
  // saving's point list), "forward_backend" (fields, velocity, wavelets), "adjoint_backend"
  // (its fields, velocity, sums), "kept_states" or "rings" (their memory), "fused_lists".
  std::vector<std::pair<std::string, double>> setup_parts;
  // Of finish_seconds, in order: the forward run alone "traces" (the seismogram brought
  // back); with the adjoint "correlation" (its sum brought back), "outside_zeroed" (boundary
  // saving: the sums outside the interior and its ring zeroed), "illumination" (brought back,
  // where summed), "gradient" (formed from the correlation); then "released" (the backends'
  // memory given back).
  std::vector<std::pair<std::string, double>> finish_parts;
  // With boundary saving's fused correlation and STRATA_IMAGING_TIMELINE=1 on a GPU: where a
  // backward step's time goes (AdjointBackend::step_timeline's medians, ms); else empty.
  std::vector<std::pair<std::string, double>> step_timeline_ms;
};

// The forward run of `shot` through the model (velocity dense [z][y][x], dt / h) and, with
// the adjoint, the backward one, on `device` (cpu or cuda). The kept states are host copies
// (Backend::save); on the GPU the adjoint's lambda is copied back at each step for the
// correlation: correct, not yet fast. Throws Error for a shot of the wrong sizes, or a
// budget that holds no state (with the least that works).
// Why boundary saving cannot run on this setup ("" : it can): absorbing layers that leave no
// interior along an axis.
std::string boundary_saving_problem(const wave::Setup& s);

template <class T>
Gradient misfit_gradient(const wave::Setup& s, Device device, std::span<const T> velocity,
                         double dt_over_h, const Shot& shot, const GradientOptions& options = {});

// Reverse-time migration of one shot: the recorded reflections d (shot.observed, the data
// with the direct wave removed) back-propagated by the adjoint through the migration model
// and correlated at zero lag with the source side's second time difference,
//   image = sum_n lambda_{n+1}[d] (u_{n+1} - 2 u_n + u_{n-1} - S s_n),
// which is the misfit's gradient over v^2 with d as the residual's negative; and the image
// divided by the source side's illumination (sum_n u_n^2, plus 1e-3 of its largest value
// where it is weak), which evens out the loss of amplitude with depth. A reflector is a
// peak of the image at its depth (tests/cpu/test_imaging_rtm.cpp). options.illumination
// false: neither the illumination (a pass over the wavefield at every forward step) nor the
// compensated image, both left empty; the image the same bits.
struct Image {
  std::vector<double> image, compensated, illumination;  // dense [z][y][x]
  // The misfit run behind it (checkpoints, forward steps, predicted data); its gradient and
  // illumination arrays have moved into image and illumination.
  Gradient run;
};
template <class T>
Image migrate(const wave::Setup& s, Device device, std::span<const T> velocity, double dt_over_h,
              const Shot& shot, const GradientOptions& options = {});

// The illumination-compensated image: image / (illumination + 1e-3 of its largest value),
// point by point (+ 1 where nothing is lit: the image is 0 there too). migrate's, and a
// stack's (the shots' images over their illuminations).
std::vector<double> compensate(std::span<const double> image, std::span<const double> illumination);

}  // namespace strata::imaging

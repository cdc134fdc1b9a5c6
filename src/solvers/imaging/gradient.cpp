// The misfit and its gradient: a forward run that keeps u at every step, then the adjoint
// run backward in time with the residual injected at the receivers, correlating as it goes.
#include "solvers/imaging/gradient.hpp"

#include <string>

#include "backend/wave_adjoint.hpp"
#include "base/host_memory.hpp"
#include "dispatch/backend.hpp"

namespace strata::imaging {

namespace {

Memory memory_of(Device device) {
  if (device == Device::automatic) throw Error("internal: the imaging device must be resolved");
  return device == Device::cpu ? Memory::host : Memory::device;
}

template <class T>
std::unique_ptr<wave::AdjointBackend<T>> make_adjoint(Device device, const wave::Setup& s) {
  return on_backend(
      memory_of(device), [&](auto tag) { return make_wave_adjoint<T>(tag, s); },
      "device \"cuda\": strata was built without CUDA");
}

}  // namespace

template <class T>
Gradient misfit_gradient(const wave::Setup& s, Device device, std::span<const T> velocity,
                         double dt_over_h, const Shot& shot, bool adjoint) {
  const std::size_t points = s.n.points(), ns = s.sources.size(), nr = s.receivers.size();
  const std::size_t steps = std::size_t(shot.steps);
  if (shot.steps < 1) throw Error("a shot needs at least one step");
  if (velocity.size() != points)
    throw Error("the velocity model has " + std::to_string(velocity.size()) +
                " values for a grid of " + std::to_string(points));
  if (shot.wavelets.size() != steps * ns)
    throw Error("the wavelets hold " + std::to_string(shot.wavelets.size()) +
                " values; steps x sources is " + std::to_string(steps * ns));
  if (!shot.observed.empty() && shot.observed.size() != steps * nr)
    throw Error("the observed data hold " + std::to_string(shot.observed.size()) +
                " values; steps x receivers is " + std::to_string(steps * nr));
  if (s.trace_rows < shot.steps + 1)
    throw Error("internal: the setup records fewer rows than the shot's steps");
  const std::size_t kept = adjoint ? steps + 1 : 1;
  host::require_host_memory(
      double(kept) * double(points) * sizeof(T) + 3.0 * double(points) * sizeof(double),
      "the forward field of every step (" + std::to_string(kept) + " grids)");

  // Forward: u_0 = 0, then each step; u after step n is kept as u[n + 1].
  const Memory memory = memory_of(device);
  std::unique_ptr<wave::Backend<T>> fwd = on_backend(
      memory, [&](auto tag) { return make_wave_backend<T>(tag, s); },
      "device \"cuda\": strata was built without CUDA");
  fwd->set_velocity(velocity, dt_over_h);
  if (ns) fwd->set_wavelets(0, shot.steps, shot.wavelets);
  std::vector<T> u(kept * points, T(0));
  const wave::StateSlot u_slot{wave::StateSlot::u, 0};
  Gradient g;
  g.illumination.assign(points, 0.0);
  for (int n = 0; n < shot.steps; ++n) {
    fwd->step(n);
    fwd->record(n + 1);
    T* un = u.data() + (adjoint ? std::size_t(n + 1) * points : 0);
    fwd->read_state(u_slot, 0, points, un);
    for (std::size_t i = 0; i < points; ++i) g.illumination[i] += double(un[i]) * double(un[i]);
  }
  const std::vector<T> rows = fwd->traces(shot.steps + 1);
  g.predicted.assign(rows.begin() + std::ptrdiff_t(nr), rows.end());
  std::vector<double> residual(g.predicted);
  for (std::size_t i = 0; i < residual.size(); ++i) {
    if (!shot.observed.empty()) residual[i] -= shot.observed[i];
    g.misfit += 0.5 * residual[i] * residual[i];
  }
  if (!adjoint) return g;

  // Backward: lambda_{n+1} (the adjoint of u after step n) gains the residual of row n + 1,
  // is correlated with step n's second difference, then steps back.
  std::unique_ptr<wave::AdjointBackend<T>> adj = make_adjoint<T>(device, s);
  adj->set_velocity(velocity, dt_over_h);
  std::vector<double> corr(points, 0.0), second(points);
  for (int n = shot.steps - 1; n >= 0; --n) {
    adj->inject_at_receivers(std::span<const double>(residual).subspan(std::size_t(n) * nr, nr));
    const T* next = u.data() + std::size_t(n + 1) * points;
    const T* now = u.data() + std::size_t(n) * points;
    const T* prev = n > 0 ? u.data() + std::size_t(n - 1) * points : nullptr;
    for (std::size_t i = 0; i < points; ++i)
      second[i] = double(next[i]) - 2.0 * double(now[i]) + (prev ? double(prev[i]) : 0.0);
    for (std::size_t j = 0; j < ns; ++j)  // less what step n injected
      for (const wave::Tap& t : s.sources[j])
        second[(std::size_t(t.z) * s.n.ny + std::size_t(t.y)) * s.n.nx + std::size_t(t.x)] -=
            t.w * shot.wavelets[std::size_t(n) * ns + j];
    const std::span<const double> lambda = adj->adjoint_u();
    for (std::size_t i = 0; i < points; ++i) corr[i] += lambda[i] * second[i];
    adj->step_back();
  }
  g.gradient.resize(points);
  for (std::size_t i = 0; i < points; ++i)
    g.gradient[i] = -double(velocity[i]) * double(velocity[i]) * corr[i];
  return g;
}

template Gradient misfit_gradient(const wave::Setup&, Device, std::span<const float>, double,
                                  const Shot&, bool);
template Gradient misfit_gradient(const wave::Setup&, Device, std::span<const double>, double,
                                  const Shot&, bool);

}  // namespace strata::imaging

// The Born operator: the background run and the perturbation's run stepped together; after
// each step the perturbation's new u gains -v^2 dm times the background's second time
// difference less its injected source (what (v dt / h)^2 (Lap u + CPML terms) is).
#include "solvers/imaging/born.hpp"

#include <string>

#include "solvers/imaging/backends.hpp"

namespace strata::imaging {

template <class T>
std::vector<double> born(const wave::Setup& s, Device device, std::span<const T> velocity,
                         double dt_over_h, const Shot& shot, std::span<const double> dm) {
  const std::size_t points = s.n.points(), ns = s.sources.size(), nr = s.receivers.size();
  if (shot.steps < 1) throw Error("a shot needs at least one step");
  if (velocity.size() != points || dm.size() != points)
    throw Error("the velocity model and dm must each hold a value per grid point (" +
                std::to_string(points) + ")");
  if (shot.wavelets.size() != std::size_t(shot.steps) * ns)
    throw Error("the wavelets hold " + std::to_string(shot.wavelets.size()) +
                " values; steps x sources is " + std::to_string(std::size_t(shot.steps) * ns));
  if (s.trace_rows < shot.steps + 1)
    throw Error("internal: the setup records fewer rows than the shot's steps");
  wave::Setup quiet = s;  // the perturbation has no sources of its own
  quiet.sources.clear();
  auto bg = forward_backend<T>(device, s), du = forward_backend<T>(device, quiet);
  bg->set_velocity(velocity, dt_over_h);
  du->set_velocity(velocity, dt_over_h);
  if (ns) bg->set_wavelets(0, shot.steps, shot.wavelets);
  std::vector<double> scale(points);  // -v^2 dm
  for (std::size_t i = 0; i < points; ++i)
    scale[i] = -double(velocity[i]) * double(velocity[i]) * dm[i];
  std::vector<T> now(points), prev(points), next(points), d(points);
  std::vector<double> second;
  std::vector<wave::NamedArray<T>> u_only(1, wave::NamedArray<T>{std::string("u"), {}});
  const wave::StateSlot u_slot{wave::StateSlot::u, 0}, up_slot{wave::StateSlot::u_prev, 0};
  for (int n = 0; n < shot.steps; ++n) {
    bg->read_state(u_slot, 0, points, now.data());
    bg->read_state(up_slot, 0, points, prev.data());
    bg->step(n);
    bg->read_state(u_slot, 0, points, next.data());
    second_difference(s, shot, n, next.data(), now.data(), prev.data(), second);
    du->step(n);
    du->read_state(u_slot, 0, points, d.data());
    u_only[0].data.resize(points);
    for (std::size_t i = 0; i < points; ++i)
      u_only[0].data[i] = T(double(d[i]) + scale[i] * second[i]);
    du->load(u_only);
    du->record(n + 1);
  }
  const std::vector<T> rows = du->traces(shot.steps + 1);
  return {rows.begin() + std::ptrdiff_t(nr), rows.end()};
}

template std::vector<double> born(const wave::Setup&, Device, std::span<const float>, double,
                                  const Shot&, std::span<const double>);
template std::vector<double> born(const wave::Setup&, Device, std::span<const double>, double,
                                  const Shot&, std::span<const double>);

}  // namespace strata::imaging

// The imaging runs from a wave configuration: the model (the configuration's, or the caller's
// dense one) and the plan resolved as `strata wave` resolves them, the shot's wavelets as the
// wave solver makes them, the data's rows checked against the plan, then solvers/imaging.
#include "drivers/imaging.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "solvers/imaging/born.hpp"
#include "solvers/imaging/gradient.hpp"
#include "solvers/wave/model.hpp"
#include "solvers/wave/numerics.hpp"
#include "solvers/wave/plan.hpp"

namespace strata::drivers {

namespace {

template <class T>
struct Prepared {
  wave::Setup setup;
  wave::Plan plan;
  std::vector<T> velocity;  // dense
  imaging::Shot shot;
};

template <class T>
Prepared<T> prepare(const ImagingRun& run) {
  const wave::Config& c = run.config;
  if (c.receiver_every != 1)
    throw Error("receivers.every = " + std::to_string(c.receiver_every) +
                ": imaging needs the data of every step (receivers.every = 1)");
  if (c.steps < 1) throw Error("time.steps must be at least 1 for imaging");
  const std::size_t points = c.shape.points();
  Prepared<T> p;
  if (!run.velocity.empty()) {
    if (run.velocity.size() != points)
      throw Error("the velocity model holds " + std::to_string(run.velocity.size()) +
                  " values; the grid " + c.shape.str() + " has " + std::to_string(points));
    for (std::size_t i = 0; i < points; ++i)
      if (!(run.velocity[i] > 0) || !std::isfinite(run.velocity[i]))
        throw Error("the velocity model's value " + std::to_string(i) + " is " +
                    std::to_string(run.velocity[i]) + ": every velocity must be finite and > 0");
    p.velocity.assign(run.velocity.begin(), run.velocity.end());
  } else {
    const wave::VelocityModel<T> v = wave::load_velocity<T>(c);
    if (!v.dense.empty()) {
      p.velocity = v.dense;
    } else {
      const std::size_t plane = std::size_t(c.shape.nx) * c.shape.ny;
      p.velocity.resize(points);
      for (std::size_t z = 0; z < v.planes.size(); ++z)
        std::fill_n(p.velocity.begin() + std::ptrdiff_t(z * plane), plane, v.planes[z]);
    }
  }
  wave::Resolved r = wave::resolve<T>(c, std::span<const T>(p.velocity));
  p.setup = std::move(r.setup);
  p.plan = std::move(r.plan);
  p.setup.trace_rows = c.steps + 1;
  const std::size_t ns = c.sources.size(), nr = p.setup.receivers.size();
  if (nr == 0) throw Error("imaging needs receivers (receivers.points, lines or planes)");
  p.shot.steps = c.steps;
  p.shot.wavelets.resize(std::size_t(c.steps) * ns);
  for (int n = 0; n < c.steps; ++n)  // as the wave solver makes them (solver.cpp)
    for (std::size_t j = 0; j < ns; ++j) {
      const wave::Source& s = c.sources[j];
      p.shot.wavelets[std::size_t(n) * ns + j] =
          s.amplitude * wave::ricker(double(n) * p.plan.dt, s.frequency,
                                     s.delay ? *s.delay : wave::default_delay(s.frequency));
    }
  if (!run.data.empty()) {
    const std::size_t rows = std::size_t(c.steps) + 1;
    if (run.data.size() != rows * nr)
      throw Error("the data hold " + std::to_string(run.data.size()) +
                  " values; the configuration records " + std::to_string(rows) +
                  " rows (time.steps + 1, row 0 at step 0) of " + std::to_string(nr) +
                  " receivers (" + std::to_string(rows * nr) + " values)");
    p.shot.observed.assign(run.data.begin() + std::ptrdiff_t(nr), run.data.end());
  }
  return p;
}

template <class T>
ImagingResult result_of(const Prepared<T>& p, const ImagingRun& run) {
  ImagingResult r;
  r.shape = run.config.shape;
  r.device = p.plan.device;
  r.dt = p.plan.dt;
  r.receivers = int(p.setup.receivers.size());
  r.rows = run.config.steps + 1;
  return r;
}

void take(ImagingResult& r, imaging::Gradient&& g) {
  r.misfit = g.misfit;
  r.predicted.assign(std::size_t(r.receivers), 0.0);  // row 0: step 0, at rest
  r.predicted.insert(r.predicted.end(), g.predicted.begin(), g.predicted.end());
  r.illumination = std::move(g.illumination);
  r.checkpoints = g.checkpoints;
  r.checkpoint_bytes = g.checkpoint_bytes;
  r.forward_steps = g.forward_steps;
  r.recomputation = g.recomputation;
}

imaging::GradientOptions options_of(const ImagingRun& run) {
  imaging::GradientOptions o;
  o.memory_budget = run.memory_budget;
  o.checkpoints = run.checkpoints;
  return o;
}

template <class T>
ImagingResult gradient_t(const ImagingRun& run) {
  const Prepared<T> p = prepare<T>(run);
  ImagingResult r = result_of(p, run);
  imaging::Gradient g = imaging::misfit_gradient<T>(
      p.setup, p.plan.device, p.velocity, p.plan.dt / run.config.spacing, p.shot, options_of(run));
  r.gradient = std::move(g.gradient);
  take(r, std::move(g));
  return r;
}

template <class T>
ImagingResult migrate_t(const ImagingRun& run) {
  const Prepared<T> p = prepare<T>(run);
  ImagingResult r = result_of(p, run);
  imaging::Image im = imaging::migrate<T>(p.setup, p.plan.device, p.velocity,
                                          p.plan.dt / run.config.spacing, p.shot, options_of(run));
  r.image = std::move(im.image);
  r.compensated = std::move(im.compensated);
  take(r, std::move(im.run));
  r.misfit = 0;  // not a misfit: the data are the adjoint's source
  return r;
}

template <class T>
ImagingResult born_t(const ImagingRun& run, std::span<const double> dm) {
  const Prepared<T> p = prepare<T>(run);
  ImagingResult r = result_of(p, run);
  if (dm.size() != run.config.shape.points())
    throw Error("dm holds " + std::to_string(dm.size()) + " values; the grid " +
                run.config.shape.str() + " has " + std::to_string(run.config.shape.points()));
  const std::vector<double> d = imaging::born<T>(p.setup, p.plan.device, p.velocity,
                                                 p.plan.dt / run.config.spacing, p.shot, dm);
  r.predicted.assign(std::size_t(r.receivers), 0.0);
  r.predicted.insert(r.predicted.end(), d.begin(), d.end());
  return r;
}

}  // namespace

ImagingResult gradient(const ImagingRun& run) {
  return run.config.precision == Precision::f32 ? gradient_t<float>(run) : gradient_t<double>(run);
}
ImagingResult migrate(const ImagingRun& run) {
  return run.config.precision == Precision::f32 ? migrate_t<float>(run) : migrate_t<double>(run);
}
ImagingResult born(const ImagingRun& run, std::span<const double> dm) {
  return run.config.precision == Precision::f32 ? born_t<float>(run, dm) : born_t<double>(run, dm);
}

}  // namespace strata::drivers

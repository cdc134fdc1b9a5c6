// The misfit and its gradient: a forward run, then the adjoint run backward in time with the
// residual injected at the receivers, correlating as it goes; the forward states it needs in
// reverse order come from a binomial checkpointing schedule (checkpointing.hpp), or, with
// boundary saving, from the forward field run backward with its ring put back each step.
#include "solvers/imaging/gradient.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <future>
#include <string>
#include <utility>
#include <vector>

#include "base/host_memory.hpp"
#include "solvers/imaging/backends.hpp"
#include "solvers/imaging/checkpointing.hpp"
#include "strata/device.hpp"

namespace strata::imaging {

namespace {

// The points boundary saving keeps: the grid less the absorbing layers is the interior; the
// ring is what lies within `radius` of it outside (what a step of the interior reads), as
// dense [z][y][x] indices, and the interior box.
struct Ring {
  std::array<int, 3> lo{}, hi{};  // the interior, [lo, hi) per axis
  std::vector<std::size_t> points;
};

Ring ring_of(const wave::Setup& s) {
  Ring r;
  const int n[3] = {s.n.nx, s.n.ny, s.n.nz};
  const auto box = wave::interior_box(s);
  r.lo = box[0];
  r.hi = box[1];
  if (const std::string why = boundary_saving_problem(s); !why.empty()) throw Error(why);
  int lo[3], hi[3];
  for (int a = 0; a < 3; ++a) {
    lo[a] = std::max(0, r.lo[std::size_t(a)] - s.radius);
    hi[a] = std::min(n[a], r.hi[std::size_t(a)] + s.radius);
  }
  // The ring's box less the interior, which it holds: counted first, since grown point by
  // point the 4.8 M points of a 512^3 ring took 0.05-0.12 s (0.02 s reserved, one thread).
  // A plane's points are counted without visiting them, so the planes are filled on the
  // host's threads, each from its own start.
  std::size_t count = 1, inner = 1;
  for (std::size_t a = 0; a < 3; ++a)
    count *= std::size_t(hi[a] - lo[a]), inner *= std::size_t(r.hi[a] - r.lo[a]);
  count -= inner;
  const std::size_t row = std::size_t(hi[0] - lo[0]), cut = std::size_t(r.hi[0] - r.lo[0]);
  const int planes = hi[2] - lo[2];
  std::vector<std::size_t> start(std::size_t(planes) + 1, 0);
  for (int k = 0; k < planes; ++k) {
    const int z = lo[2] + k;
    const std::size_t through = z >= r.lo[2] && z < r.hi[2] ? std::size_t(r.hi[1] - r.lo[1]) : 0;
    start[std::size_t(k) + 1] =
        start[std::size_t(k)] + std::size_t(hi[1] - lo[1]) * row - through * cut;
  }
  if (start.back() != count) throw Error("internal: the ring's count and its planes disagree");
  r.points.resize(count);
  int miscounted = 0;  // planes whose points and count disagree (none: checked, not assumed)
#pragma omp parallel for schedule(static) reduction(+ : miscounted)
  for (int k = 0; k < planes; ++k) {
    const int z = lo[2] + k;
    const std::size_t end = start[std::size_t(k) + 1];
    std::size_t at = start[std::size_t(k)];
    for (int y = lo[1]; y < hi[1]; ++y) {
      // A row through the interior keeps only its points before and after it.
      const bool skips = y >= r.lo[1] && y < r.hi[1] && z >= r.lo[2] && z < r.hi[2];
      const std::size_t base =
          (std::size_t(z) * std::size_t(n[1]) + std::size_t(y)) * std::size_t(n[0]);
      for (int x = lo[0]; x < hi[0]; ++x) {
        if (skips && x == r.lo[0]) x = r.hi[0];
        if (x >= hi[0]) continue;
        if (at < end) r.points[at] = base + std::size_t(x);  // past its plane's end: counted
        ++at;
      }
    }
    if (at != end) ++miscounted;
  }
  if (miscounted) throw Error("internal: the ring's count and its points disagree");
  return r;
}

}  // namespace

std::string boundary_saving_problem(const wave::Setup& s) {
  const auto box = wave::interior_box(s);
  for (int a = 0; a < 3; ++a)
    if (box[1][std::size_t(a)] <= box[0][std::size_t(a)])
      return std::string("boundary saving: the absorbing layers leave no interior along ") +
             "xyz"[a] + " (make the grid larger or the layers thinner)";
  return "";
}

template <class T>
Gradient misfit_gradient(const wave::Setup& s, Device device, std::span<const T> velocity,
                         double dt_over_h, const Shot& shot, const GradientOptions& o) {
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
  if (o.checkpoints < 0 || o.memory_budget < 0)
    throw Error("checkpoints and the memory budget must be >= 0");

  // How many forward states the adjoint run keeps: as given, else as the budget holds.
  Gradient g;
  using Clock = std::chrono::steady_clock;
  const Clock::time_point t_start = Clock::now();
  auto since = [](Clock::time_point t) {
    return std::chrono::duration<double>(Clock::now() - t).count();
  };
  // The set-up's parts, each timed to the end of the device work it queued.
  Clock::time_point t_part = t_start;
  auto part = [&](const char* name) {
    device_synchronize();
    const Clock::time_point now = Clock::now();
    g.setup_parts.emplace_back(name, std::chrono::duration<double>(now - t_part).count());
    t_part = now;
  };
  int slots = 0;
  Ring ring;
  if (o.adjoint && o.boundary_saving) {
    ring = ring_of(s);
    g.boundary_saving = true;
    g.checkpoint_bytes = double(ring.points.size()) * sizeof(T);
    // The rings live where the backend keeps its states (a GPU's own memory, checked there).
    host::require_host_memory(
        (device == Device::cpu ? double(shot.steps + 1) * g.checkpoint_bytes : 0.0) +
            8.0 * double(points) * sizeof(double),
        "the rings boundary saving keeps (" + std::to_string(shot.steps + 1) + " of " +
            std::to_string(ring.points.size()) + " points)");
    part("ring");
  }

  std::unique_ptr<wave::Backend<T>> fwd = forward_backend<T>(device, s);
  fwd->set_velocity(velocity, dt_over_h);
  if (ns) fwd->set_wavelets(0, shot.steps, shot.wavelets);
  if (!g.boundary_saving) g.checkpoint_bytes = fwd->kept_state_bytes(s);
  part("forward_backend");
  // The adjoint is made before the forward sweep: the imaging condition (the illumination
  // during the sweep, the correlation after) is summed where the fields live, so on a GPU no
  // field leaves the device until the end.
  std::unique_ptr<wave::AdjointBackend<T>> adj;
  if (o.adjoint) {
    adj = adjoint_backend<T>(device, s);
    adj->set_velocity(velocity, dt_over_h);
    adj->begin_imaging(shot.wavelets, o.illumination);
    part("adjoint_backend");
  }
  if (o.adjoint && !o.boundary_saving) {
    // The kept states live where the backend keeps them (a GPU's own memory), so the budget
    // (by default half of what is free there, the run's fields made) is of that memory.
    const bool on_device = fwd->kept_state_memory() == Memory::device;
    const double budget = o.memory_budget > 0 ? o.memory_budget
                          : on_device         ? 0.5 * double(cuda_current_device().free_memory)
                                              : 0.5 * host::available_memory().bytes;
    slots = o.checkpoints > 0
                ? o.checkpoints
                : checkpoints_for_budget(std::uint64_t(g.checkpoint_bytes), std::uint64_t(budget));
    slots = std::min(slots, shot.steps);  // the schedule reverses S + 1 states
    g.checkpoints = slots_used(shot.steps + 1, slots);
    host::require_host_memory(
        (on_device ? 0.0 : double(g.checkpoints) * g.checkpoint_bytes) +
            8.0 * double(points) * sizeof(double),
        "the forward states the adjoint run keeps (" + std::to_string(g.checkpoints) + ")");
    fwd->reserve_states(g.checkpoints);
    part("kept_states");
  }
  if (!o.adjoint && o.illumination) {
    g.illumination.assign(points, 0.0);
  }
  std::vector<T> u(o.adjoint || !o.illumination ? 0 : points);
  int reached = 0;  // the furthest step run: each one's u counts once in the illumination
  Clock::time_point t_done{};  // the last step's end: what follows is finish_seconds
  // The finish's parts, from t_done (host work: each ends when its data are on the host).
  Clock::time_point t_finish_part{};
  auto finish_part = [&](const char* name) {
    const Clock::time_point now = Clock::now();
    g.finish_parts.emplace_back(name, std::chrono::duration<double>(now - t_finish_part).count());
    t_finish_part = now;
  };
  auto forward_step = [&](int n) {
    const Clock::time_point t = Clock::now();
    fwd->step(n);
    fwd->record(n + 1);
    ++g.forward_steps;
    if (n + 1 > reached && o.illumination) {
      reached = n + 1;
      if (adj) {
        adj->illuminate(fwd->wavefield());
      } else {
        fwd->read_state(wave::StateSlot{wave::StateSlot::u, 0}, 0, points, u.data());
        for (std::size_t i = 0; i < points; ++i) g.illumination[i] += double(u[i]) * double(u[i]);
      }
    }
    fwd->synchronize();  // the step's time, not its launch's
    g.forward_seconds += since(t);
    ++g.forward_timed_steps;
  };
  std::vector<double> residual;
  auto take_traces = [&] {  // every row is final once step S - 1 has run
    const std::vector<T> rows = fwd->traces(shot.steps + 1);
    g.predicted.assign(rows.begin() + std::ptrdiff_t(nr), rows.end());
    residual = g.predicted;
    for (std::size_t i = 0; i < residual.size(); ++i) {
      if (!shot.observed.empty()) residual[i] -= shot.observed[i];
      g.misfit += 0.5 * residual[i] * residual[i];
    }
    if (o.migrate)  // the adjoint's source is the data alone
      for (std::size_t i = 0; i < residual.size(); ++i)
        residual[i] = shot.observed.empty() ? 0.0 : -shot.observed[i];
  };
  if (!o.adjoint) {
    g.setup_seconds = since(t_start);
    for (int n = 0; n < shot.steps; ++n) forward_step(n);
    t_done = t_finish_part = Clock::now();
    take_traces();
    finish_part("traces");
    fwd.reset();  // its memory given back inside the run's time, not after it
    finish_part("released");
    g.recomputation = 1;
    g.finish_seconds = since(t_done);
    g.seconds = since(t_start);
    return g;
  }

  // The schedule reverses the S + 1 states x_0 .. x_S (x_m holds u_m and u_{m-1}); its adjoint
  // action for x_m reads them. At x_S the data are final (the residual); at x_n, n < S, the
  // gradient's step n: lambda_{n+1} gains row n + 1's residual and is correlated with
  // u_{n+1} (kept from the action before) - 2 u_n + u_{n-1}, less what step n injected; then
  // the adjoint steps back. Nothing is run twice when every state is kept.
  // `swapped`: the backend holds u_m in u_prev and u_{m-1} in u (a field run backward).
  // `fuse`: the correlation inside the step back where the backend can
  // (AdjointBackend::correlate_stepping_back; g.fused_imaging says it did).
  auto adjoint_at = [&](int m, bool swapped, bool fuse) {
    const Field<T>& now = swapped ? fwd->previous_wavefield() : fwd->wavefield();
    const Field<T>& prev = swapped ? fwd->wavefield() : fwd->previous_wavefield();
    if (m == shot.steps) {
      take_traces();
      adj->keep(now);  // u_S is the next action's u_{n+1}
    } else {
      const int n = m;
      adj->inject_at_receivers(std::span<const double>(residual).subspan(std::size_t(n) * nr, nr));
      if (fuse) {  // and u_m becomes the next action's u_{n+1}
        g.fused_imaging = adj->correlate_stepping_back(now, prev, n);
      } else {
        adj->correlate(now, prev, n);
        adj->step_back();
      }
    }
    fwd->synchronize();  // the adjoint's time, not its launches'
  };
  // The host arrays the sums come down into (the correlation's, and the illumination's where
  // it is summed; 1 GiB of doubles each at 512^3): made and their pages first touched on a
  // thread of its own while the sweeps run, not in the finish (0.5 s of the H200 host's time
  // there). Begun once the set-up is done (beside it, the page faults slowed the set-up's own
  // host work by 0.2 s); deferred where no thread can be had.
  std::future<std::vector<std::vector<double>>> host_grids;
  auto begin_host_grid = [&] {
    const std::size_t count = o.illumination ? 2 : 1;
    host_grids = std::async(std::launch::async | std::launch::deferred, [points, count] {
      std::vector<std::vector<double>> made;
      for (std::size_t k = 0; k < count; ++k) made.emplace_back(points);
      return made;
    });
  };
  std::vector<std::vector<double>> grids;
  auto take_grids = [&] {
    if (!host_grids.valid()) begin_host_grid();
    if (grids.empty()) grids = host_grids.get();
  };
  std::vector<double> corr;
  auto take_correlation = [&] {
    take_grids();
    corr = std::move(grids[0]);
    adj->correlation(corr);
    finish_part("correlation");
  };
  auto finish = [&] {  // the gradient from the correlation
    if (corr.empty()) take_correlation();
    if (o.illumination) {
      take_grids();
      g.illumination = std::move(grids.back());
      adj->illumination(g.illumination);
      finish_part("illumination");
    }
    g.recomputation = double(g.forward_steps) / double(shot.steps);
    // In place over the correlation: a second grid of doubles (1 GiB at 512^3, every page
    // touched anew) was most of the finish after the sums' download.
    // Point by point on the host's threads (the same bits: no sum crosses points).
    g.gradient = std::move(corr);
    const std::int64_t all = std::int64_t(points);
#pragma omp parallel for schedule(static)
    for (std::int64_t j = 0; j < all; ++j) {
      const std::size_t i = std::size_t(j);
      g.gradient[i] = -double(velocity[i]) * double(velocity[i]) * g.gradient[i];
    }
    finish_part("gradient");
    // The backends' memory (fields, kept states or rings, the sums: many GB on a GPU) given
    // back inside the run's time, not after it, where nothing timed it.
    adj.reset();
    fwd.reset();
    finish_part("released");
    g.finish_seconds = since(t_done);
    g.seconds = since(t_start);
  };
  if (g.boundary_saving) {
    // One forward sweep keeping each u's ring in row n + 1 (row 0, u_0 = 0: the rest before
    // step 0), where the backend keeps its states.
    fwd->reserve_rings(ring.points, shot.steps + 1);
    part("rings");
    // The correlation inside the reversed step where the backends can (the GPU's): the box
    // whose sums are kept is the interior and its ring (the rest is zeroed below). Its lists
    // are made here, with the rest of the set-up.
    std::array<int, 3> keep_lo{}, keep_hi{};
    for (std::size_t a = 0; a < 3; ++a)
      keep_lo[a] = ring.lo[a] - s.radius, keep_hi[a] = ring.hi[a] + s.radius;
    const bool fused = o.fused_imaging && adj->fuse_correlation(*fwd, keep_lo, keep_hi);
    if (fused) part("fused_lists");
    g.setup_seconds = since(t_start);
    begin_host_grid();
    for (int n = 0; n < shot.steps; ++n) {
      forward_step(n);  // u holds u_{n+1}
      fwd->keep_ring(n + 1);
    }
    if (fused) {  // x_S: the residual; no u_{n+1} to keep (the step reads it)
      take_traces();
      fwd->synchronize();
    } else {
      adjoint_at(shot.steps, false, false);  // x_S: the residual; u_S the next u_{n+1}
    }
    // Backward: from (u_m, u_{m+1}) the forward step m gives u_{m-1} in the interior; the
    // ring's values are put back. The backend's u and u_prev trade places once. The step
    // leaves the absorbing layers (Backend::step_without_layers): nothing reads them.
    const Clock::time_point t_swap = Clock::now();
    fwd->swap_time();
    fwd->synchronize();
    g.checkpoint_seconds += since(t_swap);
    for (int m = shot.steps - 1; m >= 0; --m) {
      const Clock::time_point t = Clock::now();
      // u: u_{m-1}; u_prev: u_m (the layers left unless the options ask for them)
      const bool layers = o.reversed_step_updates_layers;
      ++g.forward_steps;
      if (fused) {
        // lambda gains row m's residual first: the reversed step correlates with it, and the
        // adjoint steps it back. Both only read lambda, so the backend runs the step back
        // beside the reversed step (AdjointBackend::step_correlated); one wait for both.
        adj->inject_at_receivers(
            std::span<const double>(residual).subspan(std::size_t(m) * nr, nr));
        adj->step_correlated(m, layers);  // the sums on its interior update
        fwd->put_ring(m - 1);             // u_{m-1}'s ring; u_{-1} = 0
        adj->correlate_rest(m);
        adj->step_back();
        fwd->synchronize();
        g.adjoint_seconds += since(t);
        continue;
      }
      if (layers) {
        fwd->step(m);
      } else {
        fwd->step_without_layers(m);
      }
      fwd->put_ring(m - 1);  // u_{m-1}'s ring; u_{-1} = 0
      fwd->synchronize();
      g.forward_seconds += since(t);
      ++g.forward_timed_steps;
      const Clock::time_point ta = Clock::now();
      adjoint_at(m, true, false);
      g.adjoint_seconds += since(ta);
    }
    g.fused_imaging = fused;
    if (fused) g.step_timeline_ms = adj->step_timeline();  // empty unless asked (a diagnostic)
    t_done = t_finish_part = Clock::now();
    // Outside the interior and its ring the field run backward is not the forward one: rows
    // and planes outside that box are zeroed whole, the others before and after it (no
    // division per point: at 512^3 those were seconds of host time).
    take_correlation();
    const std::size_t nx = std::size_t(s.n.nx), ny = std::size_t(s.n.ny);
    const std::size_t x0 = std::size_t(std::clamp(keep_lo[0], 0, s.n.nx)),
                      x1 = std::size_t(std::clamp(keep_hi[0], int(x0), s.n.nx));
    const int nz = s.n.nz;
#pragma omp parallel for schedule(static)
    for (int z = 0; z < nz; ++z)
      for (int y = 0; y < s.n.ny; ++y) {
        double* row = corr.data() + (std::size_t(z) * ny + std::size_t(y)) * nx;
        const bool keep = y >= keep_lo[1] && y < keep_hi[1] && z >= keep_lo[2] && z < keep_hi[2];
        if (!keep) {
          std::fill_n(row, nx, 0.0);
        } else {
          std::fill(row, row + x0, 0.0);
          std::fill(row + x1, row + nx, 0.0);
        }
      }
    finish_part("outside_zeroed");
    finish();
    return g;
  }
  int live = 0;
  g.setup_seconds = since(t_start);
  begin_host_grid();
  for (CheckpointSchedule plan(shot.steps + 1, slots); const auto a = plan.next();) {
    switch (a->kind) {
      case CheckpointAction::advance:
        require(live == a->step,
                "internal: the checkpoint schedule advances from a state not live");
        for (int n = a->step; n < a->to; ++n) forward_step(n);
        live = a->to;
        break;
      case CheckpointAction::store: {
        require(live == a->step, "internal: the checkpoint schedule stores a state not live");
        const Clock::time_point t = Clock::now();
        fwd->store_state(a->slot);
        fwd->synchronize();  // the copy's time here, not in the next step's
        g.checkpoint_seconds += since(t);
        break;
      }
      case CheckpointAction::restore: {
        const Clock::time_point t = Clock::now();
        fwd->restore_state(a->slot, a->release);
        fwd->synchronize();
        g.checkpoint_seconds += since(t);
        live = a->step;
        break;
      }
      case CheckpointAction::adjoint: {
        require(live == a->step,
                "internal: the checkpoint schedule's adjoint step has another live state");
        const Clock::time_point t = Clock::now();
        adjoint_at(a->step, false, o.fused_imaging);
        g.adjoint_seconds += since(t);
        break;
      }
    }
  }
  t_done = t_finish_part = Clock::now();
  finish();
  return g;
}

template <class T>
Image migrate(const wave::Setup& s, Device device, std::span<const T> velocity, double dt_over_h,
              const Shot& shot, const GradientOptions& options) {
  GradientOptions o = options;
  o.adjoint = true;
  o.migrate = true;
  // options.illumination: the illumination summed, and the compensated image divided by it
  // (false: both left empty, the image the same bits).
  Image im;
  im.run = misfit_gradient<T>(s, device, velocity, dt_over_h, shot, o);
  // In place over the gradient (not needed after it: 1 GiB at 512^3 not made again) and on
  // the host's threads, point by point (the same bits). The illumination moves to the image.
  im.image = std::move(im.run.gradient);
  const std::int64_t all = std::int64_t(s.n.points());
#pragma omp parallel for schedule(static)
  for (std::int64_t j = 0; j < all; ++j) {
    // gradient = -v^2 sum lambda[residual] second, residual -d
    const std::size_t i = std::size_t(j);
    im.image[i] = im.image[i] / (double(velocity[i]) * double(velocity[i]));
  }
  im.illumination = std::move(im.run.illumination);
  if (o.illumination) im.compensated = compensate(im.image, im.illumination);
  return im;
}

std::vector<double> compensate(std::span<const double> image,
                               std::span<const double> illumination) {
  require(image.size() == illumination.size(),
          "compensate: the image and the illumination differ in size");
  // On the host's threads: the largest value (a max: the same whatever the order) and each
  // point's quotient.
  const std::int64_t n = std::int64_t(image.size());
  double peak = 0;
#pragma omp parallel for schedule(static) reduction(max : peak)
  for (std::int64_t i = 0; i < n; ++i) peak = std::max(peak, illumination[std::size_t(i)]);
  // Nothing lit (sources of amplitude 0: the image is 0 too) divides by 1, not 0 by 0.
  const double floor = peak > 0 ? 1e-3 * peak : 1.0;
  std::vector<double> out(image.size());
#pragma omp parallel for schedule(static)
  for (std::int64_t j = 0; j < n; ++j) {
    const std::size_t i = std::size_t(j);
    out[i] = image[i] / (illumination[i] + floor);
  }
  return out;
}

template Image migrate(const wave::Setup&, Device, std::span<const float>, double, const Shot&,
                       const GradientOptions&);
template Image migrate(const wave::Setup&, Device, std::span<const double>, double, const Shot&,
                       const GradientOptions&);

template Gradient misfit_gradient(const wave::Setup&, Device, std::span<const float>, double,
                                  const Shot&, const GradientOptions&);
template Gradient misfit_gradient(const wave::Setup&, Device, std::span<const double>, double,
                                  const Shot&, const GradientOptions&);

}  // namespace strata::imaging

// The imaging benchmark (bench/imaging.hpp): through the drivers, so one file serves both
// devices; the forward run is the wave solver's own stepping.
#include "bench/imaging.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>

#include "bench/wave.hpp"
#include "drivers/imaging.hpp"
#include "strata/wave.hpp"

namespace strata::bench {

namespace {

wave::Config shot_config(Extent shape, Precision p, Device d, int steps) {
  wave::Config c;
  c.shape = shape;
  c.order = 8;
  c.precision = p;
  c.device = d;
  c.steps = steps;
  for (auto& f : c.faces) f = wave::FaceKind::pml;
  c.faces[wave::zmin] = wave::FaceKind::free;
  c.pml_width = bench_pml_width(shape, 4);
  const double h = c.spacing;
  c.sources = {{{shape.nx * h / 2, shape.ny * h / 2, 4 * h}, 10.0, 1.0, std::nullopt}};
  c.receiver_lines = {{{(c.pml_width + 1) * h, shape.ny * h / 2, 3 * h},
                       {(shape.nx - c.pml_width - 2) * h, shape.ny * h / 2, 3 * h},
                       std::max(2, shape.nx - 2 * c.pml_width - 2)}};
  c.receiver_every = 1;
  return c;
}

std::vector<Result> imaging_on(const Options& opt, Device device, Extent default_shape, int steps) {
  // The rows asked for: the family whole (opt.kernels empty) runs every row.
  auto wants = [&](const char* member) {
    return opt.kernels.empty() ||
           std::find(opt.kernels.begin(), opt.kernels.end(), member) != opt.kernels.end();
  };
  std::vector<Result> out;
  const std::string dev = device == Device::cpu ? "cpu" : "cuda";
  const int reps = std::max(1, std::min(opt.reps, 3));  // whole shots: seconds each
  for_each_case(opt, {default_shape}, {Precision::f32}, [&](auto tag, const Extent& shape) {
    using T = decltype(tag);
    if (bench_pml_width(shape, 4) == 0) {
      if (!opt.quiet)
        std::fprintf(stderr, "  imaging    skipped: %s is too small for absorbing layers\n",
                     shape.str().c_str());
      return;
    }
    const wave::Config c = shot_config(shape, precision_of<T>, device, steps);
    const double point_steps = double(shape.points()) * steps;
    auto row = [&](const std::string& kernel, const std::string& variant, const Timing& t) {
      Result r = result_row(dev, kernel, variant, precision_of<T>, shape, 0, point_steps);
      set_rates(r, t);
      r.extra["steps"] = steps;
      return r;
    };
    // The forward run alone: the solver's steps, as strata wave runs them.
    const Timing fwd = time_host(
        [&] {
          wave::Solver s(c);
          s.advance(steps);
          s.synchronize();
        },
        0, reps);
    Result f = row("imaging_forward", "solver", fwd);
    row_done(opt, f);
    out.push_back(f);
    // Its gradient: the shot's own data as observed (a zero residual costs the same work).
    drivers::ImagingRun run;
    run.config = c;
    run.illumination = false;  // as `strata gradient` runs without --illumination
    // On a GPU each strategy also with its correlation as a pass of its own (the same bits),
    // for the fusion's gain in the same run (checkpoints: inside the adjoint's step; boundary
    // saving: inside the reversed step), and boundary saving with the reversed steps updating
    // the layers (the same bits), for what leaving them saves.
    struct Way {
      bool boundary, fused, layers;
      const char* name;
    };
    std::vector<Way> ways;
    if (wants("imaging_checkpoints")) ways.push_back({false, true, false, "checkpoints"});
    if (device == Device::cuda && opt.kernels.empty())
      ways.push_back({false, false, false, "checkpoints-unfused"});
    if (wants("imaging_boundary_saving")) ways.push_back({true, true, false, "boundary-saving"});
    if (device == Device::cuda && opt.kernels.empty()) {
      ways.push_back({true, false, false, "boundary-saving-unfused"});
      ways.push_back({true, true, true, "boundary-saving-with-layers"});
    }
    // A row of a shot's run: its cost in forward runs and its parts.
    auto shot_row = [&](const char* kernel, const char* name, const Timing& t,
                        const drivers::ImagingResult& last) {
      Result g = row(kernel, name, t);
      g.extra["ratio_to_forward"] = t.median_ms / fwd.median_ms;  // the cost in forward runs
      g.ratio_to_copy = fwd.median_ms / t.median_ms;  // the table's ratio: rate over the forward's
      g.reference = "imaging_forward";
      g.extra["forward_steps"] = last.forward_steps;
      g.extra["illumination"] = !last.illumination.empty();  // summed
      g.extra["checkpoints"] = last.checkpoints;
      g.extra["forward_s"] = last.forward_seconds;
      g.extra["forward_timed_steps"] = last.forward_timed_steps;
      g.extra["adjoint_s"] = last.adjoint_seconds;
      g.extra["checkpoints_s"] = last.checkpoint_seconds;
      g.extra["setup_s"] = last.setup_seconds;
      for (const auto& [part, s] : last.setup_parts) g.extra["setup_" + part + "_s"] = s;
      g.extra["finish_s"] = last.finish_seconds;
      for (const auto& [part, s] : last.finish_parts) g.extra["finish_" + part + "_s"] = s;
      for (const auto& [mark, ms] : last.step_timeline_ms) g.extra["timeline_" + mark + "_ms"] = ms;
      // The solver's own seconds; the row's time less these is the driver's work around it
      // (the model and data made, the memory given back).
      g.extra["solver_s"] = last.seconds;
      g.extra["fused_imaging"] = last.fused_imaging;
      return g;
    };
    for (const Way& way : ways) {
      run.boundary_saving = way.boundary;
      run.fused_imaging = way.fused;
      run.reversed_step_updates_layers = way.layers;
      drivers::ImagingResult last;
      const Timing t = time_host([&] { last = drivers::gradient(run); }, 0, reps);
      Result g = shot_row("imaging_gradient", way.name, t, last);
      if (way.boundary) g.extra["reversed_step_updates_layers"] = way.layers;
      row_done(opt, g);
      out.push_back(g);
    }
    // Reverse-time migration as `strata migrate --compensated` runs it (boundary saving, the
    // correlation fused): the image of the same shot's (zero) data, and the illumination
    // summed during the forward sweep for the compensated image, what the gradient's rows do
    // not pay (a plain image costs what the gradient does: the same work).
    if (!wants("imaging_migrate")) return;
    run.boundary_saving = true;
    run.fused_imaging = true;
    run.reversed_step_updates_layers = false;
    run.illumination = true;
    drivers::ImagingResult last;
    const Timing t = time_host([&] { last = drivers::migrate(run); }, 0, reps);
    Result m = shot_row("imaging_migrate", "boundary-saving-compensated", t, last);
    row_done(opt, m);
    out.push_back(m);
  });
  return out;
}

}  // namespace

std::vector<std::string> imaging_members() {
  return {"imaging_checkpoints", "imaging_boundary_saving", "imaging_migrate"};
}

std::vector<Result> imaging_cpu(const Options& opt) {
  return imaging_on(opt, Device::cpu, {64, 64, 64}, opt.steps > 0 ? opt.steps : 100);
}
std::vector<Result> imaging_cuda(const Options& opt) {
  return imaging_on(opt, Device::cuda, {256, 256, 256}, opt.steps > 0 ? opt.steps : 400);
}

}  // namespace strata::bench

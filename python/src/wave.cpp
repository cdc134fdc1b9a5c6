// strata.wave's C++ side. _wave_simulate steps a Solver in memory and hands back the
// seismogram, the receiver positions and, if asked, the final wavefield as a Field,
// releasing the GIL while stepping. (`strata wave`'s run directory, wave::run, is
// runs.cpp's _run_wave: the job's ranks under mpirun, as the CLI's.)
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <memory>
#include <vector>

#include "bindings.hpp"
#include "common.hpp"
#include "strata/wave.hpp"

namespace strata::python {

wave::Config wave_config(const std::string& text, bool is_path,
                         const std::vector<std::string>& overrides) {
  return is_path ? wave::parse_config_file(text, overrides)
                 : wave::parse_config(text, overrides, "the configuration dict");
}

nb::dict wave_progress(const wave::Progress& p) {
  return make_dict("step", p.step, "first_step", p.first_step, "last_step", p.last_step,
                   "elapsed_s", p.elapsed_s, "gpts_per_s", p.gpts_per_s, "eta_s", p.eta_s, "final",
                   p.final, "text", wave::to_text(p));
}

namespace {

using namespace nb::literals;

// A (rows, cols) float64 NumPy array that owns `v`.
nb::object numpy_matrix(std::vector<double>&& v, std::size_t rows, std::size_t cols) {
  auto* owned = new std::vector<double>(std::move(v));
  nb::capsule owner(owned, [](void* p) noexcept { delete static_cast<std::vector<double>*>(p); });
  const std::size_t shape[2] = {rows, cols};
  return nb::cast(nb::ndarray<nb::numpy, double>(owned->data(), 2, shape, owner));
}

nb::dict py_simulate(const std::string& config, bool is_path,
                     const std::vector<std::string>& overrides, nb::handle on_progress,
                     double progress_interval_s, bool want_wavefield) {
  const wave::Config cfg = wave_config(config, is_path, overrides);
  PyCallbacks py;
  std::optional<wave::Solver> solver;
  {
    nb::gil_scoped_release unlocked;
    solver.emplace(cfg);
    using clock = std::chrono::steady_clock;
    const auto start = clock::now(), never = clock::time_point::max();
    auto last = progress_interval_s > 0 ? start : never;  // 0: only the final call, as run()
    const double points = double(cfg.shape.points());
    // About 100 chunks, so Ctrl-C and progress are answered within ~1% of the run.
    const int chunk = std::max(1, cfg.steps / 100);
    wave::Progress p;
    p.last_step = cfg.steps;
    while (solver->step() < cfg.steps) {
      solver->advance(std::min(chunk, cfg.steps - solver->step()));
      solver->synchronize();
      const auto now = clock::now();
      p.step = solver->step();
      p.final = p.step == cfg.steps;
      p.elapsed_s = std::chrono::duration<double>(now - start).count();
      p.gpts_per_s = p.elapsed_s > 0 ? points * p.step / p.elapsed_s : 0;
      p.eta_s = p.gpts_per_s > 0 ? points * (cfg.steps - p.step) / p.gpts_per_s
                                 : std::numeric_limits<double>::quiet_NaN();
      const bool report =
          !on_progress.is_none() &&
          (p.final || std::chrono::duration<double>(now - last).count() >= progress_interval_s);
      if (report) last = now;
      if (py.call([&] {
            if (report) on_progress(wave_progress(p));
          }))
        break;
    }
  }
  py.rethrow();
  const wave::Plan& plan = solver->plan();
  const std::size_t nrec = plan.receivers.size();
  const int rows = solver->trace_rows_recorded();
  std::vector<double> positions;
  for (const wave::Vec3& r : plan.receivers) positions.insert(positions.end(), {r.x, r.y, r.z});
  nb::dict d;
  d["seismogram"] = numpy_matrix(solver->traces(), std::size_t(rows), nrec);
  d["receivers"] = numpy_matrix(std::move(positions), nrec, 3);
  d["dt"] = plan.dt;
  d["sample_interval"] = plan.dt * cfg.receiver_every;
  d["steps"] = solver->step();
  d["spacing"] = cfg.spacing;
  d["device"] = std::string(to_string(plan.device));
  d["warnings"] = plan.warnings;
  if (want_wavefield) {
    Field<double> u(cfg.shape);
    const std::vector<double> dense = solver->wavefield();
    u.load_interior(dense);
    d["wavefield"] = PyField{std::move(u)};
  }
  return d;
}

std::vector<wave::Vec3> points(const std::vector<std::vector<double>>& xyz, const char* what) {
  std::vector<wave::Vec3> v;
  for (const std::vector<double>& p : xyz) {
    if (p.size() != 3)
      throw Error(std::string(what) + ": each position needs 3 coordinates (x, y, z) in metres");
    v.push_back({p[0], p[1], p[2]});
  }
  return v;
}

// The seismogram picture's horizontal axis: (values, label, metres).
nb::tuple py_receiver_axis(const std::vector<std::vector<double>>& receivers,
                           const std::vector<std::vector<double>>& sources) {
  std::vector<wave::Source> src;
  for (const wave::Vec3& p : points(sources, "sources")) {
    wave::Source s;  // only the position matters to the axis
    s.position = p;
    src.push_back(s);
  }
  wave::ReceiverAxis a = wave::receiver_axis(points(receivers, "receivers"), src);
  const std::size_t n = a.values.size();
  std::vector<double> values = std::move(a.values);
  auto* owned = new std::vector<double>(std::move(values));
  nb::capsule owner(owned, [](void* q) noexcept { delete static_cast<std::vector<double>*>(q); });
  const std::size_t shape[1] = {n};
  return nb::make_tuple(nb::ndarray<nb::numpy, double>(owned->data(), 1, shape, owner), a.label,
                        a.metres);
}

// The model on a picture's plane, with what a plot of it draws.
nb::dict py_model_slice(const std::string& config, bool is_path,
                        const std::vector<std::string>& overrides, int axis,
                        std::optional<int> index) {
  const wave::Config cfg = wave_config(config, is_path, overrides);
  wave::ModelSlice m =
      wave::model_slice(cfg, axis < 0 ? cfg.png_axis : axis, axis < 0 ? cfg.png_index : index);
  std::vector<double> rec, src;
  for (const wave::Vec3& r : wave::receiver_positions(cfg)) rec.insert(rec.end(), {r.x, r.y, r.z});
  for (const wave::Source& s : cfg.sources)
    src.insert(src.end(), {s.position.x, s.position.y, s.position.z});
  const std::size_t nrec = rec.size() / 3, nsrc = src.size() / 3;
  nb::dict absorbing;  // face: width in points, for the faces with absorbing layers
  for (int f = 0; f < 6; ++f)
    if (cfg.faces[std::size_t(f)] == wave::FaceKind::pml)
      absorbing[wave::kFaceNames[std::size_t(f)]] = cfg.pml_width;
  return make_dict("velocity",
                   numpy_matrix(std::move(m.velocity), std::size_t(m.rows), std::size_t(m.cols)),
                   "axis", m.axis, "index", m.index, "spacing", cfg.spacing, "receivers",
                   numpy_matrix(std::move(rec), nrec, 3), "sources",
                   numpy_matrix(std::move(src), nsrc, 3), "absorbing", absorbing);
}

}  // namespace

void bind_wave(nb::module_& m) {
  m.def("_wave_simulate", &py_simulate, "config"_a, "is_path"_a, "overrides"_a,
        "on_progress"_a.none(), "progress_interval_s"_a, "wavefield"_a,
        "Steps a configuration in memory; returns a dict of arrays (strata.wave.run without "
        "out_dir)");
  m.def("_wave_receiver_axis", &py_receiver_axis, "receivers"_a, "sources"_a,
        "The seismogram picture's horizontal axis: (values, label, in metres); see "
        "wave::receiver_axis");
  m.def("_wave_model_slice", &py_model_slice, "config"_a, "is_path"_a, "overrides"_a, "axis"_a,
        "index"_a.none(),
        "The velocity on a plane (axis < 0: output.png's) with the sources and receivers");
  m.def("_picture_library", &wave::picture_library,
        "What draws the run's annotated pictures (\"cairo 1.16.0\"), or \"\" when they are plain");
}

}  // namespace strata::python

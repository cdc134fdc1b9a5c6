// strata.imaging's C++ side: the imaging driver (drivers/imaging.hpp) on NumPy arrays. A
// wave configuration names the grid, the model, the sources, receivers and steps; the model
// may be given as an array instead, the data as (steps + 1, receivers), dm as (nz, ny, nx).
// The GIL is released while the runs step. Results are dicts of float64 NumPy arrays.
#include <cmath>
#include <nanobind/ndarray.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <optional>
#include <string>
#include <vector>

#include "bindings.hpp"
#include "common.hpp"
#include "drivers/imaging.hpp"
#include "strata/wave.hpp"

namespace strata::python {
namespace {

using namespace nb::literals;
using Array = nb::ndarray<const double, nb::c_contig, nb::device::cpu>;

std::vector<double> values(const std::optional<Array>& a) {
  if (!a) return {};
  return std::vector<double>(a->data(), a->data() + a->size());
}

// A float64 NumPy array of `shape` that owns `v`.
nb::object numpy(std::vector<double>&& v, std::initializer_list<std::size_t> shape) {
  auto* owned = new std::vector<double>(std::move(v));
  nb::capsule owner(owned, [](void* p) noexcept { delete static_cast<std::vector<double>*>(p); });
  const std::vector<std::size_t> s(shape);
  return nb::cast(nb::ndarray<nb::numpy, double>(owned->data(), s.size(), s.data(), owner));
}

drivers::ImagingRun run_of(const std::string& config, bool is_path,
                           const std::vector<std::string>& overrides,
                           const std::optional<Array>& velocity, const std::optional<Array>& data,
                           double memory_budget, int checkpoints, double data_dt = 0,
                           bool boundary_saving = false) {
  drivers::ImagingRun run;
  run.config = wave_config(config, is_path, overrides);
  run.velocity = values(velocity);
  run.data = values(data);
  if (data && data->ndim() == 2) run.data_shape = {data->shape(0), data->shape(1)};
  if (!(memory_budget >= 0) || !std::isfinite(memory_budget))
    throw nb::value_error("strata.imaging: memory_budget must be a finite number of bytes >= 0");
  if (checkpoints < 0) throw nb::value_error("strata.imaging: checkpoints must be >= 0");
  if (!(data_dt >= 0) || !std::isfinite(data_dt))
    throw nb::value_error(
        "strata.imaging: data_dt must be a finite number of seconds >= 0 (0: not checked)");
  run.data_dt = data_dt;
  run.boundary_saving = boundary_saving;
  run.memory_budget = memory_budget;
  run.checkpoints = checkpoints;
  return run;
}

nb::dict to_dict(drivers::ImagingResult&& r) {
  const Extent n = r.shape;
  const std::size_t nz = n.nz, ny = n.ny, nx = n.nx;
  auto grid = [&](std::vector<double>&& v) -> nb::object {
    if (v.empty()) return nb::none();
    return numpy(std::move(v), {nz, ny, nx});
  };
  nb::dict d = make_dict("device", std::string(to_string(r.device)), "dt", r.dt, "misfit", r.misfit,
                         "checkpoints", r.checkpoints, "checkpoint_bytes", r.checkpoint_bytes,
                         "boundary_saving", r.boundary_saving, "forward_steps", r.forward_steps,
                         "recomputation", r.recomputation);
  d["forward_seconds"] = r.forward_seconds;
  d["forward_timed_steps"] = r.forward_timed_steps;
  d["adjoint_seconds"] = r.adjoint_seconds;
  d["checkpoint_seconds"] = r.checkpoint_seconds;
  d["seconds"] = r.seconds;
  d["setup_seconds"] = r.setup_seconds;
  d["finish_seconds"] = r.finish_seconds;
  nb::dict parts;  // the set-up's, in order (the report's cost.setup_parts_s)
  for (const auto& [name, s] : r.setup_parts) parts[name.c_str()] = s;
  d["setup_parts"] = parts;
  nb::dict finish;  // the finish's, in order (the report's cost.finish_parts_s)
  for (const auto& [name, s] : r.finish_parts) finish[name.c_str()] = s;
  d["finish_parts"] = finish;
  d["fused_imaging"] = r.fused_imaging;
  d["cost_in_forward_runs"] = r.cost_in_forward_runs();
  if (r.predicted.empty())
    d["predicted"] = nb::none();  // several shots: the caller lists theirs
  else
    d["predicted"] = numpy(std::move(r.predicted), {std::size_t(r.rows), std::size_t(r.receivers)});
  d["gradient"] = grid(std::move(r.gradient));
  d["image"] = grid(std::move(r.image));
  d["compensated"] = grid(std::move(r.compensated));
  d["illumination"] = grid(std::move(r.illumination));
  return d;
}

// gradient and migrate: a run from the arguments, the driver with the GIL released.
template <drivers::ImagingResult (*Driver)(const drivers::ImagingRun&)>
nb::dict adjoint_run(const std::string& config, bool is_path,
                     const std::vector<std::string>& overrides,
                     const std::optional<Array>& velocity, const std::optional<Array>& data,
                     double memory_budget, int checkpoints, double data_dt, bool boundary_saving,
                     bool illumination) {
  drivers::ImagingRun run = run_of(config, is_path, overrides, velocity, data, memory_budget,
                                   checkpoints, data_dt, boundary_saving);
  run.illumination = illumination;
  drivers::ImagingResult r;
  {
    nb::gil_scoped_release unlocked;
    r = Driver(run);
  }
  return to_dict(std::move(r));
}

// gradient and migrate over shots: every shot in this process, the sums as the CLI's.
template <bool Migrate>
nb::dict shots_run(const std::string& config, bool is_path,
                   const std::vector<std::string>& overrides, const std::optional<Array>& velocity,
                   const std::vector<Array>& data, double memory_budget, int checkpoints,
                   double data_dt, bool boundary_saving, const std::string& shots,
                   bool shots_is_path, bool illumination) {
  drivers::ImagingRun base = run_of(config, is_path, overrides, velocity, std::nullopt,
                                    memory_budget, checkpoints, data_dt, boundary_saving);
  base.illumination = illumination;
  std::vector<std::vector<double>> rows;
  std::vector<std::array<std::size_t, 2>> shapes;
  for (const Array& a : data) {
    rows.emplace_back(a.data(), a.data() + a.size());
    shapes.push_back(a.ndim() == 2 ? std::array<std::size_t, 2>{a.shape(0), a.shape(1)}
                                   : std::array<std::size_t, 2>{});
  }
  std::vector<std::vector<double>> predicted;
  drivers::ImagingResult r;
  {
    nb::gil_scoped_release unlocked;
    r = drivers::image_shots(Migrate, base, shots, shots_is_path, rows, &predicted, shapes);
  }
  const std::size_t nrows = std::size_t(r.rows), nrec = std::size_t(r.receivers);
  std::vector<std::string> names;
  std::vector<double> misfits;
  for (const auto& s : r.shots) names.push_back(s.name), misfits.push_back(s.misfit);
  nb::dict d = to_dict(std::move(r));
  nb::list p;
  for (std::vector<double>& v : predicted) p.append(numpy(std::move(v), {nrows, nrec}));
  d["predicted"] = p;
  d["shots"] = names;
  d["shot_misfits"] = misfits;
  return d;
}

std::vector<std::string> shot_names(const std::string& config, bool is_path,
                                    const std::vector<std::string>& overrides,
                                    const std::optional<Array>& velocity, const std::string& shots,
                                    bool shots_is_path) {
  const drivers::ImagingRun base = run_of(config, is_path, overrides, velocity, std::nullopt, 0, 0);
  return drivers::shot_names(base, shots, shots_is_path);
}

nb::dict born(const std::string& config, bool is_path, const std::vector<std::string>& overrides,
              const std::optional<Array>& velocity, const Array& dm) {
  drivers::ImagingRun run = run_of(config, is_path, overrides, velocity, std::nullopt, 0, 0);
  const std::vector<double> d(dm.data(), dm.data() + dm.size());
  drivers::ImagingResult r;
  {
    nb::gil_scoped_release unlocked;
    r = drivers::born(run, d);
  }
  return to_dict(std::move(r));
}

nb::list born_shots(const std::string& config, bool is_path,
                    const std::vector<std::string>& overrides, const std::optional<Array>& velocity,
                    const Array& dm, const std::string& shots, bool shots_is_path) {
  const drivers::ImagingRun run = run_of(config, is_path, overrides, velocity, std::nullopt, 0, 0);
  const std::vector<double> d(dm.data(), dm.data() + dm.size());
  std::vector<std::vector<double>> rows;
  {
    nb::gil_scoped_release unlocked;
    rows = drivers::born_shots(run, shots, shots_is_path, d);
  }
  const std::size_t steps = std::size_t(run.config.steps) + 1;
  nb::list out;
  for (std::vector<double>& r : rows) {
    const std::size_t receivers = steps ? r.size() / steps : 0;
    out.append(numpy(std::move(r), {steps, receivers}));
  }
  return out;
}

double plan_dt(const std::string& config, bool is_path, const std::vector<std::string>& overrides,
               const std::optional<Array>& velocity) {
  const drivers::ImagingRun run = run_of(config, is_path, overrides, velocity, std::nullopt, 0, 0);
  nb::gil_scoped_release unlocked;
  return drivers::plan_dt(run);
}

}  // namespace

void bind_imaging(nb::module_& m) {
  m.def("_imaging_dt", &plan_dt, "config"_a, "is_path"_a, "overrides"_a, "velocity"_a.none(),
        "See strata.imaging.dt.");
  m.def("_imaging_gradient", &adjoint_run<drivers::gradient>, "config"_a, "is_path"_a,
        "overrides"_a, "velocity"_a.none(), "data"_a.none(), "memory_budget"_a, "checkpoints"_a,
        "data_dt"_a, "boundary_saving"_a, "illumination"_a, "See strata.imaging.gradient.");
  m.def("_imaging_migrate", &adjoint_run<drivers::migrate>, "config"_a, "is_path"_a, "overrides"_a,
        "velocity"_a.none(), "data"_a.none(), "memory_budget"_a, "checkpoints"_a, "data_dt"_a,
        "boundary_saving"_a, "illumination"_a, "See strata.imaging.migrate.");
  m.def("_imaging_shot_names", &shot_names, "config"_a, "is_path"_a, "overrides"_a,
        "velocity"_a.none(), "shots"_a, "shots_is_path"_a, "See strata.imaging.gradient.");
  m.def("_imaging_gradient_shots", &shots_run<false>, "config"_a, "is_path"_a, "overrides"_a,
        "velocity"_a.none(), "data"_a, "memory_budget"_a, "checkpoints"_a, "data_dt"_a,
        "boundary_saving"_a, "shots"_a, "shots_is_path"_a, "illumination"_a,
        "See strata.imaging.gradient.");
  m.def("_imaging_migrate_shots", &shots_run<true>, "config"_a, "is_path"_a, "overrides"_a,
        "velocity"_a.none(), "data"_a, "memory_budget"_a, "checkpoints"_a, "data_dt"_a,
        "boundary_saving"_a, "shots"_a, "shots_is_path"_a, "illumination"_a,
        "See strata.imaging.migrate.");
  m.def("_imaging_born_shots", &born_shots, "config"_a, "is_path"_a, "overrides"_a,
        "velocity"_a.none(), "dm"_a, "shots"_a, "shots_is_path"_a, "See strata.imaging.born.");
  m.def("_imaging_born", &born, "config"_a, "is_path"_a, "overrides"_a, "velocity"_a.none(), "dm"_a,
        "See strata.imaging.born.");
}

}  // namespace strata::python

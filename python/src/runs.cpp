// strata.run: the CLI's file-level runs (strata apply, strata poisson, strata wave) from
// Python, through the same drivers (drivers/apply.hpp, drivers/poisson.hpp, wave::run in
// drivers/wave): one process, or the job's ranks
// when the script runs under mpirun (`mpirun -np 4 python script.py`), each rank calling the
// same function. Under mpirun every rank validates, the ranks agree (a failure on one raises
// the same ValueError on every rank), then every rank runs. Results are dicts.
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <atomic>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "bindings.hpp"
#include "common.hpp"
#include "drivers/apply.hpp"
#include "drivers/imaging.hpp"
#include "drivers/outputs.hpp"
#include "drivers/poisson.hpp"
#include "strata/dist.hpp"
#include "strata/wave.hpp"

namespace strata::python {
namespace {

using namespace nb::literals;

// The job, started on the first run: under mpirun MPI starts here (every GPU left visible:
// CUDA may already be running in this process, so each rank takes its GPU by its place on
// the host), and ends when the interpreter exits (strata/run.py registers job_finish).
dist::Job& job() {
  static std::atomic<bool> started{false};
  if (!started.exchange(true)) {
    int argc = 0;
    char* none[] = {nullptr};
    char** argv = none;
    dist::Job::start(argc, argv, dist::Job::Gpus::all);
  }
  return dist::Job::get();
}

nb::dict job_info() {
  const dist::Job& j = job();
  return make_dict("rank", j.rank(), "size", j.size(), "local_rank", j.local_rank(), "local_size",
                   j.local_size(), "host", j.host(), "mpi", j.mpi());
}

void job_finish() { dist::Job::get().finish(); }

// Plans on every rank, then agrees: one rank's failure (an Error, or any other exception:
// memory, the file system) is every rank's ValueError (its message, "rank N: " in front where
// N is not 0), and no rank starts a run the others left or waits for one that failed.
template <class Plan, class Fn>
Plan plan_agreed(Fn&& plan) {
  const dist::Job& j = job();
  std::optional<Plan> p;
  std::string why;
  try {
    p.emplace(plan());
  } catch (const std::exception& e) {
    if (j.size() == 1) throw;
    why = e.what();
    if (why.empty()) why = "planning the run failed";
  }
  j.agree(why);
  return std::move(*p);
}

// Runs a plan. A failure every rank shares (AgreedError) raises on every rank; any other
// failure under mpirun is this rank's own while the others wait in the run's collectives:
// it is said with the rank, the unfinished files are removed, and the job ends (MPI_Abort),
// as the CLI does.
template <class Fn>
auto run_or_abort(Fn&& run) {
  try {
    return run();
  } catch (const dist::AgreedError&) {
    throw;
  } catch (const wave::Interrupted&) {  // rank 0's word: every rank stops at the same step
    throw;
  } catch (const std::exception& e) {
    const dist::Job& j = dist::Job::get();
    if (j.size() == 1) throw;
    std::fprintf(stderr, "strata: rank %d of %d on %s: %s\n(ending all ranks)\n", j.rank(),
                 j.size(), j.host().c_str(), e.what());
    drivers::remove_unfinished_outputs();
    j.abort(1);
  }
}

// A driver's run from Python: planned and agreed on every rank, then run, with the GIL
// released; the warnings it gave (collected in `warnings` by the run's callback) raised as
// RuntimeWarning after, prefixed with the function's name.
template <class Plan, class PlanFn, class RunFn>
auto plan_and_run(const char* fn, const std::vector<std::string>& warnings, PlanFn&& plan_fn,
                  RunFn&& run_fn) {
  std::optional<decltype(run_fn(std::declval<Plan&>()))> r;
  {
    nb::gil_scoped_release unlocked;
    Plan plan = plan_agreed<Plan>(plan_fn);
    r.emplace(run_or_abort([&] { return run_fn(plan); }));
  }
  for (const std::string& w : warnings)
    if (PyErr_WarnEx(PyExc_RuntimeWarning, (std::string(fn) + ": " + w).c_str(), 1) != 0)
      throw nb::python_error();
  return std::move(*r);
}

nb::dict apply_file(const std::string& in, const std::string& out, const std::string& stencil,
                    const std::optional<std::vector<double>>& coeffs, double h,
                    const std::string& bc, const std::string& precision, const std::string& device,
                    const std::string& grid, int steps, int fuse, const std::string& update,
                    bool allow_nonfinite, const std::string& json) {
  drivers::ApplyRun run;
  std::optional<std::span<const double>> k;
  if (coeffs) k = std::span<const double>(*coeffs);
  run.stencil = Stencil::named(stencil, 0, k, h);
  run.bc = Boundary::parse(bc);
  run.update = drivers::parse_update(update, "update");
  run.in = in;
  run.out = out;
  run.json = json;
  if (!precision.empty()) run.precision = parse_precision(precision, "strata.run.apply");
  run.device = strata::parse_device(device, "device");
  run.grid = grid;
  if (steps < 0) throw nb::value_error("strata.run.apply: steps must be >= 0");
  if (fuse < 0 || fuse > 4) throw nb::value_error("strata.run.apply: fuse must be in [0, 4]");
  run.steps = steps;
  run.fuse = fuse;
  run.allow_nonfinite = allow_nonfinite;
  run.words = drivers::Words::python();
  std::vector<std::string> warnings;
  run.on_warning = [&](const std::string& w) { warnings.push_back(w); };
  const drivers::ApplyResult r = plan_and_run<drivers::ApplyPlan>(
      "strata.run.apply", warnings, [&] { return drivers::plan_apply(run); },
      [](drivers::ApplyPlan& p) { return drivers::run_apply(p); });
  return make_dict("device", r.where, "shape", nb::make_tuple(r.n.nz, r.n.ny, r.n.nx), "precision",
                   std::string(to_string(r.precision)), "steps", r.steps, "steps_per_pass",
                   r.per_pass, "compute_ms", r.compute_ms, "gpts_per_step", r.gpts_per_step,
                   "report", r.report.dump(), "root", r.root);
}

nb::dict poisson_file(const std::optional<std::vector<int>>& shape, const std::string& rhs,
                      const std::string& out, const std::string& bc, const std::string& solver,
                      double rtol, double atol, const std::string& op, int max_iter,
                      const std::string& smoother, int pre, int post, bool mixed, double h,
                      const std::string& precision, const std::string& device,
                      const std::string& grid, const std::string& json) {
  drivers::PoissonRun run;
  PoissonOptions& o = run.options;
  o = poisson_options(bc, solver, rtol, atol, op, max_iter, smoother, mixed, h);
  o.pre = pre;
  o.post = post;
  if (shape) {
    if (shape->size() != 3) throw nb::value_error("strata.run.poisson: shape is (nz, ny, nx)");
    run.n = {(*shape)[2], (*shape)[1], (*shape)[0]};
  }
  run.rhs = rhs;
  run.out = out;
  run.json = json;
  run.precision = parse_precision(precision, "strata.run.poisson");
  run.device = strata::parse_device(device, "device");
  run.grid = grid;
  run.words = drivers::Words::python();
  std::vector<std::string> warnings;
  o.on_warning = [&](const std::string& w) { warnings.push_back(w); };
  const drivers::PoissonResult r = plan_and_run<drivers::PoissonPlan>(
      "strata.run.poisson", warnings, [&] { return drivers::plan_poisson(run); },
      [](drivers::PoissonPlan& p) { return drivers::run_poisson(p); });
  nb::dict d = make_dict("converged", r.report.converged, "message", r.report.message, "iterations",
                         r.report.iterations, "rel_residual", r.report.rel_residual, "h", r.h,
                         "setup_ms", r.report.setup_ms, "solve_ms", r.report.solve_ms, "root",
                         r.root, "report", r.root ? r.json.dump() : std::string("{}"));
  if (r.error) d["error_max"] = r.error->max_abs, d["error_rel_l2"] = r.error->rel_l2;
  return d;
}

// `strata wave --config ... --out-dir ...`: wave::run on every rank of the job (the grid split
// over them) or in one process; the ranks agree on every check (RunOptions::agree), so a
// script may make several runs. Returns report.json's text (rank 0's; the others' reports
// hold what their rank knows). An interrupt on rank 0 (Ctrl-C, or an exception raised in a
// callback) stops every rank at the same step: KeyboardInterrupt on the others.
nb::dict wave_dir(const std::string& config, bool is_path,
                  const std::vector<std::string>& overrides, const std::string& out_dir,
                  bool overwrite, const std::string& grid, const std::string& restart,
                  nb::handle on_progress, double progress_interval_s, nb::handle on_warning) {
  const dist::Job& j = job();
  PyCallbacks py;
  wave::RunOptions opt;
  opt.overwrite = overwrite;
  if (is_path) opt.config_file = config;  // --overwrite leaves it
  opt.grid = grid;
  opt.restart = restart;
  opt.agree = true;
  opt.progress_interval_s = progress_interval_s;
  if (!on_progress.is_none())
    opt.on_progress = [&](const wave::Progress& p) {
      py.call([&] { on_progress(wave_progress(p)); });
    };
  if (!on_warning.is_none())
    opt.on_warning = [&](const std::string& w) { py.call([&] { on_warning(w); }); };
  opt.cancelled = [&] { return py.call([] {}); };
  wave::Report report;
  std::string interrupted;
  {
    nb::gil_scoped_release unlocked;
    // The configuration too is a check every rank makes (a file one host cannot read).
    wave::Config cfg = plan_agreed<wave::Config>([&] {
      wave::Config c = wave_config(config, is_path, overrides);
      if (!out_dir.empty()) c.out_dir = out_dir;
      return c;
    });
    try {
      report = run_or_abort([&] { return wave::run(cfg, opt); });
    } catch (const wave::Interrupted& e) {
      interrupted = e.what();
    }
  }
  py.rethrow();  // KeyboardInterrupt (or the callback's exception) where it was raised
  if (!interrupted.empty()) {
    PyErr_SetString(PyExc_KeyboardInterrupt, ("strata.run.wave: " + interrupted).c_str());
    throw nb::python_error();
  }
  return make_dict("root", j.root(), "report", wave::to_json(report));
}

// strata gradient / strata migrate on files (drivers::run_imaging_files), one shot or a shots
// file's shots dealt over the ranks. The driver's checks end where it calls on_checked: a rank
// that fails before says why in the same agreement the others make there, so the failure is
// every rank's ValueError; after it a failure is the rank's own and ends the job.
nb::dict imaging_files(bool migrate, const std::string& config, bool is_path,
                       const std::vector<std::string>& overrides, const std::string& data,
                       const std::string& shots, const std::string& velocity,
                       const std::string& image, const std::string& compensated,
                       const std::string& gradient, const std::string& predicted,
                       const std::string& illumination, const std::string& json,
                       double memory_budget, int checkpoints, bool boundary_saving,
                       double data_dt) {
  const dist::Job& j = job();
  drivers::ImagingFiles f;
  drivers::ImagingResult r;
  std::string report;
  bool checked = false;
  {
    nb::gil_scoped_release unlocked;
    f.on_checked = [&] {
      checked = true;
      if (j.size() > 1) j.agree("");
    };
    try {
      f.mode =
          migrate ? drivers::ImagingFiles::Mode::migrate : drivers::ImagingFiles::Mode::gradient;
      f.keywords = true;  // its messages name data=, gradient=, ...
      f.run.config = wave_config(config, is_path, overrides);
      if (is_path) f.config = config;  // an input no output may name
      if (!(memory_budget >= 0) || checkpoints < 0 || !(data_dt >= 0))
        throw Error("memory_budget, checkpoints and data_dt must be >= 0");
      f.run.memory_budget = memory_budget;
      f.run.checkpoints = checkpoints;
      f.run.boundary_saving = boundary_saving;
      f.run.data_dt = data_dt;
      f.data = data;
      f.shots = shots;
      f.velocity = velocity;
      f.image = image;
      f.compensated = compensated;
      f.gradient = gradient;
      f.predicted = predicted;
      f.illumination = illumination;
      f.json = json;
      r = drivers::run_imaging_files(f);
    } catch (const dist::AgreedError&) {
      throw;
    } catch (const std::exception& e) {
      if (j.size() == 1) throw;
      if (!checked) {
        const std::string why = *e.what() ? e.what() : "checking the imaging run failed";
        j.agree(why);  // throws on every rank
      }
      std::fprintf(stderr, "strata: rank %d of %d on %s: %s\n(ending all ranks)\n", j.rank(),
                   j.size(), j.host().c_str(), e.what());
      drivers::remove_unfinished_outputs();
      j.abort(1);
    }
    if (j.root()) report = drivers::imaging_report(f, r);
  }
  return make_dict("root", j.root(), "report", report);
}

}  // namespace

void bind_runs(nb::module_& m) {
  m.def("_job", &job_info, "This process's place in the job (starts it: MPI under mpirun).");
  m.def("_job_finish", &job_finish, "Ends the job (MPI_Finalize under mpirun).");
  m.def("_run_apply", &apply_file, "in_"_a, "out"_a, "stencil"_a, "coeffs"_a.none(), "h"_a, "bc"_a,
        "precision"_a, "device"_a, "grid"_a, "steps"_a, "fuse"_a, "update"_a, "allow_nonfinite"_a,
        "json"_a, "strata apply on .npy files. See strata.run.apply.");
  m.def("_run_poisson", &poisson_file, "shape"_a.none(), "rhs"_a, "out"_a, "bc"_a, "solver"_a,
        "rtol"_a, "atol"_a, "op"_a, "max_iter"_a, "smoother"_a, "pre"_a, "post"_a, "mixed"_a, "h"_a,
        "precision"_a, "device"_a, "grid"_a, "json"_a, "strata poisson. See strata.run.poisson.");
  m.def("_run_imaging", &imaging_files, "migrate"_a, "config"_a, "is_path"_a, "overrides"_a,
        "data"_a, "shots"_a, "velocity"_a, "image"_a, "compensated"_a, "gradient"_a, "predicted"_a,
        "illumination"_a, "json"_a, "memory_budget"_a, "checkpoints"_a, "boundary_saving"_a,
        "data_dt"_a, "strata gradient / strata migrate on files. See strata.run.gradient.");
  m.def("_run_wave", &wave_dir, "config"_a, "is_path"_a, "overrides"_a, "out_dir"_a, "overwrite"_a,
        "grid"_a, "restart"_a, "on_progress"_a.none(), "progress_interval_s"_a,
        "on_warning"_a.none(), "strata wave into a run directory. See strata.run.wave.");
}

}  // namespace strata::python

// The imaging runs from a wave configuration: the model (the configuration's, or the caller's
// dense one) and the plan resolved as `strata wave` resolves them, the shot's wavelets as the
// wave solver makes them, the data's rows checked against the plan, then solvers/imaging.
#include "drivers/imaging.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <functional>
#include <memory>
#include <span>
#include <string>

#include <nlohmann/json.hpp>

#include "drivers/job.hpp"
#include "drivers/outputs.hpp"
#include "drivers/wave/results.hpp"
#include "io/segy.hpp"
#include "solvers/imaging/born.hpp"
#include "strata/npy.hpp"
#include "solvers/imaging/gradient.hpp"
#include "solvers/wave/geometry.hpp"
#include "solvers/wave/model.hpp"
#include "solvers/wave/numerics.hpp"
#include "solvers/wave/plan.hpp"
#include "strata/dist.hpp"
#include "strata/reduce.hpp"

namespace strata::drivers {

namespace {

// " at [z][y][x] = [z][y][x]": where dense index i lies on a grid of shape n.
std::string at_point(std::size_t i, const Extent& n) {
  const std::size_t nx = std::size_t(n.nx), plane = nx * std::size_t(n.ny);
  return " at [z][y][x] = [" + std::to_string(i / plane) + "][" + std::to_string(i % plane / nx) +
         "][" + std::to_string(i % nx) + "]";
}

template <class T>
struct Prepared {
  wave::Setup setup;
  wave::Plan plan;
  std::vector<T> dense;           // a dense model (a file's, or the caller's in T)
  std::unique_ptr<T[]> expanded;  // a layered or constant model's planes, each over its plane
  std::span<const T> velocity;    // the one of them the run reads, dense [z][y][x]
  imaging::Shot shot;
};

template <class T>
Prepared<T> prepare(const ImagingRun& run) {
  // output.segy is strata wave's seismogram.sgy, which imaging does not write: its limits on dt
  // are not this run's (--predicted's are, when it is SEG-Y: below).
  wave::Config c = run.config;
  c.segy = false;
  if (c.receiver_every != 1)
    throw Error("receivers.every = " + std::to_string(c.receiver_every) +
                ": imaging needs the data of every step (receivers.every = 1)");
  if (c.steps < 1) throw Error("time.steps must be at least 1 for imaging");
  const std::size_t points = c.shape.points();
  Prepared<T> p;
  wave::Resolved r;
  if (!run.velocity.empty()) {
    if (run.velocity.size() != points)
      throw Error("the velocity model holds " + std::to_string(run.velocity.size()) +
                  " values; the grid " + c.shape.str() + " has " + std::to_string(points));
    // Checked as the run's precision holds it: a finite double beyond float's range (or below
    // its smallest value) is no f32 velocity.
    p.dense.resize(points);
    for (std::size_t i = 0; i < points; ++i) {
      const T v = T(run.velocity[i]);
      if (!(v > 0) || !std::isfinite(v))
        throw Error("the velocity model holds " + format_number(run.velocity[i]) +
                    at_point(i, c.shape) +
                    (std::isfinite(run.velocity[i]) && run.velocity[i] > 0
                         ? std::string(", outside the range of ") + to_string(c.precision)
                         : std::string()) +
                    ": every velocity must be finite and > 0");
      p.dense[i] = v;
    }
    p.velocity = p.dense;
    r = wave::resolve<T>(c, p.velocity);
  } else {
    // Resolved from the model as the wave solver resolves it (a layered model's planes, not
    // the dense grid made from them: the same plan and digest as `strata wave`, without
    // scanning 134 M points at 512^3).
    wave::VelocityModel<T> v = wave::load_velocity<T>(c);
    r = wave::resolve<T>(c, v.values());
    if (!v.dense.empty()) {
      p.dense = std::move(v.dense);
      p.velocity = p.dense;
    } else {
      // Each plane's value over its plane, written once and in parallel (the pages first
      // touched by the threads that fill them): a zeroed vector filled after took 0.22 s at
      // 512^3 on 2 cores, the zeroing and its page faults nearly all of it.
      const std::size_t plane = std::size_t(c.shape.nx) * c.shape.ny;
      p.expanded = std::make_unique_for_overwrite<T[]>(points);
      T* out = p.expanded.get();
      const std::ptrdiff_t nz = std::ptrdiff_t(v.planes.size());
#pragma omp parallel for schedule(static)
      for (std::ptrdiff_t z = 0; z < nz; ++z)
        std::fill_n(out + std::size_t(z) * plane, plane, v.planes[z]);
      p.velocity = std::span<const T>(out, points);
    }
  }
  p.setup = std::move(r.setup);
  p.plan = std::move(r.plan);
  p.setup.trace_rows = c.steps + 1;
  if (run.boundary_saving && (run.checkpoints > 0 || run.memory_budget > 0))
    throw Error(
        "boundary saving keeps rings, not states: give it, or a memory budget or a "
        "number of kept states, not both");
  if (run.boundary_saving)
    if (const std::string why = imaging::boundary_saving_problem(p.setup); !why.empty())
      throw Error(why);
  if (run.predicted_segy) wave::check_segy(c, p.plan, "--predicted (SEG-Y)", "write it as .npy");
  if (run.data_dt > 0 && std::fabs(run.data_dt - p.plan.dt) > 0.5e-6)
    throw Error("the data's sample interval " + std::to_string(run.data_dt * 1e6) +
                " us is not the configuration's dt " + std::to_string(p.plan.dt * 1e6) +
                " us: set time.dt to the data's (imaging needs a sample every step)");
  const std::size_t ns = c.sources.size(), nr = p.setup.receivers.size();
  if (nr == 0) throw Error("imaging needs receivers (receivers.points, lines or planes)");
  p.shot.steps = c.steps;
  p.shot.wavelets.resize(std::size_t(c.steps) * ns);
  for (int n = 0; n < c.steps; ++n)  // as the wave solver takes them
    for (std::size_t j = 0; j < ns; ++j)
      p.shot.wavelets[std::size_t(n) * ns + j] =
          wave::source_wavelet(c.sources[j], double(n) * p.plan.dt);
  // Data given with a shape are checked even when empty: an empty array is not the zeros
  // that no data stand for.
  if (!run.data.empty() || run.data_shape != std::array<std::size_t, 2>{}) {
    const std::size_t rows = std::size_t(c.steps) + 1;
    const auto [given_rows, given_receivers] = run.data_shape;
    if ((given_rows != 0 || given_receivers != 0) && (given_rows != rows || given_receivers != nr))
      throw Error(
          "the data are (" + std::to_string(given_rows) + ", " + std::to_string(given_receivers) +
          "); the configuration records " + std::to_string(rows) +
          " rows (time.steps + 1, row 0 at step 0) of " + std::to_string(nr) + " receivers" +
          (given_rows == nr && given_receivers == rows && rows != nr
               ? ": the array is transposed (strata wave's seismogram.npy is time by receiver)"
               : ""));
    if (run.data.size() != rows * nr)
      throw Error("the data hold " + std::to_string(run.data.size()) +
                  " values; the configuration records " + std::to_string(rows) +
                  " rows (time.steps + 1, row 0 at step 0) of " + std::to_string(nr) +
                  " receivers (" + std::to_string(rows * nr) + " values)");
    // Finite, and small enough that 1/2 |data|^2 (the misfit against a zero prediction) is a
    // double: beyond that the misfit is inf (a JSON report's null), the adjoint's sources
    // near overflow. And a value of the run's precision, as the velocity is: the adjoint takes
    // the data as its source in that precision on a GPU (a finite double beyond float's range
    // is inf there, and the gradient NaN), in double on the CPU; either device refuses alike.
    double half_squares = 0;
    std::size_t largest = nr;  // row 1's first: the data hold at least rows 0 and 1
    for (std::size_t i = 0; i < run.data.size(); ++i) {
      if (!std::isfinite(run.data[i]))
        throw Error("the data hold " + std::to_string(run.data[i]) + " at row " +
                    std::to_string(i / nr) + ", receiver " + std::to_string(i % nr) +
                    ": every value must be finite");
      if (!std::isfinite(T(run.data[i])))
        throw Error("the data hold " + format_number(run.data[i]) + " at row " +
                    std::to_string(i / nr) + ", receiver " + std::to_string(i % nr) +
                    ", outside the range of " + to_string(c.precision) +
                    ", the run's precision: scale the data, or run in f64");
      if (i < nr) continue;  // row 0 (step 0, at rest) is not compared
      half_squares += 0.5 * run.data[i] * run.data[i];
      if (std::fabs(run.data[i]) > std::fabs(run.data[largest])) largest = i;
    }
    if (!std::isfinite(half_squares))
      throw Error("the data hold " + format_number(run.data[largest]) + " at row " +
                  std::to_string(largest / nr) + ", receiver " + std::to_string(largest % nr) +
                  ": 1/2 |data|^2 overflows a double, so no misfit can be summed; scale the "
                  "data (a wave run's samples are of the order of its sources' amplitudes)");
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
  r.receiver_positions = p.plan.receivers;
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
  r.boundary_saving = g.boundary_saving;
  r.fused_imaging = g.fused_imaging;
  r.checkpoint_bytes = g.checkpoint_bytes;
  r.forward_steps = g.forward_steps;
  r.forward_timed_steps = g.forward_timed_steps;
  r.recomputation = g.recomputation;
  r.forward_seconds = g.forward_seconds;
  r.adjoint_seconds = g.adjoint_seconds;
  r.checkpoint_seconds = g.checkpoint_seconds;
  r.setup_seconds = g.setup_seconds;
  r.setup_parts = g.setup_parts;
  r.finish_parts = g.finish_parts;
  r.step_timeline_ms = g.step_timeline_ms;
  r.finish_seconds = g.finish_seconds;
  r.seconds = g.seconds;
}

imaging::GradientOptions options_of(const ImagingRun& run) {
  imaging::GradientOptions o;
  o.memory_budget = run.memory_budget;
  o.checkpoints = run.checkpoints;
  o.boundary_saving = run.boundary_saving;
  o.illumination = run.illumination;
  o.fused_imaging = run.fused_imaging;
  o.reversed_step_updates_layers = run.reversed_step_updates_layers;
  return o;
}

// The index of the first value of v that is not finite, or v.size() when all are (strata's
// own check_finite on the host).
std::size_t first_not_finite(const std::vector<double>& v) {
  const FiniteReport<double> r = check_finite(v.data(), v.size(), Memory::host);
  return r.all_finite ? v.size() : r.index;
}

// Every array and sum of a result is finite, else an Error before anything is written: values
// that outgrew the run's precision while it ran (an f32 adjoint on a GPU keeps its field in
// f32), or a sum over shots beyond a double's range (each shot's finite).
void require_finite(const ImagingResult& r, Precision precision, std::size_t shots) {
  const std::string why = std::string(": the run's values outgrew ") +
                          (precision == Precision::f32 ? "f32 (run in f64, or " : "a double (") +
                          "scale the data and the sources' amplitudes); nothing is written";
  const Extent& n = r.shape;
  for (const auto& [what, v] :
       {std::pair<const char*, const std::vector<double>*>{"gradient", &r.gradient},
        {"image", &r.image},
        {"compensated image", &r.compensated},
        {"illumination", &r.illumination}}) {
    const std::size_t i = first_not_finite(*v);
    if (i == v->size()) continue;
    throw Error(std::string("the ") + what + " holds " + std::to_string((*v)[i]) + at_point(i, n) +
                why);
  }
  if (const std::size_t i = first_not_finite(r.predicted); i != r.predicted.size())
    throw Error("the predicted data hold " + std::to_string(r.predicted[i]) + " at row " +
                std::to_string(i / std::size_t(std::max(1, r.receivers))) + why);
  if (!std::isfinite(r.misfit))
    throw Error("the misfit is " + std::to_string(r.misfit) +
                (shots > 1 ? ", summed over " + std::to_string(shots) +
                                 " shots whose own misfits are finite: their sum overflows a "
                                 "double (scale the data); nothing is written"
                           : why));
}

template <class T>
ImagingResult gradient_t(const ImagingRun& run) {
  const Prepared<T> p = prepare<T>(run);
  ImagingResult r = result_of(p, run);
  imaging::Gradient g = imaging::misfit_gradient<T>(
      p.setup, p.plan.device, p.velocity, p.plan.dt / run.config.spacing, p.shot, options_of(run));
  r.gradient = std::move(g.gradient);
  take(r, std::move(g));
  require_finite(r, run.config.precision, 1);
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
  r.illumination = std::move(im.illumination);  // moved from the run to the image
  r.misfit = 0;                                 // not a misfit: the data are the adjoint's source
  require_finite(r, run.config.precision, 1);
  return r;
}

template <class T>
ImagingResult born_t(const ImagingRun& run, std::span<const double> dm) {
  const Prepared<T> p = prepare<T>(run);
  ImagingResult r = result_of(p, run);
  if (dm.size() != run.config.shape.points())
    throw Error("dm holds " + std::to_string(dm.size()) + " values; the grid " +
                run.config.shape.str() + " has " + std::to_string(run.config.shape.points()));
  for (std::size_t i = 0; i < dm.size(); ++i) {
    if (!std::isfinite(dm[i]))
      throw Error("dm holds " + std::to_string(dm[i]) + " at point " + std::to_string(i) +
                  " ([z][y][x] order): every value must be finite");
    if (!std::isfinite(T(dm[i])))
      throw Error("dm holds " + format_number(dm[i]) + " at point " + std::to_string(i) +
                  " ([z][y][x] order), outside the range of " + to_string(run.config.precision) +
                  ", the run's precision");
  }
  const std::vector<double> d = imaging::born<T>(p.setup, p.plan.device, p.velocity,
                                                 p.plan.dt / run.config.spacing, p.shot, dm);
  r.predicted.assign(std::size_t(r.receivers), 0.0);
  r.predicted.insert(r.predicted.end(), d.begin(), d.end());
  require_finite(r, run.config.precision, 1);
  return r;
}

}  // namespace

double plan_dt(const ImagingRun& run) {
  return run.config.precision == Precision::f32 ? prepare<float>(run).plan.dt
                                                : prepare<double>(run).plan.dt;
}

ImagingResult gradient(const ImagingRun& run) {
  return run.config.precision == Precision::f32 ? gradient_t<float>(run) : gradient_t<double>(run);
}
ImagingResult migrate(const ImagingRun& run) {
  return run.config.precision == Precision::f32 ? migrate_t<float>(run) : migrate_t<double>(run);
}
ImagingResult born(const ImagingRun& run, std::span<const double> dm) {
  return run.config.precision == Precision::f32 ? born_t<float>(run, dm) : born_t<double>(run, dm);
}

namespace {

// Every check a run makes before its first step (the model, the plan, the shot's sources and
// data); returns the device it would run on.
Device check_run(const ImagingRun& run) {
  return run.config.precision == Precision::f32 ? prepare<float>(run).plan.device
                                                : prepare<double>(run).plan.device;
}

}  // namespace

namespace {

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

bool is_segy(const std::string& path) {
  return ends_with(path, ".sgy") || ends_with(path, ".segy") || ends_with(path, ".SGY") ||
         ends_with(path, ".SEGY");
}

// The data as (steps + 1) x receivers, from .npy or SEG-Y; the shape is checked by prepare().
std::vector<double> read_data(const std::string& path, ImagingRun& run) {
  if (is_segy(path)) {
    const io::segy::Dataset<double> d = io::segy::read<double>(path);
    const std::size_t nr = d.traces.size();
    if (nr == 0) throw Error("'" + path + "' holds no trace");
    const std::size_t rows = d.trace(0).size();
    for (std::size_t r = 0; r < nr; ++r)
      if (d.trace(r).size() != rows)
        throw Error("'" + path + "': trace " + std::to_string(r + 1) + " has " +
                    std::to_string(d.trace(r).size()) + " samples, trace 1 " +
                    std::to_string(rows) + ": imaging needs one trace per receiver, all alike");
    std::vector<double> out(rows * nr);
    for (std::size_t r = 0; r < nr; ++r)
      for (std::size_t i = 0; i < rows; ++i) out[i * nr + r] = d.trace(r)[i];
    const double file_dt = d.header.sample_interval_us * 1e-6;
    if (run.data_dt > 0 && std::fabs(run.data_dt - file_dt) > 0.5e-6)
      throw Error("'" + path + "' is sampled every " + std::to_string(file_dt * 1e6) +
                  " us, not the " + std::to_string(run.data_dt * 1e6) +
                  " us given as the data's dt");
    run.data_dt = file_dt;
    run.data_shape = {rows, nr};
    if (out.empty()) throw Error("'" + path + "' holds traces of no samples");
    return out;
  }
  std::vector<std::size_t> shape;
  std::vector<double> v = npy_read<double>(path, shape);
  if (shape.size() != 2)
    throw Error(
        "'" + path + "' is a " + std::to_string(shape.size()) +
        "-dimensional array: the data are (steps + 1, receivers), as strata wave's seismogram.npy");
  run.data_shape = {shape[0], shape[1]};
  if (v.empty())  // (0, 0) too: no data would be taken for zeros
    throw Error("'" + path + "' is a (" + std::to_string(shape[0]) + ", " +
                std::to_string(shape[1]) +
                ") array, empty: the data are (steps + 1, receivers), as strata wave's "
                "seismogram.npy");
  return v;
}

// One shot's data in the directory `strata wave --shots` wrote (f.data).
std::string shot_data(const ImagingFiles& f, const std::string& name) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_directory(f.data, ec))
    throw Error(f.option("--data") + " '" + f.data + "' " +
                (fs::exists(f.data, ec) ? "is not a directory" : "does not exist") + ": with " +
                f.option("--shots") +
                " it is the directory strata wave --shots wrote (NAME/seismogram.npy or .sgy a "
                "shot)");
  const fs::path d = fs::path(f.data) / name;
  for (const char* file : {"seismogram.npy", "seismogram.sgy"})
    if (fs::exists(d / file)) return (d / file).string();
  throw Error(f.option("--data") + " '" + f.data + "': shot " + name + " has neither " +
              (d / "seismogram.npy").string() + " nor seismogram.sgy (" + f.option("--data") +
              " is the directory strata wave --shots wrote)");
}

void read_velocity(ImagingFiles& f) {
  if (f.velocity.empty()) return;
  const wave::Config& c = f.run.config;
  if (is_segy(f.velocity)) {  // a depth volume of the configuration's grid
    try {
      f.run.velocity =
          io::segy::read_volume(f.velocity, c.shape.nx, c.shape.ny, c.shape.nz, c.spacing);
    } catch (const Error& err) {
      throw Error(f.option("--velocity") + ": " + err.what());
    }
    return;
  }
  Extent e;
  try {
    f.run.velocity = npy_read_3d<double>(f.velocity, e);
  } catch (const Error& err) {
    throw Error(f.option("--velocity") + ": " + err.what());
  }
  if (!(e == c.shape))
    throw Error(f.option("--velocity") + " '" + f.velocity + "' is " + e.str() +
                "; the configuration's grid is " + c.shape.str());
}

// The runs of shots 0 .. names.size() - 1 (shot_run(i): shot i's run), shot i on rank
// i % ranks, their fields, illuminations and misfits summed on rank 0 in the list's order
// from zero: the same bits on any number of ranks. One process (ranks 1) exchanges nothing
// and may keep each shot's predicted data.
ImagingResult sum_shots(bool migrate_mode, const std::vector<std::string>& names,
                        const std::function<ImagingRun(std::size_t)>& shot_run,
                        const ImagingRun& base_run, int ranks, int rank,
                        std::vector<std::vector<double>>* predicted) {
  const wave::Config& base = base_run.config;
  const dist::Job& job = dist::Job::get();
  using Clock = std::chrono::steady_clock;
  const std::size_t points = base.shape.points();
  const int steps = base.steps;
  const bool lit = base_run.illumination;  // the shots sum their illuminations
  // Another rank's shot arrives in field and light; in one process every shot is this one's.
  const std::size_t relay = ranks > 1 ? points : 0;
  std::vector<double> sum, sum_light, field(relay), light(lit ? relay : 0);
  if (rank == 0) sum.assign(points, 0.0), sum_light.assign(lit ? points : 0, 0.0);
  ImagingResult total;
  // Summed in shot order: forward, adjoint, checkpoints, runs, set-up, finish.
  double times[6] = {};
  for (std::size_t first = 0; first < names.size(); first += std::size_t(ranks)) {
    const std::size_t last = std::min(names.size(), first + std::size_t(ranks));
    ImagingResult mine;
    double seconds = 0;
    if (first + std::size_t(rank) < last) {
      const Clock::time_point t0 = Clock::now();
      mine = migrate_mode ? migrate(shot_run(first + std::size_t(rank)))
                          : gradient(shot_run(first + std::size_t(rank)));
      seconds = std::chrono::duration<double>(Clock::now() - t0).count();
      if (first == 0 && rank == 0) {  // what every shot shares (not its fields: no copies)
        total.shape = mine.shape;
        total.device = mine.device;
        total.dt = mine.dt;
        total.receivers = mine.receivers;
        total.rows = mine.rows;
        total.checkpoints = mine.checkpoints;
        total.checkpoint_bytes = mine.checkpoint_bytes;
        total.boundary_saving = mine.boundary_saving;
        total.fused_imaging = mine.fused_imaging;
      }
    }
    for (std::size_t i = first; i < last; ++i) {
      const int owner = int(i % std::size_t(ranks));
      std::vector<double>& a = owner == rank ? (migrate_mode ? mine.image : mine.gradient) : field;
      std::vector<double>& b = owner == rank ? mine.illumination : light;
      double meta[10] = {
          mine.misfit,          double(mine.forward_steps),      seconds,      mine.forward_seconds,
          mine.adjoint_seconds, mine.checkpoint_seconds,         mine.seconds, mine.setup_seconds,
          mine.finish_seconds,  double(mine.forward_timed_steps)};
      if (ranks > 1) {
        job.broadcast(a.data(), points * sizeof(double), owner);
        if (lit) job.broadcast(b.data(), points * sizeof(double), owner);
        job.broadcast(meta, sizeof meta, owner);
      }
      if (rank != 0) continue;
      if (predicted) predicted->push_back(mine.predicted);  // one process: every shot is its own
      for (std::size_t k = 0; k < points; ++k) sum[k] += a[k];
      if (lit)
        for (std::size_t k = 0; k < points; ++k) sum_light[k] += b[k];
      total.shots.push_back({names[i], owner, meta[0], meta[2], (long long)meta[1]});
      times[0] += meta[3], times[1] += meta[4], times[2] += meta[5], times[3] += meta[6];
      times[4] += meta[7], times[5] += meta[8];
      total.forward_timed_steps += (long long)meta[9];
    }
  }
  total.ranks = ranks;
  if (rank != 0) return total;
  total.misfit = 0;
  total.forward_steps = 0;
  for (const ImagingResult::ShotDone& d : total.shots) {  // in the file's order
    total.misfit += d.misfit;
    total.forward_steps += d.forward_steps;
  }
  total.recomputation = double(total.forward_steps) / (double(steps) * double(names.size()));
  total.forward_seconds = times[0];
  total.adjoint_seconds = times[1];
  total.checkpoint_seconds = times[2];
  total.seconds = times[3];
  total.setup_seconds = times[4];
  total.finish_seconds = times[5];
  if (migrate_mode) {
    total.misfit = 0;  // not a misfit: the data are the adjoint's source
    if (lit) total.compensated = imaging::compensate(sum, sum_light);
    total.image = std::move(sum);
  } else {
    total.gradient = std::move(sum);
  }
  total.illumination = std::move(sum_light);
  require_finite(total, base.precision, names.size());
  return total;
}

// The outputs, named as the caller speaks, in the order of Out.
enum Out { kImage, kCompensated, kGradient, kPredicted, kIllumination, kJson };
std::vector<Output> outputs_of(const ImagingFiles& f) {
  return {{f.option("--image"), f.image},
          {f.option("--compensated"), f.compensated},
          {f.option("--gradient"), f.gradient},
          {f.option("--predicted"), f.predicted},
          {f.option("--illumination"), f.illumination},
          {f.option("--json"), f.json}};
}

// The shots dealt over the ranks (shot i on rank i % ranks), a round of one shot a rank at a
// time; after each round every shot's field goes out from its rank and rank 0 adds them in
// the shots file's order: the same bits on any number of ranks, one shot's fields a rank.
ImagingResult run_shots(ImagingFiles& f, const std::function<void(const char*)>& phase) {
  const dist::Job& job = dist::Job::get();
  const int ranks = job.size(), rank = job.rank();
  const bool migrate_mode = f.mode == ImagingFiles::Mode::migrate;
  if (!f.predicted.empty())
    throw Error(f.option("--predicted") + " writes one shot's data: with " + f.option("--shots") +
                ", `strata wave --shots` writes every shot's, or run the "
                "shot alone");
  read_velocity(f);
  const std::vector<wave::Shot> shots = wave::parse_shots_file(f.shots, f.run.config);
  // Each shot's data file is an input too: no output may name one (every rank checks them
  // all, so every rank refuses alike).
  std::vector<Input> shot_files;
  for (const wave::Shot& shot : shots)
    shot_files.push_back(
        {f.option("--data") + " directory's shot " + shot.name, shot_data(f, shot.name)});
  check_not_inputs(outputs_of(f), shot_files);
  auto shot_run = [&](std::size_t i) {
    ImagingRun run = f.run;
    run.config = wave::shot_config(f.run.config, shots[i]);
    const std::string path = shot_data(f, shots[i].name);
    try {
      run.data = read_data(path, run);
    } catch (const Error& e) {
      throw Error(f.option("--data") + ": shot " + shots[i].name + ": " + e.what());
    }
    return run;
  };
  // Every check of this rank's shots before any work; their data are read again for the run.
  Device device = Device::cpu;
  for (std::size_t i = std::size_t(rank); i < shots.size(); i += std::size_t(ranks)) {
    const ImagingRun run = shot_run(i);
    try {
      device = check_run(run);
    } catch (const Error& e) {
      throw Error("shot " + shots[i].name + ": " + e.what());
    }
  }
  if (ranks > 1 && std::size_t(rank) < shots.size()) bind_gpu(device, true);
  phase("read");
  if (f.on_checked) f.on_checked();

  std::vector<std::string> names;
  for (const wave::Shot& shot : shots) names.push_back(shot.name);
  return sum_shots(migrate_mode, names, shot_run, f.run, ranks, rank, nullptr);
}

// Every shot's run checked before any work, a refusal naming its shot.
void check_each_shot(const std::vector<wave::Shot>& list,
                     const std::function<ImagingRun(std::size_t)>& shot_run) {
  for (std::size_t i = 0; i < list.size(); ++i) {
    try {
      check_run(shot_run(i));
    } catch (const Error& e) {
      throw Error("shot " + list[i].name + ": " + e.what());
    }
  }
}

std::vector<wave::Shot> parse_shots_arg(const ImagingRun& base, const std::string& shots,
                                        bool is_path) {
  return is_path ? wave::parse_shots_file(shots, base.config)
                 : wave::parse_shots(shots, base.config);
}

}  // namespace

std::vector<std::string> shot_names(const ImagingRun& base, const std::string& shots,
                                    bool is_path) {
  std::vector<std::string> names;
  for (const wave::Shot& shot : parse_shots_arg(base, shots, is_path)) names.push_back(shot.name);
  return names;
}

ImagingResult image_shots(bool migrate_mode, const ImagingRun& base, const std::string& shots,
                          bool is_path, const std::vector<std::vector<double>>& data,
                          std::vector<std::vector<double>>* predicted,
                          const std::vector<std::array<std::size_t, 2>>& shapes) {
  const std::vector<wave::Shot> list = parse_shots_arg(base, shots, is_path);
  if (data.size() != list.size())
    throw Error(std::to_string(list.size()) + " shots but " + std::to_string(data.size()) +
                " data arrays: give one per shot, in the shots' order");
  auto shot_run = [&](std::size_t i) {
    ImagingRun run = base;
    run.config = wave::shot_config(base.config, list[i]);
    run.data = data[i];
    if (i < shapes.size()) run.data_shape = shapes[i];
    return run;
  };
  check_each_shot(list, shot_run);
  std::vector<std::string> names;
  for (const wave::Shot& shot : list) names.push_back(shot.name);
  return sum_shots(migrate_mode, names, shot_run, base, 1, 0, predicted);
}

std::vector<std::vector<double>> born_shots(const ImagingRun& base, const std::string& shots,
                                            bool is_path, std::span<const double> dm) {
  const std::vector<wave::Shot> list = parse_shots_arg(base, shots, is_path);
  auto shot_run = [&](std::size_t i) {
    ImagingRun run = base;
    run.config = wave::shot_config(base.config, list[i]);
    return run;
  };
  check_each_shot(list, shot_run);
  std::vector<std::vector<double>> out;
  for (std::size_t i = 0; i < list.size(); ++i) out.push_back(born(shot_run(i), dm).predicted);
  return out;
}

std::string ImagingFiles::option(const std::string& cli) const {
  if (!keywords || cli.rfind("--", 0) != 0) return cli;
  std::string word = cli.substr(2);
  std::replace(word.begin(), word.end(), '-', '_');
  return word;
}

ImagingResult run_imaging_files(ImagingFiles& f) {
  using Clock = std::chrono::steady_clock;
  Clock::time_point t = Clock::now();
  f.timing_s = {{"process_start", std::chrono::duration<double>(t - f.start).count()}};
  auto phase = [&](const char* name) {
    const Clock::time_point now = Clock::now();
    f.timing_s.emplace_back(name, std::chrono::duration<double>(now - t).count());
    t = now;
  };
  const bool migrate_mode = f.mode == ImagingFiles::Mode::migrate;
  // The illumination (a pass over the wavefield at every forward step) is summed only where
  // an output needs it: --illumination, and migrate's --compensated (the image over it).
  f.run.illumination = !f.illumination.empty() || (migrate_mode && !f.compensated.empty());
  const std::vector<Output> out = outputs_of(f);
  const std::string data = f.option("--data");
  check_outputs({out[kImage], out[kCompensated], out[kGradient], out[kPredicted],
                 out[kIllumination], out[kJson]},
                {{f.option("--config"), f.config},
                 {data, f.data},
                 {f.option("--velocity"), f.velocity},
                 {f.option("--shots"), f.shots},
                 {"model.file", f.run.config.model == wave::ModelKind::npy ? f.run.config.model_file
                                                                           : std::string()}});
  const wave::Config& c = f.run.config;
  for (const Out k : {kImage, kCompensated, kGradient, kIllumination}) {  // the volumes
    const std::string& option = out[k].option;
    const std::string& path = out[k].path;
    if (is_segy(path))
      if (const std::string why = io::segy::volume_problem(c.shape.nz, c.spacing); !why.empty())
        throw Error(option + " '" + path + "' (SEG-Y): " + why + "; write .npy instead");
  }
  if (f.data.empty())
    throw Error(
        data + " is required: the " + std::string(migrate_mode ? "reflections" : "observed data") +
        (f.shots.empty() ? " (.npy or .sgy)" : " (the directory strata wave --shots wrote)"));
  ImagingResult r;
  if (!f.shots.empty()) {
    r = run_shots(f, phase);
  } else {
    if (const int ranks = dist::Job::get().size(); ranks > 1)
      throw Error("one shot runs in one process, not on " + std::to_string(ranks) +
                  " ranks: under mpirun give " + (f.keywords ? "shots=FILE" : "--shots FILE") +
                  " (the shots are dealt over the ranks)");
    try {
      f.run.data = read_data(f.data, f.run);
    } catch (const Error& e) {
      throw Error(data + ": " + e.what());
    }
    f.run.predicted_segy = is_segy(f.predicted);
    read_velocity(f);
    phase("read");
    if (f.on_checked) f.on_checked();
    r = migrate_mode ? migrate(f.run) : gradient(f.run);
  }
  phase("run");
  if (dist::Job::get().rank() != 0) return r;  // rank 0 writes
  const Extent n = r.shape;
  const std::size_t grid[3] = {std::size_t(n.nz), std::size_t(n.ny), std::size_t(n.nx)};
  const std::size_t rows[2] = {std::size_t(r.rows), std::size_t(r.receivers)};
  auto write_grid = [&](const std::string& path, const std::vector<double>& v, const char* what) {
    if (path.empty()) return;
    if (is_segy(path))
      io::segy::write_volume(
          path, v, n.nx, n.ny, n.nz, f.run.config.spacing,
          std::string("strata ") + (migrate_mode ? "migrate" : "gradient") + ": " + what);
    else
      npy_write<double>(path, v, grid);
  };
  write_grid(f.image, r.image, "the RTM image");
  write_grid(f.compensated, r.compensated, "the illumination-compensated RTM image");
  write_grid(f.gradient, r.gradient, "the misfit's gradient in m = 1/v**2 (s**2/m**2)");
  write_grid(f.illumination, r.illumination, "the source side's illumination (sum of u**2)");
  if (is_segy(f.predicted))
    wave::write_seismogram_segy<double>(
        f.predicted, f.run.config, r.dt, r.receiver_positions, r.predicted, r.rows,
        {"strata gradient --predicted: the model's data, acoustic pressure u",
         "one trace per receiver, in the configuration's receivers' order",
         "the configuration: the run's --config (and --set, --velocity)"});
  else if (!f.predicted.empty())
    npy_write<double>(f.predicted, r.predicted, rows);
  phase("write");
  f.timing_s.emplace_back("total", std::chrono::duration<double>(Clock::now() - f.start).count());
  if (!f.json.empty()) write_text(f.json, imaging_report(f, r) + "\n");
  return r;
}

double ImagingResult::cost_in_forward_runs() const {
  const double runs = shots.empty() ? 1.0 : double(shots.size());
  if (forward_timed_steps <= 0 || forward_seconds <= 0 || rows < 2) return 0;
  return seconds / (forward_seconds / double(forward_timed_steps) * double(rows - 1) * runs);
}

std::string imaging_report(const ImagingFiles& f, const ImagingResult& r) {
  nlohmann::json j;
  j["verb"] = f.mode == ImagingFiles::Mode::migrate ? "migrate" : "gradient";
  j["shape"] = {r.shape.nx, r.shape.ny, r.shape.nz};
  j["device"] = std::string(to_string(r.device));
  j["precision"] = std::string(to_string(f.run.config.precision));
  j["dt"] = r.dt;
  j["steps"] = r.rows - 1;
  j["receivers"] = r.receivers;
  if (f.mode == ImagingFiles::Mode::gradient) j["misfit"] = r.misfit;
  j["strategy"] = r.boundary_saving ? "boundary saving" : "checkpointing";
  j["imaging_condition"] = !r.fused_imaging    ? "a pass of its own"
                           : r.boundary_saving ? "fused into the reversed step"
                                               : "fused into the adjoint's step";
  j["illumination"] = f.run.illumination;  // summed (for --illumination or --compensated)
  j["checkpoints"] = r.checkpoints;
  j["checkpoint_bytes"] = r.checkpoint_bytes;
  j["forward_steps"] = r.forward_steps;
  j["forward_timed_steps"] = r.forward_timed_steps;
  j["recomputation"] = r.recomputation;
  const double points = double(r.shape.points());
  j["cost"] = {
      {"setup_s", r.setup_seconds},
      {"finish_s", r.finish_seconds},
      {"forward_s", r.forward_seconds},
      {"adjoint_s", r.adjoint_seconds},
      {"checkpoints_s", r.checkpoint_seconds},
      {"run_s", r.seconds},
      {"forward_gpts_per_s", r.forward_seconds > 0
                                 ? points * double(r.forward_timed_steps) / r.forward_seconds / 1e9
                                 : 0.0},
      {"in_forward_runs", r.cost_in_forward_runs()}};
  for (const auto& [part, s] : r.setup_parts) j["cost"]["setup_parts_s"][part] = s;  // one run's
  for (const auto& [part, s] : r.finish_parts) j["cost"]["finish_parts_s"][part] = s;
  for (const auto& [name, ms] : r.step_timeline_ms) j["step_timeline_ms"][name] = ms;
  j["data"] = f.data;
  if (!f.velocity.empty()) j["velocity"] = f.velocity;
  if (!f.shots.empty()) {
    j["shots_file"] = f.shots;
    j["ranks"] = r.ranks;
    j["shots"] = nlohmann::json::array();
    for (const ImagingResult::ShotDone& d : r.shots) {
      nlohmann::json s = {{"name", d.name},
                          {"rank", d.rank},
                          {"forward_steps", d.forward_steps},
                          {"seconds", d.seconds}};
      if (f.mode == ImagingFiles::Mode::gradient) s["misfit"] = d.misfit;
      j["shots"].push_back(s);
    }
  }
  for (const auto& [name, seconds] : f.timing_s) j["timing_s"][name] = seconds;
  return j.dump(1);
}

}  // namespace strata::drivers

// The run driver behind `strata wave`: validate (the output directory, the Solver; nothing
// is written if either throws), take the directory (RunDirectory), optionally restart, step
// in segments between output events, checking the wavefield for NaN/Inf and the cancel
// request between them, and write every file through io::AtomicFile, the results last. It
// prints nothing: progress and warnings go to RunOptions' callbacks. Stepping time is
// measured between device synchronisations at segment ends, so output I/O never counts
// against the reported rate. Owns the output directory and its files; uses the Solver
// (solver.hpp), io/ for every file, and dispatch/copy_rate.hpp for the GPU's copy yardstick;
// never a backend directly.
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <sstream>

#include <nlohmann/json.hpp>

#include "dispatch/copy_rate.hpp"
#include "io/colormap.hpp"
#include "io/json_reader.hpp"
#include "io/run_directory.hpp"
#include "io/vti.hpp"
#include "solvers/wave/checkpoint.hpp"
#include "solvers/wave/run_files.hpp"
#include "solvers/wave/solver.hpp"
#include "strata/atomic_file.hpp"
#include "strata/device.hpp"
#include "strata/npy.hpp"
#include "strata/vector_ops.hpp"

namespace strata::wave {

namespace {

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

std::string path_join(const std::string& dir, const std::string& name) {
  return (std::filesystem::path(dir) / name).string();
}

void make_dir(const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw Error("cannot create output directory '" + dir + "': " + ec.message());
}

io::RunDirectory::Mode directory_mode(const RunOptions& opt) {
  require(!(opt.overwrite && !opt.restart.empty()),
          "--overwrite and --restart exclude each other: --restart continues the run whose files are in the "
          "directory, --overwrite replaces them");
  return opt.overwrite ? io::RunDirectory::Mode::overwrite
         : opt.restart.empty() ? io::RunDirectory::Mode::fresh : io::RunDirectory::Mode::resume;
}

// A continued run writes beside the files of the run it continues, and no other: the
// directory's checkpoint and report must carry this configuration's physics digest.
void check_previous_run(const io::RunDirectory& dir, const Plan& p) {
  if (dir.previous().empty()) return;
  bool identified = false;
  for (const std::string& name : {std::string("checkpoint.strata"), std::string("report.json")}) {
    const std::string path = path_join(dir.path(), name);
    if (std::find(dir.previous().begin(), dir.previous().end(), name) == dir.previous().end()) continue;
    std::string digest;
    try {
      if (name == "checkpoint.strata") {
        digest = checkpoint_digest(path);
      } else {
        const auto j = json_reader::parse(json_reader::read_file(path, "report"), path);
        digest = j.is_object() && j.contains("digest") && j["digest"].is_string() ? j["digest"].get<std::string>() : "";
      }
    } catch (const Error& e) {
      throw Error("output directory '" + dir.path() + "' holds a previous run's files, but its " + name +
                  " cannot be read to tell which run (" + e.what() + "): use --overwrite or another --out-dir");
    }
    if (digest != p.digest)
      throw Error("output directory '" + dir.path() + "' holds the files of a run of another configuration (its " +
                  name + " has digest " + digest + ", this configuration " + p.digest +
                  "): a continued run writes only beside its own files; use --overwrite or another --out-dir");
    identified = true;
  }
  if (!identified)
    throw Error("output directory '" + dir.path() + "' holds files of a run that cannot be identified (no "
                "checkpoint.strata or report.json beside " + dir.previous().front() +
                "): use --overwrite or another --out-dir");
}

std::string step_name(int step, int last) {
  const int width = std::max(6, int(std::to_string(last).size()));
  char b[32];
  std::snprintf(b, sizeof b, "u_%0*d", width, step);
  return b;
}

// A slice of the dense field as a picture: x (or y) to the right, z (depth) or y downwards.
template <class T>
void write_slice_png(const std::string& path, const std::vector<T>& u, const Config& c) {
  const Extent n = c.shape;
  const int axis = c.png_axis;
  const int len[3] = {n.nx, n.ny, n.nz};
  const int idx = c.png_index ? *c.png_index : len[axis] / 2;
  const int w = axis == 0 ? n.ny : n.nx, h = axis == 2 ? n.ny : n.nz;
  std::vector<double> s(std::size_t(w) * h);
  for (int r = 0; r < h; ++r)
    for (int q = 0; q < w; ++q) {
      const int x = axis == 0 ? idx : q, y = axis == 0 ? q : axis == 1 ? idx : r, z = axis == 2 ? idx : r;
      s[std::size_t(r) * w + q] = double(u[(std::size_t(z) * n.ny + y) * n.nx + x]);
    }
  const int scale = std::max(1, 512 / std::max(w, h));
  const io::Colormap map = io::parse_colormap(c.colormap);
  io::write_png(path, io::render(s, w, h, map, io::abs_quantile(s, c.png_clip), scale, scale));
}

// Time downwards, one column block per receiver; at most ~4096 samples each way.
template <class T>
void write_seismogram_png(const std::string& path, const std::vector<T>& tr, int rows, int nrec, const Config& c) {
  const int rstep = std::max(1, (rows + 4095) / 4096), cstep = std::max(1, (nrec + 4095) / 4096);
  const int h = (rows + rstep - 1) / rstep, w = (nrec + cstep - 1) / cstep;
  std::vector<double> s(std::size_t(w) * h);
  for (int r = 0; r < h; ++r)
    for (int q = 0; q < w; ++q) s[std::size_t(r) * w + q] = double(tr[std::size_t(r) * rstep * nrec + std::size_t(q) * cstep]);
  const int sx = std::max(1, std::min(16, 512 / w)), sy = std::max(1, std::min(4, 512 / h));
  io::write_png(path, io::render(s, w, h, io::parse_colormap(c.colormap), io::abs_quantile(s, c.png_clip), sx, sy));
}

// The index of the first NaN or Inf in v (v.size() when there is none).
template <class T>
std::size_t first_non_finite(const std::vector<T>& v) {
  for (std::size_t i = 0; i < v.size(); ++i)
    if (!std::isfinite(double(v[i]))) return i;
  return v.size();
}

// Calls opt.on_progress at most every opt.progress_interval_s (each call synchronises the
// device, so the interval bounds what progress costs), and once more after the last step.
struct ProgressClock {
  const RunOptions& opt;
  int first = 0, total = 0;
  double points = 0;
  Clock::time_point start = Clock::now(), last = Clock::now();

  bool due() const { return opt.on_progress && opt.progress_interval_s > 0 && seconds_since(last) >= opt.progress_interval_s; }
  void report(int n, bool final) {
    if (!opt.on_progress) return;
    last = Clock::now();
    Progress p;
    p.step = n;
    p.first_step = first;
    p.last_step = total;
    p.elapsed_s = seconds_since(start);
    const double rate = n > first && p.elapsed_s > 0 ? (n - first) / p.elapsed_s : 0;  // steps/s
    p.gpts_per_s = rate * points / 1e9;
    p.eta_s = rate > 0 ? (total - n) / rate : NAN;
    p.final = final;
    opt.on_progress(p);
  }
};

// Seconds spent per phase of a run, accumulated.
struct PhaseTimes {
  std::vector<std::pair<std::string, double>> s;
  void add(const std::string& phase, double seconds) {
    for (auto& [name, v] : s)
      if (name == phase) return void(v += seconds);
    s.push_back({phase, seconds});
  }
  void add_since(const std::string& phase, Clock::time_point t0) { add(phase, seconds_since(t0)); }
};

// The copy rate on two fields of the run's layout (the grid, ghosts of the stencil's radius),
// of their own and freed before stepping; the source holds ones (never time on zeros).
// Where the device has no room for them beside the run's fields, the ratio is left out.
template <class T, class Warn>
double copy_rate(const Extent& n, int ghost, Warn&& warn) {
  const std::size_t bytes = 2 * Layout::make(n, ghost, sizeof(T)).bytes();
  try {
    require_device_memory(bytes, "the copy-rate measurement (two more " + n.str() + " fields)");
  } catch (const Error& e) {
    warn(std::string("the copy rate (ratio_to_copy) was not measured: ") + e.what());
    return 0;
  }
  Field<T> in(n, ghost, Memory::device), out(n, ghost, Memory::device);
  fill(in, T(1));
  return copy_gb_per_s(in, out);
}

template <class T>
Report run_t(SolverT<T>& s, const RunOptions& opt, io::RunDirectory::Mode mode, Clock::time_point t_start,
             PhaseTimes& times) {
  const Config& c = s.config();
  const Plan& p = s.plan();
  Report rep;
  rep.plan = p;
  rep.device = p.device;
  rep.precision = to_string(c.precision);
  rep.shape = c.shape;
  rep.order = c.order;
  rep.dt = p.dt;
  rep.bytes_per_point = p.bytes_per_point;
  auto warn = [&](const std::string& w) {
    rep.warnings.push_back(w);
    if (opt.on_warning) opt.on_warning(w);
  };
  for (const std::string& w : p.warnings) warn(w);
  if (c.sources.empty()) warn("no sources: u stays zero at every step (a run starts from u = 0)");
  if (p.receivers.empty()) warn("no receivers: no seismogram will be written");

  // The GPU's copy kernel is the yardstick of the GPU kernels' rate; on the CPU the same
  // ratio says nothing (it varied 1.78, 0.039, 0.019 across similar runs): not measured.
  Clock::time_point t_phase = Clock::now();
  if (p.device == "cuda") {
    rep.copy_gb_per_s = copy_rate<T>(c.shape, p.radius, warn);
    times.add_since("copy_rate", t_phase);
  }
  t_phase = Clock::now();
  if (!opt.restart.empty()) s.load_checkpoint(opt.restart);
  rep.first_step = s.step();
  if (!opt.restart.empty()) times.add_since("restart", t_phase);

  // Everything is valid: from here on files appear, in a directory this run holds locked.
  const io::RunDirectory dir(c.out_dir, run_files(), mode);
  if (mode == io::RunDirectory::Mode::resume) check_previous_run(dir, p);
  const std::string snap_dir = path_join(c.out_dir, "snapshots");
  if (c.snapshot_every > 0) make_dir(snap_dir);
  auto wrote = [&](const std::string& path) {
    if (std::find(rep.outputs.begin(), rep.outputs.end(), path) == rep.outputs.end()) rep.outputs.push_back(path);
  };

  const double points = double(c.shape.points());
  ProgressClock progress{opt, rep.first_step, c.steps, points};
  const std::string ckpt = path_join(c.out_dir, "checkpoint.strata");

  double compute = 0;
  int n = s.step();
  int chunk = 1;
  Clock::time_point seg = Clock::now();
  // The last checkpoint a continuation can start from: this run's newest, or the one it
  // was restarted from.
  std::string last_ckpt = opt.restart;
  int last_ckpt_step = opt.restart.empty() ? -1 : rep.first_step;
  auto stop_if_cancelled = [&] {
    if (!opt.cancelled || !opt.cancelled()) return;
    s.synchronize();
    throw Interrupted(n, last_ckpt, last_ckpt_step);
  };
  // u is checked for NaN and Inf after a restart, at every snapshot and checkpoint (before
  // it is written), before the results, and in between at least every ~10 s of stepping
  // (or 20x the cost of the last check, so checking stays under ~5% of a run).
  int finite_at = n;
  double check_cost = 0;
  Clock::time_point checked = Clock::now();
  // The check runs where u lives; only a failure copies u to find and describe the places.
  auto require_finite = [&] {
    const Clock::time_point t0 = Clock::now();
    const bool finite = s.wavefield_finite();
    check_cost = seconds_since(t0);
    times.add("checks", check_cost);
    checked = Clock::now();
    if (finite) {
      finite_at = n;
      return;
    }
    const std::vector<T> u = s.field_values();
    const std::size_t first = first_non_finite<T>(u);
    // Where: the first value, and the box that holds them all.
    const std::size_t nx = std::size_t(c.shape.nx), ny = std::size_t(c.shape.ny);
    std::size_t count = 0;
    int lo[3] = {c.shape.nx, c.shape.ny, c.shape.nz}, hi[3] = {-1, -1, -1};
    for (std::size_t i = first; i < u.size(); ++i) {
      if (std::isfinite(double(u[i]))) continue;
      ++count;
      const int q[3] = {int(i % nx), int(i / nx % ny), int(i / nx / ny)};
      for (int a = 0; a < 3; ++a) lo[a] = std::min(lo[a], q[a]), hi[a] = std::max(hi[a], q[a]);
    }
    const int x = int(first % nx), y = int(first / nx % ny), z = int(first / nx / ny);
    char where[512];
    std::snprintf(where, sizeof where,
                  "%zu of %zu values are NaN or Inf, within x %d..%d, y %d..%d, z %d..%d (grid indices); the first, "
                  "u = %g, at (x, y, z) = (%d, %d, %d), (%g, %g, %g) m",
                  count, u.size(), lo[0], hi[0], lo[1], hi[1], lo[2], hi[2], double(u[first]), x, y, z,
                  (x + 0.5) * c.spacing, (y + 0.5) * c.spacing, (z + 0.5) * c.spacing);
    throw Error("the wavefield is not finite at step " + std::to_string(n) + ": " + where +
                (finite_at >= 0 ? "; it was finite at step " + std::to_string(finite_at) : std::string()) +
                ". The scheme blew up or a value overflowed " + to_string(c.precision) +
                " (check the velocity model, time.dt, the sources' amplitudes and the state restarted from). "
                "Nothing from this step on was written" +
                (last_ckpt.empty() ? std::string(".") : "; the last valid checkpoint is " + last_ckpt + " (step " +
                                                            std::to_string(last_ckpt_step) + ")."));
  };
  if (!opt.restart.empty()) {  // a state read from a file is checked before it is stepped
    finite_at = -1;
    last_ckpt.clear();  // not valid if this check fails
    require_finite();
    last_ckpt = opt.restart;
  }
  while (n < c.steps) {
    stop_if_cancelled();  // between steps and outputs: a write in progress always finishes
    int next = c.steps;
    if (c.snapshot_every) next = std::min(next, (n / c.snapshot_every + 1) * c.snapshot_every);
    if (c.checkpoint_every) next = std::min(next, (n / c.checkpoint_every + 1) * c.checkpoint_every);
    const int k = std::min(next - n, chunk);
    const Clock::time_point t0 = Clock::now();
    s.advance(k);
    n += k;
    // Chunks of ~0.1 s of host time keep the progress line live without a sync per step.
    const double dt_host = seconds_since(t0);
    chunk = std::max(1, std::min(1 << 16, int(k * (dt_host > 0 ? 0.1 / dt_host : 2.0))));
    if (progress.due()) {
      s.synchronize();
      progress.report(n, false);
    }
    const bool snap = c.snapshot_every && n % c.snapshot_every == 0;
    // The final state too, so that a finished run can be extended without recomputing.
    const bool check = c.checkpoint_every && (n % c.checkpoint_every == 0 || n == c.steps);
    const bool finite_due = seconds_since(checked) >= std::max(10.0, 20 * check_cost);
    if (!snap && !check && !finite_due) continue;
    s.synchronize();
    compute += seconds_since(seg);
    require_finite();
    if (snap) {
      const Clock::time_point t_out = Clock::now();
      {
        const std::vector<T> u = s.field_values();  // released before a checkpoint copies the state again
        const std::string base = path_join(snap_dir, step_name(n, c.steps));
        const std::size_t shape[3] = {std::size_t(c.shape.nz), std::size_t(c.shape.ny), std::size_t(c.shape.nx)};
        if (c.snapshot_npy) npy_write<T>(base + ".npy", u, shape), wrote(base + ".npy");
        if (c.snapshot_vti) {
          const double o = 0.5 * c.spacing;
          io::write_vti<T>(base + ".vti", u, c.shape, {o, o, o}, c.spacing, "u");
          wrote(base + ".vti");
        }
        if (c.snapshot_png) write_slice_png(base + ".png", u, c), wrote(base + ".png");
      }
      times.add_since("snapshots", t_out);
    }
    if (check) {
      const Clock::time_point t_ck = Clock::now();
      s.save_checkpoint(ckpt);
      times.add_since("checkpoints", t_ck);
      wrote(ckpt);
      last_ckpt = ckpt;
      last_ckpt_step = n;
    }
    seg = Clock::now();
  }
  stop_if_cancelled();  // before the results: an interrupted run writes none of them
  s.synchronize();
  compute += seconds_since(seg);
  times.add("stepping", compute);
  if (finite_at != n) require_finite();
  progress.report(n, true);
  const Clock::time_point t_results = Clock::now();

  const int nrec = int(p.receivers.size());
  if (nrec > 0) {
    const std::vector<T> tr = s.trace_values();
    const int rows = s.rows();
    const std::size_t shape[2] = {std::size_t(rows), std::size_t(nrec)};
    const std::string seis = path_join(c.out_dir, "seismogram.npy");
    npy_write<T>(seis, tr, shape);
    wrote(seis);
    std::vector<double> xyz;
    for (const Vec3& r : p.receivers) xyz.insert(xyz.end(), {r.x, r.y, r.z});
    const std::size_t rshape[2] = {std::size_t(nrec), 3};
    const std::string recs = path_join(c.out_dir, "receivers.npy");
    npy_write<double>(recs, xyz, rshape);
    wrote(recs);
    if (c.seismogram_png) {
      const std::string png = path_join(c.out_dir, "seismogram.png");
      write_seismogram_png(png, tr, rows, nrec, c);
      wrote(png);
    }
  }

  // The configuration goes with the results it produced (an interrupted run leaves none).
  {
    const std::string path = path_join(c.out_dir, "config.json");
    const std::string text = to_json(c) + "\n";
    io::AtomicFile f(path);
    f.write(text.data(), text.size());
    f.commit();
    wrote(path);
  }

  rep.last_step = n;
  rep.steps_run = n - rep.first_step;
  rep.compute_s = compute;
  rep.gpts_per_s = compute > 0 ? points * rep.steps_run / compute / 1e9 : 0;
  rep.gb_per_s = rep.gpts_per_s * rep.bytes_per_point;
  rep.ratio_to_copy = rep.copy_gb_per_s > 0 ? rep.gb_per_s / rep.copy_gb_per_s : 0;
  const std::string report_path = path_join(c.out_dir, "report.json");
  rep.outputs.push_back(report_path);
  times.add_since("results", t_results);
  rep.wall_s = seconds_since(t_start);
  rep.phases_s = times.s;
  const std::string text = to_json(rep) + "\n";
  io::AtomicFile f(report_path);
  f.write(text.data(), text.size());
  f.commit();
  return rep;
}

}  // namespace

const io::RunFiles& run_files() {
  static const io::RunFiles files = {
      {"config.json", "report.json", "seismogram.npy", "seismogram.png", "receivers.npy", "checkpoint.strata"},
      "snapshots",
      {".npy", ".vti", ".png"},
      "u_",
      {}};
  return files;
}

Report run(const Config& cfg, const RunOptions& opt) {
  const Clock::time_point t0 = Clock::now();
  const io::RunDirectory::Mode mode = directory_mode(opt);
  io::RunDirectory::preflight(cfg.out_dir, run_files(), mode);  // before any work
  if (!opt.restart.empty()) {  // before the Solver allocates: a checkpoint that is not there
    struct stat st {};
    if (::stat(opt.restart.c_str(), &st) != 0)
      throw Error("cannot read checkpoint '" + opt.restart + "': " + std::strerror(errno));
    if (!S_ISREG(st.st_mode)) throw Error("checkpoint '" + opt.restart + "' is not a regular file");
  }
  PhaseTimes times;
  const Clock::time_point t_setup = Clock::now();
  Solver solver(cfg);  // every check; throws before any file is written
  times.add_since("setup", t_setup);
  Report r = cfg.precision == Precision::f32
                 ? run_t(dynamic_cast<SolverT<float>&>(detail::impl_of(solver)), opt, mode, t0, times)
                 : run_t(dynamic_cast<SolverT<double>&>(detail::impl_of(solver)), opt, mode, t0, times);
  return r;
}

Interrupted::Interrupted(int step_reached, std::string checkpoint_path, int checkpoint_at)
    : Error("the run was interrupted at step " + std::to_string(step_reached) +
            (checkpoint_path.empty() ? std::string("; no checkpoint was written (output.checkpoint_every is 0)")
                                     : "; the last valid checkpoint is " + checkpoint_path + " (step " +
                                           std::to_string(checkpoint_at) + "): continue with --restart")),
      step(step_reached),
      checkpoint(std::move(checkpoint_path)),
      checkpoint_step(checkpoint_at) {}

std::string to_json(const Report& r) {
  nlohmann::ordered_json j;
  j["device"] = r.device;
  j["precision"] = r.precision;
  j["shape"] = {r.shape.nx, r.shape.ny, r.shape.nz};
  j["order"] = r.order;
  j["first_step"] = r.first_step;
  j["last_step"] = r.last_step;
  j["steps_run"] = r.steps_run;
  j["dt"] = r.dt;
  j["dt_limit"] = r.plan.dt_limit;
  j["courant"] = r.plan.courant;
  j["v_min"] = r.plan.v_min;
  j["v_max"] = r.plan.v_max;
  j["points_per_wavelength"] = r.plan.points_per_wavelength > 0 ? nlohmann::ordered_json(r.plan.points_per_wavelength)
                                                                  : nlohmann::ordered_json(nullptr);  // no source
  j["receivers"] = r.plan.receivers.size();
  j["digest"] = r.plan.digest;
  j["wall_s"] = r.wall_s;
  j["compute_s"] = r.compute_s;
  j["phases_s"] = nlohmann::ordered_json::object();
  for (const auto& [name, v] : r.phases_s) j["phases_s"][name] = v;
  j["gpts_per_s"] = r.gpts_per_s;
  j["gb_per_s"] = r.gb_per_s;
  j["bytes_per_point"] = r.bytes_per_point;
  if (r.copy_gb_per_s > 0) {  // the GPU only
    j["copy_gb_per_s"] = r.copy_gb_per_s;
    j["copy_gpts_per_s_at_bytes_per_point"] = r.bytes_per_point > 0 ? r.copy_gb_per_s / r.bytes_per_point : 0;
    j["ratio_to_copy"] = r.ratio_to_copy;
  }
  j["warnings"] = r.warnings;
  j["outputs"] = r.outputs;
  return j.dump(2);
}

std::string to_text(const Report& r) {
  char b[1024];
  std::ostringstream s;
  std::snprintf(b, sizeof b, "strata wave: %d steps (%d -> %d) on a %s grid, order %d, %s, %s\n", r.steps_run,
                r.first_step, r.last_step, r.shape.str().c_str(), r.order, r.precision.c_str(), r.device.c_str());
  s << b;
  char ppw[64] = "no source";
  if (r.plan.points_per_wavelength > 0) std::snprintf(ppw, sizeof ppw, "%.3g points per wavelength", r.plan.points_per_wavelength);
  std::snprintf(b, sizeof b, "  dt %.6g s (stability limit %.6g s, Courant number %.3f), v %.6g..%.6g m/s, %s\n", r.dt,
                r.plan.dt_limit, r.plan.courant, r.plan.v_min, r.plan.v_max, ppw);
  s << b;
  std::snprintf(b, sizeof b, "  wall %.3f s, stepping %.3f s: %.4g Gpts/s, %.4g GB/s at %g B/point", r.wall_s,
                r.compute_s, r.gpts_per_s, r.gb_per_s, r.bytes_per_point);
  s << b;
  if (r.copy_gb_per_s > 0) {  // the GPU only
    std::snprintf(b, sizeof b, "; copy %.4g GB/s -> ratio %.3f (of copy GB/s / %g B per point)", r.copy_gb_per_s,
                  r.ratio_to_copy, r.bytes_per_point);
    s << b;
  }
  s << "\n";
  if (!r.phases_s.empty()) {
    s << "  time (s):";
    for (const auto& [name, v] : r.phases_s) {
      std::snprintf(b, sizeof b, " %s %.3f", name.c_str(), v);
      s << b;
    }
    s << "\n";
  }
  for (const std::string& o : r.outputs) s << "  wrote " << o << "\n";
  return s.str();
}

}  // namespace strata::wave

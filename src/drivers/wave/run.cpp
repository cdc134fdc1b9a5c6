// The run driver behind `strata wave`: validate (the output directory, the Solver; nothing
// is written if either throws), take the directory (RunDirectory), optionally restart, step
// in segments between output events, checking the wavefield for NaN/Inf and the cancel
// request between them, and write every file through io::AtomicFile, the results last. It
// prints nothing: progress and warnings go to RunOptions' callbacks. Stepping time is
// measured between device synchronisations at segment ends, so output I/O never counts
// against the reported rate. Owns the output directory and its files; uses the Solver
// (solver.hpp), io/ for every file, and dispatch/copy_rate.hpp for the GPU's copy yardstick;
// never a backend directly.
// Under mpirun every rank runs it on its box of the grid (partition.hpp): rank 0 holds the
// directory and writes the seismogram, config and report; snapshots are written by all
// ranks into one file each; each rank writes its own checkpoint (rank 0's is
// checkpoint.strata, rank r's checkpoint.strata.rank<r>). Rank 0 decides each segment's
// length, the cancel and the finite checks, so the ranks step and stop together.
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <optional>
#include <sstream>

#include <nlohmann/json.hpp>

#include "dispatch/copy_rate.hpp"
#include "dist/exchange.hpp"
#include "io/figure.hpp"
#include "io/json_reader.hpp"
#include "io/npy_box.hpp"
#include "io/run_directory.hpp"
#include "io/vti.hpp"
#include "solvers/wave/checkpoint.hpp"
#include "solvers/wave/pictures.hpp"
#include "solvers/wave/plan.hpp"
#include "solvers/wave/run_files.hpp"
#include "solvers/wave/solver.hpp"
#include "strata/atomic_file.hpp"
#include "strata/device.hpp"
#include "strata/dist.hpp"
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

// The slice's values in one box of the grid (dense u of that box at `offset`), as rows of
// (q, r) pixels: q0, r0, width, height, then the values, x fastest. Empty where the box
// does not meet the slice.
template <class T>
std::vector<double> slice_part(const std::vector<T>& u, Extent box, std::array<int, 3> offset, const Slice& sl) {
  const int ax = sl.axis, lo = offset[ax], len[3] = {box.nx, box.ny, box.nz};
  if (sl.index < lo || sl.index >= lo + len[ax]) return {};
  const int qa = ax == 0 ? 1 : 0, ra = ax == 2 ? 1 : 2;  // the axes along q and r
  const int qw = len[qa], rh = len[ra];
  std::vector<double> out = {double(offset[qa]), double(offset[ra]), double(qw), double(rh)};
  for (int r = 0; r < rh; ++r)
    for (int q = 0; q < qw; ++q) {
      int p[3];
      p[ax] = sl.index - lo, p[qa] = q, p[ra] = r;
      out.push_back(double(u[(std::size_t(p[2]) * box.ny + p[1]) * box.nx + p[0]]));
    }
  return out;
}

// The snapshot picture from the slice's parts (slice_part of each rank's box).
void write_slice_png(const std::string& path, const std::vector<std::vector<double>>& parts,
                     const Slice& sl, const Config& c, int step, double time) {
  std::vector<double> s(std::size_t(sl.w) * sl.h);
  for (const std::vector<double>& part : parts) {
    if (part.empty()) continue;
    const int q0 = int(part[0]), r0 = int(part[1]), qw = int(part[2]), rh = int(part[3]);
    for (int r = 0; r < rh; ++r)
      std::copy_n(part.begin() + 4 + std::ptrdiff_t(r) * qw, qw, s.begin() + std::ptrdiff_t(r0 + r) * sl.w + q0);
  }
  io::write_png(path, io::draw(snapshot_figure(c, sl, std::move(s), step, time)));
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

// The job as the run driver sees it: one process, or the ranks of a distributed run (one
// rank too where a --grid asks for it: the distributed path, measured against one process).
struct Ranks {
  explicit Ranks(const RunOptions& o)
      : many(!o.alone && (job.size() > 1 || !o.grid.empty())), root(!many || job.root()) {}
  const dist::Job& job = dist::Job::get();
  bool many = false, root = true;
  int size() const { return many ? job.size() : 1; }
  int rank() const { return many ? job.rank() : 0; }
  // f on rank 0 alone; its failure is every rank's (AgreedError). In one process, just f.
  template <class F>
  void on_root(F&& f) const {
    if (!many) return f();
    std::string why;
    if (root) try {
        f();
      } catch (const std::exception& e) {  // any failure: the others wait in agree for its word
        why = e.what();
      }
    job.agree(why);
  }
  // Rank 0's values of v (trivially copyable) on every rank.
  template <class V>
  void from_root(V& v) const {
    if (many) job.broadcast(&v, sizeof v, 0);
  }
  // Every rank's piece at rank 0 (empty vector elsewhere); one process: {mine}.
  std::vector<std::vector<double>> gather(const std::vector<double>& mine) const {
    if (!many) return {mine};
    const std::string blob(reinterpret_cast<const char*>(mine.data()), mine.size() * sizeof(double));
    std::vector<std::vector<double>> out;
    for (const std::string& b : job.gather_text(blob, 0)) {
      std::vector<double> v(b.size() / sizeof(double));
      std::memcpy(v.data(), b.data(), b.size());
      out.push_back(std::move(v));
    }
    return out;
  }
};

// A rank's checkpoint file: rank 0's at `path`, rank r's beside it.
std::string rank_checkpoint(const std::string& path, int rank) {
  return rank == 0 ? path : path + ".rank" + std::to_string(rank);
}

// Where u (this rank's box, dense, at `offset` in the grid) is NaN or Inf: how many, the
// box that holds them all and the first one, in grid indices and metres.
template <class T>
std::string non_finite_places(const std::vector<T>& u, Extent box, std::array<int, 3> offset, double h,
                              const Partition* part) {
  const std::size_t first = first_non_finite<T>(u);
  const std::size_t nx = std::size_t(box.nx), ny = std::size_t(box.ny);
  std::size_t count = 0;
  int lo[3] = {1 << 30, 1 << 30, 1 << 30}, hi[3] = {-1, -1, -1};
  for (std::size_t i = first; i < u.size(); ++i) {
    if (std::isfinite(double(u[i]))) continue;
    ++count;
    const int q[3] = {int(i % nx), int(i / nx % ny), int(i / nx / ny)};
    for (int a = 0; a < 3; ++a) lo[a] = std::min(lo[a], q[a] + offset[a]), hi[a] = std::max(hi[a], q[a] + offset[a]);
  }
  const int x = int(first % nx) + offset[0], y = int(first / nx % ny) + offset[1], z = int(first / nx / ny) + offset[2];
  char where[512];
  std::snprintf(where, sizeof where,
                "%zu of %zu values%s are NaN or Inf, within x %d..%d, y %d..%d, z %d..%d (grid indices); the "
                "first, u = %g, at (x, y, z) = (%d, %d, %d), (%g, %g, %g) m",
                count, u.size(), part ? (" of " + part->describe()).c_str() : "", lo[0], hi[0], lo[1], hi[1], lo[2],
                hi[2], double(u[first]), x, y, z, (x + 0.5) * h, (y + 0.5) * h, (z + 0.5) * h);
  return where;
}

// A snapshot of u (this rank's box, dense) at `base` + .npy/.vti/.png as the configuration
// asks: in one process as plain files; over several ranks the .npy and .vti are one file of
// the whole grid that every rank writes its rows into, and the .png slice is gathered to
// rank 0. Collective over the ranks. `wrote` records each file.
template <class T, class Wrote>
void write_snapshot(const std::string& base, const std::vector<T>& u, const Config& c,
                    const Partition* part, const Ranks& ranks, int step, double time,
                    Wrote&& wrote) {
  const std::size_t shape[3] = {std::size_t(c.shape.nz), std::size_t(c.shape.ny), std::size_t(c.shape.nx)};
  const double o = 0.5 * c.spacing;
  if (part) {
    if (c.snapshot_npy) {
      dist::detail::write_global(base + ".npy", npy_preamble(precision_of<T>, shape, base + ".npy"), "", part->box,
                                 u.data(), sizeof(T));
      wrote(base + ".npy");
    }
    if (c.snapshot_vti) {
      dist::detail::write_global(base + ".vti", io::vti_head<T>(c.shape, {o, o, o}, c.spacing, "u"), io::vti_tail(),
                                 part->box, u.data(), sizeof(T));
      wrote(base + ".vti");
    }
  } else {
    if (c.snapshot_npy) npy_write<T>(base + ".npy", u, shape), wrote(base + ".npy");
    if (c.snapshot_vti) io::write_vti<T>(base + ".vti", u, c.shape, {o, o, o}, c.spacing, "u"), wrote(base + ".vti");
  }
  if (c.snapshot_png) {
    const Slice sl(c);
    const Extent box = part ? part->box.local : c.shape;
    const auto parts = ranks.gather(slice_part(u, box, part ? part->box.offset : std::array<int, 3>{0, 0, 0}, sl));
    ranks.on_root([&] { write_slice_png(base + ".png", parts, sl, c, step, time); });
    wrote(base + ".png");
  }
}

// The copy rate on two fields of the run's layout (the grid, ghosts of the stencil's radius),
// of their own and freed before stepping; the source holds ones (never time on zeros).
// Where the device has no room for them beside the run's fields, the ratio is left out.
template <class T, class Warn>
double copy_rate(const Extent& box, int ghost, Warn&& warn) {
  // The box's planes, as many as make 2^26 points (256 MiB in f32, 5x the L2 of an H100 or
  // H200): the rate is the same as over a whole large box, and a box of tens of GB is not
  // allocated, set and copied again for a yardstick (2 s at 2400^3 over two GPUs).
  const long long plane = (long long)box.nx * box.ny;
  const int planes = int(std::min<long long>(box.nz, std::max<long long>(1, ((1LL << 26) + plane - 1) / plane)));
  const Extent n{box.nx, box.ny, planes};
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
  if (const std::string w = plain_pictures_warning(c); !w.empty()) warn(w);

  // The GPU's copy kernel is the yardstick of the GPU kernels' rate; on the CPU the same
  // ratio says nothing (it varied 1.78, 0.039, 0.019 across similar runs): not measured.
  const Ranks ranks(opt);
  const Partition* part = s.partition();
  rep.ranks = ranks.size();
  if (part) rep.process_grid = part->grid.str();
  const Extent box = part ? part->box.local : c.shape;
  const std::array<int, 3> box_offset = part ? part->box.offset : std::array<int, 3>{0, 0, 0};
  Clock::time_point t_phase = Clock::now();
  s.connect();  // the ranks' links, and u's first exchange
  if (part) {
    times.add_since("communicators", t_phase);
    t_phase = Clock::now();
  }
  if (p.device == "cuda") {
    rep.copy_gb_per_s = copy_rate<T>(box, p.radius, warn);
    times.add_since("copy_rate", t_phase);
  }
  rep.first_step = s.step();  // a restart's checkpoint was loaded by run()

  // Everything is valid: from here on files appear, in a directory this run holds locked
  // (by rank 0, for every rank).
  auto wrote = [&](const std::string& path) {
    if (std::find(rep.outputs.begin(), rep.outputs.end(), path) == rep.outputs.end())
      rep.outputs.push_back(path);
  };
  std::optional<io::RunDirectory> dir;
  const std::string snap_dir = path_join(c.out_dir, "snapshots");
  ranks.on_root([&] {
    dir.emplace(c.out_dir, run_files(ranks.size()), mode);
    if (mode == io::RunDirectory::Mode::resume) check_previous_run(*dir, p);
    if (c.snapshot_every > 0) make_dir(snap_dir);
    // The model as the run sees it, before the first step: a look at the geometry early.
    if (c.model_png) {
      const std::string png = path_join(c.out_dir, "model.png");
      io::write_png(png, io::draw(model_figure(c, p.receivers)));
      wrote(png);
    }
  });

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
    bool stop = opt.cancelled && opt.cancelled();
    ranks.from_root(stop);  // rank 0's word: every rank stops at the same step
    if (!stop) return;
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
    const bool all_finite = ranks.many ? ranks.job.first_failed(!finite) < 0 : finite;
    check_cost = seconds_since(t0);
    times.add("checks", check_cost);
    checked = Clock::now();
    if (all_finite) {
      finite_at = n;
      return;
    }
    // Where (on a rank whose box holds them): the first value, and the box that holds them all.
    std::string why;
    if (!finite) {
      const std::string where = non_finite_places(s.field_values(), box, box_offset, c.spacing, part);
      why = "the wavefield is not finite at step " + std::to_string(n) + ": " + where +
            (finite_at >= 0 ? "; it was finite at step " + std::to_string(finite_at) : std::string()) +
            ". The scheme blew up or a value overflowed " + to_string(c.precision) +
            " (check the velocity model, time.dt, the sources' amplitudes and the state restarted from). "
            "Nothing from this step on was written" +
            (last_ckpt.empty() ? std::string(".") : "; the last valid checkpoint is " + last_ckpt + " (step " +
                                                        std::to_string(last_ckpt_step) + ").");
    }
    if (ranks.many) ranks.job.agree(why);  // the first failing rank's words, on every rank
    throw Error(why);
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
    ranks.from_root(chunk);  // the ranks' segments end together
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
    bool finite_due = seconds_since(checked) >= std::max(10.0, 20 * check_cost);
    ranks.from_root(finite_due);
    if (!snap && !check && !finite_due) continue;
    s.synchronize();
    compute += seconds_since(seg);
    require_finite();
    if (snap) {
      const Clock::time_point t_out = Clock::now();
      write_snapshot(path_join(snap_dir, step_name(n, c.steps)), s.field_values(), c, part, ranks,
                     n, n * p.dt, wrote);
      times.add_since("snapshots", t_out);
    }
    if (check) {
      const Clock::time_point t_ck = Clock::now();
      s.save_checkpoint(rank_checkpoint(ckpt, ranks.rank()));
      if (ranks.many) ranks.job.barrier();  // every rank's file is in before the run goes on
      times.add_since("checkpoints", t_ck);
      for (int r = 0; r < ranks.size(); ++r) wrote(rank_checkpoint(ckpt, r));
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
  const std::vector<T> tr = nrec > 0 ? s.gathered_traces() : std::vector<T>();
  rep.last_step = n;
  rep.steps_run = n - rep.first_step;
  rep.compute_s = compute;
  if (!ranks.root) return rep;  // the results are rank 0's to write
  if (nrec > 0) {
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
      io::write_png(png,
                    io::draw(seismogram_figure(c, p.receivers, tr, rows, p.dt * c.receiver_every)));
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

  rep.gpts_per_s = compute > 0 ? points * rep.steps_run / compute / 1e9 : 0;
  rep.gb_per_s = rep.gpts_per_s * rep.bytes_per_point;
  rep.ratio_to_copy = rep.copy_gb_per_s > 0 ? rep.gb_per_s / (rep.copy_gb_per_s * rep.ranks) : 0;
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

io::RunFiles run_files(int ranks) {
  io::RunFiles files;
  files.files = {"config.json",   "report.json", "seismogram.npy",   "seismogram.png",
                 "receivers.npy", "model.png",   "checkpoint.strata"};
  for (int r = 1; r < ranks; ++r) files.files.push_back(rank_checkpoint("checkpoint.strata", r));
  files.subdirs = {
      {"snapshots", {}, "u_", {".npy", ".vti", ".png"}},
      // python -m strata.plot's pictures (python/strata/plot.py writes these names)
      {"plots", {"model.png", "seismogram_density.png", "seismogram_wiggle.png"}, "u_", {".png"}}};
  return files;
}

Report run(const Config& cfg, const RunOptions& opt) {
  const Clock::time_point t0 = Clock::now();
  const Ranks ranks(opt);
  const io::RunDirectory::Mode mode = directory_mode(opt);
  // Before any work; rank 0 alone (the check takes the directory's lock for a moment).
  ranks.on_root([&] { io::RunDirectory::preflight(cfg.out_dir, run_files(ranks.size()), mode); });
  if (!opt.restart.empty()) {  // before the Solver allocates: a checkpoint that is not there
    const std::string path = rank_checkpoint(opt.restart, ranks.rank());
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) throw Error("cannot read checkpoint '" + path + "': " + std::strerror(errno));
    if (!S_ISREG(st.st_mode)) throw Error("checkpoint '" + path + "' is not a regular file");
  }
  PhaseTimes times;
  const Clock::time_point t_setup = Clock::now();
  // Every check; throws before any file is written. Over several ranks each builds its box.
  std::optional<dist::ProcessGrid> grid;
  if (ranks.many) grid = wave_process_grid(cfg, ranks.size(), opt.grid);
  if (ranks.many && run_device(cfg) == "cuda") dist::Job::get().bind_gpu();  // one GPU per rank, before any CUDA work
  std::unique_ptr<detail::SolverImpl> solver;
  if (cfg.precision == Precision::f32) solver = std::make_unique<SolverT<float>>(cfg, grid ? &*grid : nullptr);
  else solver = std::make_unique<SolverT<double>>(cfg, grid ? &*grid : nullptr);
  times.add_since("setup", t_setup);
  if (!opt.restart.empty()) {  // a rank's own file, checked and loaded before the ranks agree
    const Clock::time_point t_restart = Clock::now();
    detail::SolverImpl& s = *solver;
    s.load_checkpoint(rank_checkpoint(opt.restart, ranks.rank()));
    times.add_since("restart", t_restart);
  }
  if (ranks.many && !ranks.job.begun()) dist::Job::get().begin();  // every rank is ready, or all stop here
  if (ranks.many && !opt.restart.empty()) {
    // A job stopped between the ranks' renames leaves checkpoints of two steps.
    int step = solver->step(), first = step;
    ranks.from_root(first);
    ranks.job.agree(step == first ? std::string()
                                  : "the ranks' checkpoints are of different steps (rank 0's '" + opt.restart +
                                        "' is at step " + std::to_string(first) + ", rank " +
                                        std::to_string(ranks.rank()) + "'s at step " + std::to_string(step) +
                                        "): the job that wrote them stopped while it wrote them; they cannot "
                                        "continue one run");
  }
  Report r = cfg.precision == Precision::f32 ? run_t(dynamic_cast<SolverT<float>&>(*solver), opt, mode, t0, times)
                                             : run_t(dynamic_cast<SolverT<double>&>(*solver), opt, mode, t0, times);
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
  if (!r.process_grid.empty()) j["ranks"] = r.ranks, j["process_grid"] = r.process_grid;
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

namespace {
std::string clock_text(double s) {
  if (!std::isfinite(s) || s < 0) return "--:--";
  const long t = std::lround(s);
  char b[32];
  if (t >= 3600) std::snprintf(b, sizeof b, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
  else std::snprintf(b, sizeof b, "%ld:%02ld", t / 60, t % 60);
  return b;
}
}  // namespace

std::string to_text(const Progress& p) {
  const int total = p.last_step;
  char line[256];
  std::snprintf(line, sizeof line, "step %d/%d  %5.1f%%  %.3g Gpts/s  elapsed %s  ETA %s",
                p.step, total, total ? 100.0 * p.step / total : 100.0, p.gpts_per_s,
                clock_text(p.elapsed_s).c_str(), clock_text(p.eta_s).c_str());
  return line;
}

std::string to_text(const Report& r) {
  char b[1024];
  std::ostringstream s;
  std::snprintf(b, sizeof b, "strata wave: %d steps (%d -> %d) on a %s grid, order %d, %s, %s", r.steps_run,
                r.first_step, r.last_step, r.shape.str().c_str(), r.order, r.precision.c_str(), r.device.c_str());
  s << b;
  if (!r.process_grid.empty()) s << " x " << r.ranks << " rank" << (r.ranks > 1 ? "s" : "") << " (process grid " << r.process_grid << ")";
  s << "\n";
  char ppw[64] = "no source";
  if (r.plan.points_per_wavelength > 0) std::snprintf(ppw, sizeof ppw, "%.3g points per wavelength", r.plan.points_per_wavelength);
  std::snprintf(b, sizeof b,
                "  dt %s s (stability limit %s s, Courant number %.3f), v %s..%s m/s, %s\n",
                format_number(r.dt).c_str(), format_number(r.plan.dt_limit).c_str(), r.plan.courant,
                format_number(r.plan.v_min).c_str(), format_number(r.plan.v_max).c_str(), ppw);
  s << b;
  std::snprintf(b, sizeof b, "  wall %.3f s, stepping %.3f s: %.4g Gpts/s, %.4g GB/s at %g B/point", r.wall_s,
                r.compute_s, r.gpts_per_s, r.gb_per_s, r.bytes_per_point);
  s << b;
  if (r.copy_gb_per_s > 0) {  // the GPU only
    std::snprintf(b, sizeof b, "; copy %.4g GB/s%s -> ratio %.3f (of copy GB/s / %g B per point%s)", r.copy_gb_per_s,
                  r.ranks > 1 ? " per GPU" : "", r.ratio_to_copy, r.bytes_per_point, r.ranks > 1 ? ", per GPU" : "");
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

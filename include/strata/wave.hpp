// Acoustic wave propagation, u_tt = v(x)^2 Lap(u) + sources, leapfrog in time and central
// differences of order 2..8 in space, on the CPU reference backend or the GPU. The public
// side: the configuration (JSON text in, typed struct out), a Solver that steps it, and the
// run driver behind `strata wave`. No CUDA and no JSON-library types cross this header.
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "strata/device.hpp"

#include "strata/error.hpp"
#include "strata/field.hpp"

namespace strata::wave {

// Geometry convention (cell-centred, as strata::Boundary): grid point (i, j, k) sits at
// ((i + 1/2) h, (j + 1/2) h, (k + 1/2) h), so the domain is [0, n h] on each axis and its
// faces lie half a spacing outside the outermost points. z is depth: k = 0 is the top.
struct Vec3 {
  double x = 0, y = 0, z = 0;
  bool operator==(const Vec3&) const = default;
};

// What each of the six faces does. pml: convolutional PML (absorbing; zero values beyond
// it). free: pressure release, u = 0 on the face (odd mirror image). rigid: zero normal
// derivative of u (even mirror image). periodic: wraps to the opposite face (both faces).
enum class FaceKind { pml, free, rigid, periodic };
enum Face : int { xmin, xmax, ymin, ymax, zmin, zmax };
inline constexpr std::array<const char*, 6> kFaceNames = {"xmin", "xmax", "ymin",
                                                          "ymax", "zmin", "zmax"};
const char* to_string(FaceKind k);

enum class ModelKind { constant, layered, npy };

struct Layer {
  double top = 0;       // depth of the layer's top (m); the first layer's top is 0
  double velocity = 0;  // m/s
};

// A Ricker wavelet s(t) = amplitude (1 - 2 (pi f (t - delay))^2) exp(-(pi f (t - delay))^2)
// injected at an off-grid position with trilinear weights. delay: 1.5 / f when not given.
struct Source {
  Vec3 position;
  double frequency = 10;  // peak frequency (Hz)
  double amplitude = 1;
  std::optional<double> delay;
};

// Receivers: points, evenly spaced lines (count points, both ends included) and planes of
// grid points (every stride-th point on the two other axes, at `position` along `axis`).
struct ReceiverLine {
  Vec3 start, end;
  int count = 2;
};
struct ReceiverPlane {
  int axis = 2;  // 0 x, 1 y, 2 z
  double position = 0;
  int stride = 1;
};

struct Config {
  // grid
  Extent shape{64, 64, 64};
  double spacing = 10;  // h (m)
  // model
  ModelKind model = ModelKind::constant;
  double velocity = 2000;
  std::vector<Layer> layers;
  std::string model_file;
  // time
  int steps = 300;
  std::optional<double> dt;  // none: cfl_safety * the stability limit
  double cfl_safety = 0.8;
  // scheme
  int order = 8;  // 2, 4, 6, 8: radius order / 2
  Precision precision = Precision::f32;
  // sources and receivers
  std::vector<Source> sources;
  int receiver_every = 1;  // sample u every this many steps
  std::vector<Vec3> receiver_points;
  std::vector<ReceiverLine> receiver_lines;
  std::vector<ReceiverPlane> receiver_planes;
  // boundaries
  std::array<FaceKind, 6> faces = {FaceKind::pml, FaceKind::pml,  FaceKind::pml,
                                   FaceKind::pml, FaceKind::free, FaceKind::pml};
  int pml_width = 16;               // points
  double pml_reflection = 1e-4;     // target normal-incidence reflection R_c
  double pml_power = 4;             // damping profile d(xi) = d0 xi^power
  std::optional<double> pml_alpha;  // frequency shift at the inner edge; none: pi * f_peak
  // outputs
  std::string out_dir = "wave-out";
  int snapshot_every = 0;  // 0: none
  bool snapshot_npy = true, snapshot_vti = true, snapshot_png = true;
  int png_axis = 1;              // slice normal: 0 x, 1 y, 2 z
  std::optional<int> png_index;  // none: the middle
  std::string colormap = "seismic";
  double png_clip = 0.995;  // colour range = this quantile of |u|
  bool seismogram_png = true;
  bool segy = false;         // seismogram.sgy: the seismogram as SEG-Y, one trace per receiver
  bool model_png = true;     // model.png: velocity on the png plane, sources, receivers
  int checkpoint_every = 0;  // 0: none
  Device device = Device::automatic;  // the key "device": auto | cpu | cuda
};

// An override "key.path=VALUE" and the words that name it in messages ("--set
// time.steps=-5", "--dt -1"); overrides given as plain strings are named "override 'TEXT'".
struct Override {
  std::string text, origin;
};

// Parses JSON text (// and /* */ comments allowed), applies each override "key.path=VALUE"
// (VALUE is JSON, or a bare string; array elements by index, e.g. sources.0.frequency=20),
// and validates every key: an unknown key, a key given twice in one object, a top level that
// is not an object (null included), a wrong type or a value out of range throws Error naming
// the key and what is allowed. `origin` names the text in messages, an override's origin the
// values it wrote (and the objects it created).
Config parse_config(std::string_view json_text, std::span<const std::string> overrides = {},
                    const std::string& origin = "configuration");
// The same from a file: a directory, a missing file or one that is not UTF-8 JSON text is
// refused with a message naming it.
Config parse_config_file(const std::string& path, std::span<const std::string> overrides = {});
Config parse_config_file(const std::string& path, std::span<const Override> overrides);
// A complete configuration with every key at its default, commented; parse_config reads it.
std::string default_config_text();
// Every key of cfg as JSON (the canonical form written next to the outputs).
std::string to_json(const Config& cfg);

// What a configuration resolves to, before any step: the checks that need the model.
struct Plan {
  int radius = 4;
  double dt = 0, dt_limit = 0;  // chosen step, and the leapfrog stability limit
  double courant = 0;           // v_max dt / h
  double v_min = 0, v_max = 0;
  double points_per_wavelength = 0;  // v_min / (2.5 f_max h)
  Device device = Device::cpu;       // cpu or cuda (auto resolved)
  std::vector<Vec3> receivers;       // every receiver, in seismogram column order
  int trace_rows = 0;                // steps / receiver_every + 1
  std::string digest;                // of the physics (what a checkpoint must match)
  std::vector<std::string> warnings;
  double bytes_per_point = 0;  // fused update at the optimal footprint: 4 sizeof(T)
};

class Solver;
namespace detail {
class SolverImpl;                // the library's side of a Solver: not part of the API
SolverImpl& impl_of(Solver& s);  // for the library's run driver
}  // namespace detail

// Builds everything a run needs: validates the configuration against the model (positive,
// finite velocities; sources and receivers inside the grid; the CFL condition), reads the
// model, allocates the fields on the chosen device. Throws Error before touching any file
// on bad input. State: u at step n and n-1, both zero at step 0; CPML memory; traces.
class Solver {
 public:
  explicit Solver(const Config& cfg);
  ~Solver();
  Solver(Solver&&) noexcept;
  Solver& operator=(Solver&&) noexcept;

  const Config& config() const;
  const Plan& plan() const;
  int step() const;  // n: u holds u(n dt)

  // Advances `steps` time steps; receivers are sampled when n reaches a multiple of
  // receiver_every (row n / receiver_every; row 0 is step 0).
  void advance(int steps);
  // Replaces u(n dt) and u((n-1) dt) with dense [z][y][x] arrays (a custom initial state).
  void set_state(std::span<const double> u, std::span<const double> u_prev);
  // u(n dt) as a dense [z][y][x] array.
  std::vector<double> wavefield() const;
  // The rows recorded so far, row-major (row, receiver).
  std::vector<double> traces() const;
  int trace_rows_recorded() const;

  // Checkpoint: every piece of state, the step and the digest, written atomically. Loading
  // refuses a checkpoint of a different configuration digest or precision.
  void save_checkpoint(const std::string& path) const;
  void load_checkpoint(const std::string& path);

  // Waits until the steps advance() queued have finished: on the GPU advance() returns once
  // they are queued (time a run between two calls). Every other member waits by itself.
  void synchronize();

 private:
  friend detail::SolverImpl& detail::impl_of(Solver& s);
  std::unique_ptr<detail::SolverImpl> impl_;
};

// Where a run stands, for a progress display.
struct Progress {
  int step = 0;           // u holds u(step dt)
  int first_step = 0;     // where this run started (a restart's checkpoint)
  int last_step = 0;      // time.steps
  double elapsed_s = 0;   // since stepping began
  double gpts_per_s = 0;  // interior points x steps so far / elapsed_s
  double eta_s = 0;       // to last_step at that rate (NaN before the first step)
  bool final = false;     // the call after the last step
};

// The output directory is a unit: a run locks it (.strata.lock; a second run into it is
// refused while the first is alive) and starts only in an empty directory, unless it
// replaces the previous run's files (overwrite) or continues them (restart: the files there
// must be of this configuration). config.json and report.json are written with the results,
// at the end.
struct RunOptions {
  std::string restart;     // checkpoint to continue from ("" : start at step 0)
  bool overwrite = false;  // remove a previous run's files from the directory first
  // The file the configuration was read from ("": none): --overwrite refuses to remove it
  // (a previous run's config.json given as --config).
  std::string config_file;
  // The library prints nothing: progress and warnings go to these callbacks.
  std::function<void(const Progress&)>
      on_progress;                 // at most every progress_interval_s, and after the last step
  double progress_interval_s = 0;  // 0: only the final call
  std::function<void(const std::string&)>
      on_warning;  // each warning as it arises (all are also in the Report)
  // Asked between steps (chunks of about 0.1 s) and between outputs: true stops the run with
  // Interrupted. A file being written when it turns true is finished first; no results
  // (seismogram, config.json, report.json) are written after it.
  std::function<bool()> cancelled;
  // Under mpirun (several ranks): the process grid "PXxPYxPZ" that splits the grid, one box
  // per rank ("": the grid of boxes with the least halo surface that hold the absorbing
  // layers whole). Rank 0 holds the directory; the callbacks are called on every rank.
  // On one rank a grid ("1x1x1") runs the distributed path there (its files are those of
  // one process).
  std::string grid;
  // This process alone runs the whole grid, whatever the job (each shot of --shots).
  bool alone = false;
  // Under mpirun, how the ranks end their checks: false, Job::begin (the CLI's protocol, once
  // a process: main says the first failing rank's error); true, Job::agree (a failure on any
  // rank throws dist::AgreedError with its message on every rank, and the job goes on: a
  // script that makes several runs, as strata.run.wave does).
  bool agree = false;
  // When the process began (the CLI's start): given, the report's phases begin with the time
  // before run() was called, mpi_start (MPI_Init, under mpirun) and process_start (the rest:
  // loading, options). Left at its default, they are not reported.
  std::chrono::steady_clock::time_point process_start{};
};

// What run() throws when RunOptions::cancelled said stop: where it stopped and the last
// checkpoint a --restart can continue from (this run's newest, or the one it started from).
struct Interrupted : Error {
  Interrupted(int step_reached, std::string checkpoint_path, int checkpoint_at);
  int step = 0;
  std::string checkpoint;  // "" when there is none
  int checkpoint_step = -1;
};

struct Report {
  Device device = Device::cpu;  // where it ran: cpu or cuda
  std::string precision;
  Extent shape;
  int order = 0;
  int first_step = 0, last_step = 0, steps_run = 0;
  double dt = 0;
  double wall_s = 0;      // everything from setup to the last output
  double compute_s = 0;   // time stepping only (outputs excluded)
  double gpts_per_s = 0;  // interior points * steps / compute_s / 1e9
  double gb_per_s = 0;    // gpts_per_s * bytes_per_point
  double bytes_per_point = 0;
  double copy_gb_per_s =
      0;  // the GPU's 2.5D copy kernel on this grid, same run (0 on the CPU: not measured)
  double ratio_to_copy = 0;  // gb_per_s / copy_gb_per_s = gpts_per_s / (copy GB/s / BpP); GPU only
                             // (several ranks: per GPU, the copy rate of one rank's box)
  int ranks = 1;             // processes (GPUs) the grid was split over
  std::string process_grid;  // "PXxPYxPZ" ("" in one process)
  std::string
      gpu_exchange;  // several ranks on GPUs: how the halos travelled ("CUDA IPC ...", "NCCL ...")
  // Where the time went, in order: mpi_start and process_start (before run(), where
  // RunOptions::process_start was given; not in wall_s), device_start (the GPU's context),
  // model (model, plan, partition), fields (allocated and loaded), restart, communicators
  // (several ranks), copy_rate (GPU), stepping, checks (NaN/Inf), snapshots, checkpoints,
  // results.
  std::vector<std::pair<std::string, double>> phases_s;
  // With STRATA_WAVE_TIMELINE=1 on a GPU (a diagnostic): rank 0's median step, in ms from its
  // start, at the halo's end, the far interior's, the shell's and the step's (docs/multigpu.md).
  std::vector<std::pair<std::string, double>> step_timeline_ms;
  // The same for every rank of a distributed run (index = rank; filled on rank 0): the slowest
  // rank sets the step, and rank 0's alone cannot say which it is.
  std::vector<std::vector<std::pair<std::string, double>>> step_timeline_ms_by_rank;
  std::vector<std::string> outputs;  // files written
  std::vector<std::string> warnings;
  Plan plan;
};

// The whole job of `strata wave`: builds the Solver (nothing is written if that fails),
// restarts from a checkpoint when asked, steps with snapshots, checkpoints and progress,
// then writes the seismogram, its picture, the configuration and report.json. Prints
// nothing (to_text gives the summary a program shows).
Report run(const Config& cfg, const RunOptions& opt = {});
std::string to_json(const Report& r);
std::string to_text(const Report& r);  // the human-readable summary
// The progress line the CLI and Python print: "step 120/800  15.0%  0.123 Gpts/s  elapsed
// 0:03  ETA 0:17".
std::string to_text(const Progress& p);

// ---- what the pictures show (the run's PNGs, and strata.plot, draw from these) ----

// The horizontal axis of a seismogram picture. Receivers in a straight line, in order
// along it (a receiver line; seismogram column order): each one's signed offset in metres
// along the line (the direction from its first receiver to its last), measured from the
// first source's position (quick.json: -150..+150 m), or from the first receiver when
// there is no source. Otherwise (one receiver, scattered points, a plane): the column
// number of each receiver in the seismogram.
struct ReceiverAxis {
  std::vector<double> values;  // per receiver, increasing
  std::string label;           // e.g. "offset from the source (m)", "receiver (seismogram column)"
  bool metres = false;
};
ReceiverAxis receiver_axis(const std::vector<Vec3>& receivers, const std::vector<Source>& sources);

// Every receiver of a configuration, in seismogram column order (receivers.npy's rows).
std::vector<Vec3> receiver_positions(const Config& cfg);

// The velocity model on the plane of the run's pictures: normal to `axis` (0 x, 1 y, 2 z)
// at grid `index` (none: the middle). Across the picture runs x (y when axis is x), down it
// z (y when axis is z). Only that plane is read from a .npy model.
struct ModelSlice {
  int axis = 1, index = 0;
  int cols = 0, rows = 0;
  std::vector<double> velocity;  // rows x cols (m/s), row 0 at the top
};
ModelSlice model_slice(const Config& cfg, int axis, std::optional<int> index);

// Whether the run's pictures are annotated (axes, colour bar, title: strata was built with
// cairo), and by what ("cairo 1.16.0"; "" when not).
std::string picture_library();

// ---- Many shots: one model, a list of source positions (`strata wave --shots FILE`) ----
// A shot is the configuration with its sources replaced. It runs as a run of its own, by
// run(shot_config(cfg, shot)), into OUT_DIR/NAME: every file a plain run with those sources
// writes, the same bits. OUT_DIR/manifest.json lists the shots once all are done. run_shots
// (below) is the whole job: under MPI it deals shot i to rank i % ranks.

struct Shot {
  std::string name;             // its directory under output.dir
  std::vector<Source> sources;  // replace the configuration's sources
};

// A shots file is a JSON list (comments allowed), one object per shot:
//   {"name": "line1_s03", "position": [x, y, z]}  the configuration's one source moved there
//                                                   (its frequency, amplitude, delay kept)
//   {"name": ..., "sources": [{"position": [x, y, z], "frequency": 12, ...}, ...]}
//                                                   the keys of the configuration's "sources"
// "name" is optional (default shot0000, shot0001, ... by place in the list): letters,
// digits, '.', '_', '-', not starting with '.', at most 100 characters, not
// "manifest.json". Refused with a message naming the entry and what is allowed: not a list,
// an empty list, an unknown key, both or neither of position and sources, "position" when
// the configuration has not exactly one source, a position outside the grid, two shots of
// one name. `origin` names the text in messages.
std::vector<Shot> parse_shots(std::string_view json_text, const Config& cfg,
                              const std::string& origin = "shots");
std::vector<Shot> parse_shots_file(const std::string& path, const Config& cfg);
// cfg with the shot's sources, writing into output.dir/NAME.
Config shot_config(const Config& cfg, const Shot& shot);

// The files a shots run reads, each named by what gave it ("--config", "--shots"): with
// overwrite, none of them may be a file of the previous run (OUT_DIR's manifest, or a file in
// a shot's directory, such as its config.json given as --config). model.file is added.
using RunInputs = std::vector<std::pair<std::string, std::string>>;

// Every check a run of each shot makes before its first step, the model read once: the
// output directory (absent or empty; with overwrite, a previous shots run's manifest and
// shot directories, none of them an input) and each shot's directory as run() checks it, the
// host memory, the configuration without its sources (grid, model, CFL, receivers: the plan
// returned, with its device and dt), then each shot's sources against that dt (messages name
// the shot). Throws Error; reads the model, writes nothing.
Plan check_shots(const Config& cfg, const std::vector<Shot>& shots, bool overwrite,
                 const RunInputs& inputs = {});

// One shot's run, as the process that ran it reports it.
struct ShotResult {
  std::size_t index = 0;  // in the shots list
  int rank = 0;
  Report report;
};
// A process's results as JSON text: what it hands to the one that writes the manifest.
std::string shot_results_json(const Config& cfg, const std::vector<Shot>& shots,
                              const std::vector<ShotResult>& results);

// OUT_DIR of a shots run, held by one process while the shots run: created and locked like
// a run's directory (a second run into it is refused), a previous manifest removed first
// under overwrite (the shots' own directories are each run's to replace).
class ShotsDirectory {
 public:
  ShotsDirectory(const Config& cfg, const std::vector<Shot>& shots, bool overwrite,
                 const RunInputs& inputs = {});
  ~ShotsDirectory();
  ShotsDirectory(const ShotsDirectory&) = delete;
  ShotsDirectory& operator=(const ShotsDirectory&) = delete;
  // Writes OUT_DIR/manifest.json atomically from every process's shot_results_json: the
  // shots in list order, each with its rank, sources, directory, files, times and digest.
  // Throws Error unless every shot is there exactly once. Returns the manifest's path.
  std::string write_manifest(const std::vector<std::string>& results_json, int ranks,
                             double wall_s) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// What run_shots asks its caller, which prints: each shot's RunOptions, word of each shot
// done, whether to stop, and when the shots run (the CLI lets a signal stop them then).
// `where` says which shot runs where: "3/8" (its place in the list), ", rank R" under MPI.
struct ShotsOptions {
  bool overwrite = false;
  RunInputs inputs;  // the files the run reads (check_shots): overwrite leaves them
  std::function<RunOptions(std::size_t index, const std::string& where)> run_options;
  std::function<void(const ShotResult&, const std::string& where)>
      on_shot;                // each shot this process ran
  std::function<int()> stop;  // non-zero (a signal's number): start no further shot
  std::function<void(bool)>
      on_running;  // true before this process's first shot, false after its last
};

// How a shots job ended, on each process.
struct ShotsReport {
  std::size_t shots = 0;
  int ranks = 1;
  double wall_s = 0;
  std::string manifest;  // rank 0: the manifest written ("" elsewhere, or when stopped)
  int stopped = 0;  // the largest stop() over the ranks after the shots: none written when non-zero
  // This process's shot that Interrupted stopped: its index, where, and why (the exception's text).
  std::optional<std::size_t> interrupted;
  std::string interrupted_where, interrupted_why;
};

// The whole job of `strata wave --shots`: every process checks every shot (check_shots; a
// failure throws before any file), binds its GPU, and joins the job (dist::Job::begin);
// rank 0 takes OUT_DIR (ShotsDirectory); shot i runs on rank i % ranks (every shot in
// turn in one process) as run(shot_config(cfg, shots[i]), opt.run_options(i, where)). A
// shot that fails throws Error naming it ("shot NAME (where): ..."). Once every rank is
// done or stopped, rank 0 writes the manifest unless stop() said stop on some rank.
ShotsReport run_shots(const Config& cfg, const std::vector<Shot>& shots, const ShotsOptions& opt);

}  // namespace strata::wave

// The run driver behind `strata wave` and strata.wave.run: validate (the output directory,
// the Solver; nothing is written if either throws), take the directory, optionally restart,
// step in segments between output events, checking the wavefield for NaN/Inf and the cancel
// request between them, and write every file through io::AtomicFile, the results last. It
// prints nothing: progress and warnings go to RunOptions' callbacks. Stepping time is
// measured between device synchronisations at segment ends, so output I/O never counts
// against the reported rate.
// Each job has its piece, named for it: the ranks (job.hpp), the directory
// (run_directory.hpp), snapshots, checkpoints, the finite check, progress and phase clocks,
// the results and the report. This file holds the order they run in.
// Under mpirun every rank runs it on its box of the grid (solvers/wave/partition.hpp): rank
// 0 holds the directory and writes the seismogram, config and report; snapshots are written
// by all ranks into one file each; each rank writes its own checkpoint. Rank 0 decides each
// segment's length, the cancel and the finite checks, so the ranks step and stop together.
#include <algorithm>
#include <memory>
#include <optional>

#include "dispatch/copy_rate.hpp"
#include "drivers/job.hpp"
#include "drivers/wave/checkpoints.hpp"
#include "drivers/wave/finite_check.hpp"
#include "drivers/wave/job.hpp"
#include "drivers/wave/progress.hpp"
#include "drivers/wave/report.hpp"
#include "drivers/wave/results.hpp"
#include "drivers/wave/run_directory.hpp"
#include "drivers/wave/snapshots.hpp"
#include "solvers/wave/partition.hpp"
#include "solvers/wave/plan.hpp"
#include "solvers/wave/solver.hpp"
#include "strata/device.hpp"
#include "strata/vector_ops.hpp"

namespace strata::wave {

namespace {

// The copy rate on two fields of the run's layout (the grid, ghosts of the stencil's radius),
// of their own and freed before stepping; the source holds ones (never time on zeros).
// Where the device has no room for them beside the run's fields, the ratio is left out.
template <class T>
double copy_rate(const Extent& box, int ghost, const Warnings& warn) {
  // The box's planes, as many as make 2^26 points (256 MiB in f32, 5x the L2 of an H100 or
  // H200): the rate is the same as over a whole large box, and a box of tens of GB is not
  // allocated, set and copied again for a yardstick (2 s at 2400^3 over two GPUs).
  const long long plane = (long long)box.nx * box.ny;
  const int planes =
      int(std::min<long long>(box.nz, std::max<long long>(1, ((1LL << 26) + plane - 1) / plane)));
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

// The ranks' links and u's first exchange, then the GPU's copy kernel: the yardstick of the
// GPU kernels' rate. On the CPU the same ratio says nothing (it varied 1.78, 0.039, 0.019
// across similar runs): not measured.
template <class T>
void connect_and_measure(SolverT<T>& s, Report& rep, PhaseTimes& times, const Warnings& warn) {
  const Partition* part = s.partition();
  Clock::time_point t_phase = Clock::now();
  s.connect();
  if (part) {
    times.add_since("communicators", t_phase);
    if (s.plan().device == Device::cuda) rep.gpu_exchange = dist::transports().gpu;
    t_phase = Clock::now();
  }
  if (s.plan().device == Device::cuda) {
    rep.copy_gb_per_s =
        copy_rate<T>(part ? part->box.local : s.config().shape, s.plan().radius, warn);
    times.add_since("copy_rate", t_phase);
  }
}

// The step where the segment from step n ends: the next snapshot, checkpoint or the last step.
int segment_end(const Config& c, int n) {
  int next = c.steps;
  if (c.snapshot_every) next = std::min(next, (n / c.snapshot_every + 1) * c.snapshot_every);
  if (c.checkpoint_every) next = std::min(next, (n / c.checkpoint_every + 1) * c.checkpoint_every);
  return next;
}

// Between steps and outputs (a write in progress always finishes): rank 0's word, so that
// every rank stops at the same step, with the checkpoint a --restart continues from.
void stop_if_cancelled(const RunOptions& opt, const Ranks& ranks, detail::SolverImpl& s, int n,
                       const Checkpoints& checkpoints) {
  bool stop = opt.cancelled && opt.cancelled();
  ranks.from_root(stop);
  if (!stop) return;
  s.synchronize();
  throw Interrupted(n, checkpoints.last(), checkpoints.last_step());
}

template <class T>
Report run_t(SolverT<T>& s, const RunOptions& opt, const Ranks& ranks, io::RunDirectory::Mode mode,
             Clock::time_point t_start, PhaseTimes& times) {
  const Config& c = s.config();
  const Plan& p = s.plan();
  Report rep = start_report(c, p);
  const Warnings warn{rep, opt};
  warn_before_run(c, p, warn);
  const Partition* part = s.partition();
  rep.ranks = ranks.size();
  if (part) rep.process_grid = part->grid.str();
  connect_and_measure(s, rep, times, warn);
  rep.first_step = s.step();  // a restart's checkpoint was loaded by run()

  // Everything is valid: from here on files appear, in a directory this run holds locked
  // (by rank 0, for every rank).
  OutputList out{rep.outputs};
  RunDirectoryHold dir;
  ranks.on_root([&] { dir.take(c, p, run_files(ranks.size(), c, opt), mode, out); });

  const double points = double(c.shape.points());
  ProgressClock progress{opt, rep.first_step, c.steps, points};
  Checkpoints checkpoints(c, opt, rep.first_step);
  SnapshotWriter snapshots(c, part, ranks, out);
  double compute = 0;
  int n = s.step();
  int chunk = 1;
  Clock::time_point seg = Clock::now();
  FiniteCheck<T> finite(s, ranks, times, checkpoints);
  if (!opt.restart.empty()) {  // a state read from a file is checked before it is stepped
    finite.forget();
    checkpoints.forget_restart();  // not valid if this check fails
    finite.require(n);
    checkpoints.trust_restart(opt.restart);
  }
  while (n < c.steps) {
    stop_if_cancelled(opt, ranks, s, n, checkpoints);
    ranks.from_root(chunk);  // the ranks' segments end together
    const int k = std::min(segment_end(c, n) - n, chunk);
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
    const bool snap = snapshots.due(n);
    const bool check = checkpoints.due(n);
    const bool finite_due = finite.due();
    if (!snap && !check && !finite_due) continue;
    s.synchronize();
    compute += seconds_since(seg);
    finite.require(n);
    if (snap) {
      const Clock::time_point t_out = Clock::now();
      snapshots.write(s.field_values(), n, n * p.dt);
      times.add_since("snapshots", t_out);
    }
    if (check) checkpoints.save(s, ranks, n, times, out);
    seg = Clock::now();
  }
  stop_if_cancelled(opt, ranks, s, n, checkpoints);  // an interrupted run writes no results
  s.synchronize();
  compute += seconds_since(seg);
  times.add("stepping", compute);
  if (!finite.checked_at(n)) finite.require(n);
  progress.report(n, true);
  const Clock::time_point t_results = Clock::now();

  const std::vector<T> traces = p.receivers.empty() ? std::vector<T>() : s.gathered_traces();
  rep.last_step = n;
  rep.steps_run = n - rep.first_step;
  rep.compute_s = compute;
  rep.step_timeline_ms = s.step_timeline();
  if (ranks.many) {
    // Every rank's timeline at rank 0, as "name=ms" lines (empty where it kept none).
    std::string mine;
    for (const auto& [name, ms] : rep.step_timeline_ms)
      mine += name + "=" + std::to_string(ms) + "\n";
    for (const std::string& text : ranks.job.gather_text(mine, 0)) {
      auto& one = rep.step_timeline_ms_by_rank.emplace_back();
      std::size_t at = 0;
      for (std::size_t end; (end = text.find('\n', at)) != std::string::npos; at = end + 1) {
        const std::string line = text.substr(at, end - at);
        const std::size_t eq = line.find('=');
        one.emplace_back(line.substr(0, eq), std::stod(line.substr(eq + 1)));
      }
    }
    bool any = false;
    for (const auto& one : rep.step_timeline_ms_by_rank) any = any || !one.empty();
    if (!any) rep.step_timeline_ms_by_rank.clear();
  }
  if (!ranks.root) return rep;  // the results are rank 0's to write
  write_results(c, p, traces, s.rows(), out);
  finish_rates(rep, points);
  write_report(rep, c.out_dir, times, t_results, t_start);
  return rep;
}

}  // namespace

Report run(const Config& cfg, const RunOptions& opt) {
  const Clock::time_point t0 = Clock::now();
  const Ranks ranks(opt);
  const io::RunDirectory::Mode mode = directory_mode(opt);
  PhaseTimes times;
  if (opt.process_start != Clock::time_point{}) {  // the time before this call (the CLI's)
    const double before = std::chrono::duration<double>(t0 - opt.process_start).count();
    const double mpi = ranks.job.start_ms() / 1e3;
    if (mpi > 0) times.add("mpi_start", mpi);
    times.add("process_start", std::max(0.0, before - mpi));
  }
  std::unique_ptr<detail::SolverImpl> solver;
  // Every check, on every rank; nothing is written if one throws. Over several ranks each
  // builds its box. Under RunOptions::agree a rank's failure is every rank's AgreedError.
  std::string why;
  try {
    // Before any work; rank 0 alone (the directory is one, and so is its refusal).
    ranks.on_root(
        [&] { io::RunDirectory::preflight(cfg.out_dir, run_files(ranks.size(), cfg, opt), mode); });
    // Before the Solver allocates: a checkpoint that is not there.
    if (!opt.restart.empty()) require_restart_file(opt.restart, ranks.rank());
    std::optional<dist::ProcessGrid> grid;
    if (ranks.many) grid = wave_process_grid(cfg, ranks.size(), opt.grid);
    if (run_device(cfg) == Device::cuda) {
      // The GPU's context, apart from the run's own set-up (on a host of several GPUs it
      // takes longer when the ranks start theirs together).
      const Clock::time_point t_device = Clock::now();
      if (ranks.many)
        drivers::bind_gpu(Device::cuda, true);  // one GPU per rank, before any CUDA work
      runtime::start_device();
      times.add_since("device_start", t_device);
    }
    const Clock::time_point t_model = Clock::now();
    if (cfg.precision == Precision::f32)
      solver = std::make_unique<SolverT<float>>(cfg, grid ? &*grid : nullptr);
    else
      solver = std::make_unique<SolverT<double>>(cfg, grid ? &*grid : nullptr);
    // The model, the plan and the partition, then the fields on the device (or host).
    const double fields = solver->fields_seconds();
    times.add("model", std::max(0.0, seconds_since(t_model) - fields));
    times.add("fields", fields);
    if (!opt.restart.empty()) {  // a rank's own file, checked and loaded before the ranks agree
      const Clock::time_point t_restart = Clock::now();
      solver->load_checkpoint(rank_checkpoint(opt.restart, ranks.rank()));
      times.add_since("restart", t_restart);
    }
  } catch (const std::exception& e) {
    if (!(ranks.many && opt.agree)) throw;
    why = e.what();
    if (why.empty()) why = "preparing the wave run failed";
  }
  if (ranks.many && opt.agree)
    ranks.job.agree(why);  // every rank is ready, or every rank raises the first one's why
  else if (ranks.many && !ranks.job.begun())
    dist::Job::get().begin();  // every rank is ready, or all stop here (main's protocol)
  if (ranks.many && !opt.restart.empty()) {
    // A job stopped between the ranks' renames leaves checkpoints of two steps.
    int step = solver->step(), first = step;
    ranks.from_root(first);
    ranks.job.agree(step == first
                        ? std::string()
                        : "the ranks' checkpoints are of different steps (rank 0's '" +
                              opt.restart + "' is at step " + std::to_string(first) + ", rank " +
                              std::to_string(ranks.rank()) + "'s at step " + std::to_string(step) +
                              "): the job that wrote them stopped while it wrote them; they cannot "
                              "continue one run");
  }
  if (cfg.precision == Precision::f32)
    return run_t(dynamic_cast<SolverT<float>&>(*solver), opt, ranks, mode, t0, times);
  return run_t(dynamic_cast<SolverT<double>&>(*solver), opt, ranks, mode, t0, times);
}

}  // namespace strata::wave

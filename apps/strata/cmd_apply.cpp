// strata apply: one stencil pass over a .npy array with a boundary condition, on the GPU
// when there is one. Everything is validated before any work; the output is written
// atomically, so a failed run leaves no file behind; a result with NaN or Inf is a failed
// run unless --allow-nonfinite.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <iostream>

#include "apps/strata/commands.hpp"
#include "apps/strata/options.hpp"
#include "apps/strata/report.hpp"
#include "strata/host_memory.hpp"
#include "strata/apply.hpp"
#include "strata/atomic_file.hpp"
#include "strata/device.hpp"
#include "strata/dist.hpp"
#include "strata/reduce.hpp"
#include "strata/npy.hpp"
#include "strata/steps.hpp"

namespace strata::cli {

namespace {

struct ApplyArgs {
  std::string stencil = "7pt";
  int radius = 0;  // 0: the stencil's own (1 for 7pt/sym27/box27; required >= 1 for star)
  std::string coeffs;
  double spacing = 1;  // scales the default Laplacians by 1/h^2
  std::string bc = "dirichlet";
  std::string in, out, precision, device, grid, json;
  bool allow_nonfinite = false;
  int steps = 1, fuse = 0;  // fuse 0: strata picks (auto_fuse)
  std::string update = "repeat";
};

// --update: repeat (u <- A u) or relax:C (u <- u + C (A u)).
StepOptions parse_update(const std::string& text) {
  if (text == "repeat") return {StepUpdate::repeat, 0};
  if (text.rfind("relax:", 0) == 0) {
    const std::vector<double> c = parse_numbers(text.substr(6), "--update relax:C");
    if (c.size() != 1 || !std::isfinite(c[0]))
      throw Error("--update '" + text + "': relax:C takes one finite factor C (u <- u + C (A u))");
    return {StepUpdate::relax, c[0]};
  }
  throw Error("--update '" + text + "': allowed repeat (u <- A u) or relax:C (u <- u + C (A u), e.g. relax:0.1)");
}

Stencil make_stencil(const ApplyArgs& a) {
  if (a.coeffs.empty()) return Stencil::named(a.stencil, a.radius, std::nullopt, a.spacing);
  const std::vector<double> c = parse_numbers(a.coeffs, "--coeffs");
  return Stencil::named(a.stencil, a.radius, c, a.spacing);
}

// A coefficient or boundary value the precision cannot hold turns every output it touches
// into Inf: refused before the input is read.
void require_representable(const Stencil& s, const Boundary& bc, Precision p) {
  if (p != Precision::f32) return;
  const double largest = std::numeric_limits<float>::max();
  for (double c : s.coeffs())
    if (std::fabs(c) > largest)
      throw Error("--coeffs: " + format_number(c) + " is not representable in f32 (|c| <= " +
                  format_number(largest) +
                  "): every output would be infinite; use --precision f64");
  if (bc.kind == BoundaryKind::dirichlet && std::fabs(bc.value) > largest)
    throw Error("--bc dirichlet:" + format_number(bc.value) +
                " is not representable in f32 (|value| <= " + format_number(largest) +
                "); use --precision f64");
}

// What a run reports: the line on stdout and, with --json, the same as JSON with the time of
// every phase of the process (ms): process_start, device_start (cuda), input (read, onto the
// device on cuda), check_input, allocation (the output field), compute (the stencil passes,
// synchronised), check_result, output (the .npy written and synced), total.
struct Outcome {
  std::string where;  // "cuda" or "cpu on 4 ranks (process grid 2x2x1)"
  Extent n;
  int steps = 1, fuse = 1;
};

template <class T>
void report(const ApplyArgs& a, const Stencil& s, const Boundary& bc, const StepOptions& u, const Outcome& o,
            Phases& phase, bool root) {
  phase.total();
  if (!root) return;
  const double compute = phase.of("compute"), rate = double(o.n.points()) * o.steps / (compute * 1e-3) / 1e9;
  const bool single = o.steps == 1 && u.update == StepUpdate::repeat;
  const std::string update =
      u.update == StepUpdate::repeat ? "u <- A u" : "u <- u + " + format_number(u.c) + " (A u)";
  const std::string steps = single ? "" : ", " + std::to_string(o.steps) + " steps of " + update +
                                              (o.fuse > 1 ? ", up to " + std::to_string(o.fuse) + " per pass" : "");
  std::printf("strata apply: %s, %s boundary%s, %s %s on %s: %.2f ms (%.1f Gpts/s per step); "
              "read %.0f ms, write %.0f ms, whole process %.0f ms -> %s\n",
              s.describe().c_str(), bc.describe().c_str(), steps.c_str(), o.n.str().c_str(), to_string(precision_of<T>),
              o.where.c_str(), compute, rate, phase.of("input"), phase.of("output"), phase.of("total"), a.out.c_str());
  if (a.json.empty()) return;
  nlohmann::ordered_json j = {{"stencil", s.describe()},
                              {"bc", bc.describe()},
                              {"shape", {o.n.nx, o.n.ny, o.n.nz}},
                              {"precision", to_string(precision_of<T>)},
                              {"device", o.where},
                              {"steps", o.steps},
                              {"update", update},
                              {"steps_per_pass", o.fuse},
                              {"compute_s", compute * 1e-3},
                              {"gpts_per_step", rate},
                              {"output", a.out},
                              {"timing_ms", phase.ms}};
  write_report(a.json, j);
}

// A non-finite result fails the run unless asked for: nothing is written.
template <class T>
void refuse_nonfinite(const ApplyArgs& a, const FiniteReport<T>& result,
                      const FiniteReport<T>& input, std::size_t points) {
  const std::string why = nonfinite_result(result, &input, points);
  if (!a.allow_nonfinite)
    throw Error(why + ". Nothing was written (--allow-nonfinite writes it anyway)");
  std::fprintf(stderr, "strata apply: warning: %s (written: --allow-nonfinite)\n", why.c_str());
}

// One process's steps: the update, its steps per pass and the ghost layers its fields need
// (periodic passes of k steps read k R layers).
struct OneProcessSteps {
  StepOptions update;
  bool single = true;
  int ghost = 1;
};
template <class T>
OneProcessSteps one_process_steps(const ApplyArgs& a, const Stencil& s, const Boundary& bc, Memory mem) {
  OneProcessSteps o;
  o.update = parse_update(a.update);
  o.single = a.steps == 1 && o.update.update == StepUpdate::repeat;
  o.update.fuse = a.fuse > 0 ? a.fuse : auto_fuse<T>(s, mem);
  o.ghost = std::max({s.radius(), 1, bc.kind == BoundaryKind::periodic && !o.single ? o.update.fuse * s.radius() : 0});
  return o;
}

// The memory a run will hold, checked before anything is read or allocated (under mpirun
// before the ranks agree to start, on every rank). One process: two fields with ghosts (the
// input and the output, or apply_steps' scratch), on the device or on the host with the dense
// copy the output is written from. Over the ranks: each rank's box of both fields, and the
// 64 MiB buffer its part of the .npy files streams through, for every rank of this host.
template <class T>
void check_memory(const ApplyArgs& a, const Stencil& s, const Boundary& bc, Device dev, Extent n,
                  const dist::ProcessGrid* grid) {
  const Memory mem = dev == Device::cuda ? Memory::device : Memory::host;
  const std::string what = "applying a stencil to the " + n.str() + " " + to_string(precision_of<T>) + " array";
  // --device cuda is advice only where a GPU can be used (a machine without one is never told to).
  const std::string advice =
      mem == Memory::host && cuda_available() ? "use a smaller array or --device cuda" : "use a smaller array";
  if (!grid) {
    const int ghost = one_process_steps<T>(a, s, bc, mem).ghost;
    const double field = double(Layout::make(n, ghost, sizeof(T)).bytes()), dense = double(n.points()) * sizeof(T);
    if (mem == Memory::device) {
      require_device_memory(std::size_t(2 * field), what);  // the first call also starts the device
    } else {
      host::require_host_memory(2 * field + dense, what,
                                "2 fields with ghosts " + host::format_bytes(2 * field) +
                                    ", the output's dense copy " + host::format_bytes(dense),
                                advice);
    }
    return;
  }
  const dist::Job& job = dist::Job::get();
  const Extent box = dist::Subdomain::of(*grid, n, job.rank()).local;
  const double field = double(Layout::make(box, std::max(s.radius(), 1), sizeof(T)).bytes());
  const double staging = double(64 << 20), ranks = job.local_size();
  const std::string each = job.local_size() == 1 ? "" : " (each of this host's " + std::to_string(job.local_size()) + " ranks)";
  if (mem == Memory::device) {
    require_device_memory(std::size_t(2 * field), what + ", rank " + std::to_string(job.rank()) + "'s " + box.str() + " box");
    host::require_host_memory(ranks * staging, what, "a 64 MiB .npy buffer" + each, advice);
  } else {
    host::require_host_memory(ranks * (2 * field + staging), what,
                              "2 fields of a " + box.str() + " box with ghosts " + host::format_bytes(2 * field) +
                                  " and a 64 MiB .npy buffer" + each,
                              advice);
  }
}

// One process: on the GPU the array goes from the file onto the device and back through a
// bounded host buffer, and the finite checks run there; on the CPU it is a host field. Its
// memory was checked (check_memory), which also started the device: `phase`'s device_start.
template <class T>
void run(const ApplyArgs& a, const Stencil& s, const Boundary& bc, Device dev, Extent n, Phases& phase) {
  const Memory mem = dev == Device::cuda ? Memory::device : Memory::host;
  const OneProcessSteps steps = one_process_steps<T>(a, s, bc, mem);
  const StepOptions& update = steps.update;
  const bool single = steps.single;
  const int ghost = steps.ghost;
  Field<T> u = npy_read_field<T>(a.in, ghost, mem);
  phase.end("input");
  const FiniteReport<T> input = check_finite(u);
  phase.end("check_input");
  // The output (apply_steps' scratch) is made before the passes are timed: on a GPU its
  // allocation costs about two 512^3 steps, which are not the stencil's.
  Field<T> out(u.extent(), u.ghost(), mem);
  phase.end("allocation");
  if (single) {
    apply(s, u, out, bc);
    u = std::move(out);
  } else {
    apply_steps(s, u, out, bc, a.steps, update);
  }
  if (mem == Memory::device) device_synchronize();
  phase.end("compute");
  if (const FiniteReport<T> result = check_finite(u); !result.all_finite)
    refuse_nonfinite(a, result, input, n.points());
  phase.end("check_result");
  npy_write_field(a.out, u);
  phase.end("output");
  // The host has no fused passes: it takes one step per pass whatever --fuse asks.
  const int per_pass = single || mem == Memory::host ? 1 : update.fuse;
  report<T>(a, s, bc, update, {to_string(dev), n, a.steps, per_pass}, phase, true);
}

// The same on the job's ranks (mpirun -np N): each rank reads its box of the input, the
// halos travel between ranks (NCCL between GPUs), and the ranks write their rows of one file.
template <class T>
void run_distributed(const ApplyArgs& a, const Stencil& s, const Boundary& bc, Device dev, Extent n,
                     const dist::ProcessGrid& grid, Phases& phase) {
  const dist::Job& job = dist::Job::get();
  const StepOptions update = parse_update(a.update);
  const bool single = a.steps == 1 && update.update == StepUpdate::repeat;
  const int ghost = std::max(s.radius(), 1);
  const Memory mem = dev == Device::cuda ? Memory::device : Memory::host;
  if (mem == Memory::device) {
    dist::connect_gpus(grid, n);
    phase.end("communicators");
  }
  dist::DistField<T> in(n, grid, ghost, mem), out(n, grid, ghost, mem);
  phase.end("allocation");
  dist::read_npy(a.in, in);
  phase.end("input");
  const long long bad_in = job.sum((long long)check_finite(in.local()).count);
  job.barrier();
  phase.end("check_input");
  // Steps: one pass a step after each exchange, the result in `in` (`out` the scratch).
  if (single) dist::apply(s, in, out, bc);
  else dist::apply_steps(s, in, out, bc, a.steps, update);
  dist::DistField<T>& result = single ? out : in;
  device_synchronize();
  job.barrier();
  phase.end("compute");
  const long long bad_out = job.sum((long long)check_finite(result.local()).count);
  if (bad_out > 0) {
    const std::string what = "the result holds " + std::to_string(bad_out) + " non-finite value" + (bad_out == 1 ? "" : "s") +
                             (bad_in > 0 ? "; the input holds " + std::to_string(bad_in) : "; the input is finite");
    if (!a.allow_nonfinite) {
      if (job.root()) std::fprintf(stderr, "strata: error: %s. Nothing was written (--allow-nonfinite writes it anyway)\n", what.c_str());
      throw dist::PeerFailed();  // every rank found the same: exit 1 quietly
    }
    if (job.root()) std::fprintf(stderr, "strata apply: warning: %s (written: --allow-nonfinite)\n", what.c_str());
  }
  phase.end("check_result");
  dist::write_npy(a.out, result);
  phase.end("output");
  const std::string where = std::string(to_string(dev)) + " on " + std::to_string(job.size()) +
                            (job.size() == 1 ? " rank" : " ranks") + " (process grid " + grid.str() + ")";
  // One rank's steps are apply_steps on its box, with the passes one process takes.
  const int per_pass = job.size() == 1 && mem == Memory::device && !single
                           ? (a.fuse > 0 ? a.fuse : auto_fuse<T>(s, mem))
                           : 1;
  report<T>(a, s, bc, update, {where, n, a.steps, per_pass}, phase, job.root());
}

}  // namespace

void add_apply(CLI::App& app) {
  auto a = std::make_shared<ApplyArgs>();
  auto* cmd = app.add_subcommand(
      "apply",
      "Apply a stencil to a 3D .npy array, once or --steps times, and write the result.\n"
      "The array is indexed [z][y][x], x fastest. "
      "Boundary values come from the --bc mode exactly as numpy.pad: dirichlet[:v] = 'constant' "
      "(value v, default 0), neumann = 'symmetric', periodic = 'wrap'.");
  cmd->add_option("--stencil", a->stencil, "7pt | star | sym27 | box27")->capture_default_str();
  cmd->add_option("--radius", a->radius, "star radius 1..4 (7pt, sym27 and box27 have radius 1)")
      ->check(whole_number_in(1, Stencil::kMaxRadius));
  cmd->add_option("--coeffs", a->coeffs,
                  "comma-separated coefficients: star c0..cR (c0 centre, cr the six at distance r); "
                  "sym27 c0,c1,c2,c3 (centre, faces, edges, corners); box27 27 values "
                  "K[dz+1][dy+1][dx+1]. Default: +Lap(u) = u_xx + u_yy + u_zz at spacing "
                  "--spacing (+2 on x^2; strata poisson's operators are -Lap): the central-"
                  "difference Laplacian of order 2R (7pt/star), the finite-element one (sym27); "
                  "box27 has no default")
      ->check(number_list());
  cmd->add_option("--spacing", a->spacing,
                  "grid spacing h of the default Laplacians: their coefficients times 1/h^2 "
                  "(not with --coeffs)")
      ->capture_default_str()
      ->check(number_in(1e-15, 1e15));
  cmd->add_option("--bc", a->bc, "dirichlet[:VALUE] | neumann | periodic")->capture_default_str();
  cmd->add_option("--in", a->in, "input .npy (float32 or float64, 3D, C order)")->required();
  cmd->add_option("--out", a->out, "output .npy, same shape; written only if the run succeeds")->required();
  cmd->add_option("--precision", a->precision, "f32 | f64 (default: the input's dtype)");
  cmd->add_option("--device", a->device, "cpu | cuda (default: cuda when a GPU is visible)");
  cmd->add_option("--grid", a->grid,
                  "process grid PXxPYxPZ for a run over several ranks (mpirun -np N strata apply ...); "
                  "default: the grid of N boxes with the least halo surface. Given on one rank (1x1x1), it runs "
                  "the distributed path there, to compare with the one-process run");
  cmd->add_option("--steps", a->steps,
                  "apply the stencil this many times, refilling the ghosts from --bc before each step")
      ->capture_default_str()->check(whole_number_in(0, 1e9));
  cmd->add_option("--update", a->update,
                  "what a step does: repeat (u <- A u) or relax:C (u <- u + C (A u): the explicit heat "
                  "step with C = kappa dt, or weighted Jacobi)")
      ->capture_default_str();
  cmd->add_option("--fuse", a->fuse,
                  "steps per trip through memory on the GPU (temporal blocking, 2..4 steps per pass for stars of "
                  "radius 1..4, 2 for sym27; box27 takes single steps); 1: one pass per step; 0: strata's measured "
                  "choice (H100: 7pt 3; radius-2 star 2 in f32; else 1; docs/performance.md). "
                  "The same result bits whatever the value. Under mpirun every step is one pass (0 or 1)")
      ->capture_default_str()->check(whole_number_in(0, 4));
  cmd->add_option("--json", a->json,
                  "write a JSON report: the run, its rate, and the time of every phase of the process (ms)");
  cmd->add_flag("--allow-nonfinite", a->allow_nonfinite,
                "write the result even when it holds NaN or Inf (otherwise an error, and nothing is written)");
  cmd->callback([a] {
    // Validate everything cheap first: nothing is read or allocated on bad input.
    check_outputs({{"--out", a->out}, {"--json", a->json}});
    const Stencil s = make_stencil(*a);
    const Boundary bc = Boundary::parse(a->bc);
    const StepOptions update = parse_update(a->update);
    const Device dev = resolve_device(a->device);
    const NpyInfo info = npy_inspect(a->in);
    if (info.shape.size() != 3)
      throw Error("input '" + a->in + "' has rank " + std::to_string(info.shape.size()) +
                  ": strata apply needs a 3D array [z][y][x]");
    const Precision p = a->precision.empty() ? info.dtype : parse_precision(a->precision);
    const Extent n = npy_extent(info, a->in);
    require_representable(s, bc, p);
    dist::Job& job = dist::Job::get();
    const int ghost = std::max(s.radius(), 1);
    const dist::ProcessGrid grid =
        a->grid.empty() ? dist::ProcessGrid::choose(n, job.size(), ghost) : dist::ProcessGrid::parse(a->grid);
    grid.require_fits(n, job.size(), ghost, "--grid");
    // A --grid asks for the distributed run, on one rank too (to compare it with one process).
    const bool distributed = job.size() > 1 || !a->grid.empty();
    if (distributed && io::check_output(a->out).kind == io::OutputTarget::Kind::stream)
      throw Error("--out '" + a->out + "' is a pipe or device: the ranks of a distributed run write their parts "
                  "of one file in parallel; give a file path");
    if (job.size() > 1 && a->fuse > 1)
      throw Error("--fuse " + std::to_string(a->fuse) + ": over several ranks every step is one pass (the ghosts "
                  "are exchanged between steps); fused passes take one process");
    if (dev == Device::cuda && distributed) job.bind_gpu();
    Phases phase;
    if (p == Precision::f32) check_memory<float>(*a, s, bc, dev, n, distributed ? &grid : nullptr);
    else check_memory<double>(*a, s, bc, dev, n, distributed ? &grid : nullptr);
    if (dev == Device::cuda) phase.end("device_start");
    job.begin();  // every rank validated: from here a failure is one rank's own
    if (distributed) {
      if (p == Precision::f32)
        run_distributed<float>(*a, s, bc, dev, n, grid, phase);
      else
        run_distributed<double>(*a, s, bc, dev, n, grid, phase);
    } else if (p == Precision::f32) {
      run<float>(*a, s, bc, dev, n, phase);
    } else {
      run<double>(*a, s, bc, dev, n, phase);
    }
  });
}

}  // namespace strata::cli

// strata apply's run (drivers/apply.hpp): one process, or the job's ranks with their boxes
// of one field, decided once here.
#include "drivers/apply.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "drivers/job.hpp"
#include "strata/apply.hpp"
#include "io/atomic_file.hpp"
#include "strata/error.hpp"
#include "base/host_memory.hpp"
#include "base/runtime.hpp"
#include "strata/npy.hpp"
#include "strata/reduce.hpp"

namespace strata::drivers {

namespace {

Error update_refused(const std::string& what, const std::string& text) {
  return Error(what + " '" + text +
               "': allowed repeat (u <- A u) or relax:C (u <- u + C (A u), e.g. relax:0.1)");
}

}  // namespace

StepOptions step_update(const std::string& word, double c, const std::string& what) {
  if (word == "repeat") return {StepUpdate::repeat, 0};
  if (word == "relax") {
    if (!std::isfinite(c))
      throw Error(what + ": relax takes one finite factor C (u <- u + C (A u))");
    return {StepUpdate::relax, c};
  }
  throw update_refused(what, word);
}

StepOptions parse_update(const std::string& text, const std::string& what) {
  // The text names its factor: a bare "relax" (c = 0, a step that does nothing) is refused.
  if (text == "repeat") return step_update(text, 0, what);
  if (text.rfind("relax:", 0) != 0) throw update_refused(what, text);
  const std::string factor = text.substr(6);
  char* end = nullptr;
  const double c = factor.empty() ? NAN : std::strtod(factor.c_str(), &end);
  if (factor.empty() || *end != '\0' || !std::isfinite(c))
    throw Error(what + " '" + text + "': relax:C takes one finite factor C (u <- u + C (A u))");
  return step_update("relax", c, what);
}

std::string describe(const StepOptions& u) {
  return u.update == StepUpdate::repeat ? "u <- A u" : "u <- u + " + format_number(u.c) + " (A u)";
}

namespace {

Memory memory_of(Device d) { return d == Device::cuda ? Memory::device : Memory::host; }

// A coefficient or boundary value the precision cannot hold turns every output it touches
// into Inf: refused before the input is read.
void require_representable(const ApplyRun& r, Precision p) {
  if (p != Precision::f32) return;
  const double largest = std::numeric_limits<float>::max();
  for (double c : r.stencil.coeffs())
    if (std::fabs(c) > largest)
      throw Error(r.words.coeffs + ": " + format_number(c) +
                  " is not representable in f32 (|c| <= " + format_number(largest) +
                  "): every output would be infinite; use " + r.words.precision + " f64");
  if (r.bc.kind == BoundaryKind::dirichlet && std::fabs(r.bc.value) > largest)
    throw Error(r.words.bc + " dirichlet:" + format_number(r.bc.value) +
                " is not representable in f32 (|value| <= " + format_number(largest) + "); use " +
                r.words.precision + " f64");
}

bool single_pass(const ApplyRun& r) {
  return r.steps == 1 && r.update.update == StepUpdate::repeat;
}

// One process's steps: the update with its steps per pass, and the ghost layers its fields
// need (periodic passes of k steps read k R layers).
template <class T>
StepOptions one_process_update(const ApplyRun& r, Memory mem) {
  StepOptions u = r.update;
  u.fuse = r.fuse > 0 ? r.fuse : auto_fuse<T>(r.stencil, mem);
  return u;
}
template <class T>
int one_process_ghost(const ApplyRun& r, Memory mem) {
  const bool periodic_fused = r.bc.kind == BoundaryKind::periodic && !single_pass(r);
  return std::max({r.stencil.radius(), 1,
                   periodic_fused ? one_process_update<T>(r, mem).fuse * r.stencil.radius() : 0});
}

// The memory a run will hold, checked before anything is read or allocated (under mpirun
// before the ranks agree to start, on every rank). One process: two fields with ghosts (the
// input and the output, or apply_steps' scratch), on the device or on the host with the
// dense copy the output is written from. Over the ranks: each rank's box of both fields, and
// the 64 MiB buffer its part of the .npy files streams through, for every rank of this host.
template <class T>
void check_memory(const ApplyPlan& p) {
  const ApplyRun& r = p.run;
  const Memory mem = memory_of(p.device);
  const Extent n = p.n;
  const std::string what =
      "applying a stencil to the " + n.str() + " " + to_string(precision_of<T>) + " array";
  // --device cuda is advice only where a GPU can be used (a machine without one is never told
  // to), asked without starting CUDA for a CPU run.
  const std::string advice = mem == Memory::host && runtime::gpu_usable_for_advice()
                                 ? "use a smaller array or --device cuda"
                                 : "use a smaller array";
  if (!p.distributed) {
    const int ghost = one_process_ghost<T>(r, mem);
    const double field = double(Layout::make(n, ghost, sizeof(T)).bytes());
    const double dense = double(n.points()) * sizeof(T);
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
  const Extent box = dist::Subdomain::of(p.grid, n, job.rank()).local;
  const double field =
      double(Layout::make(box, std::max(r.stencil.radius(), 1), sizeof(T)).bytes());
  const double staging = double(64 << 20), ranks = job.local_size();
  const std::string each = job.local_size() == 1 ? ""
                                                 : " (each of this host's " +
                                                       std::to_string(job.local_size()) + " ranks)";
  if (mem == Memory::device) {
    require_device_memory(std::size_t(2 * field), what + ", rank " + std::to_string(job.rank()) +
                                                      "'s " + box.str() + " box");
    host::require_host_memory(ranks * staging, what, "a 64 MiB .npy buffer" + each, advice);
  } else {
    host::require_host_memory(ranks * (2 * field + staging), what,
                              "2 fields of a " + box.str() + " box with ghosts " +
                                  host::format_bytes(2 * field) + " and a 64 MiB .npy buffer" +
                                  each,
                              advice);
  }
}

// The result and its report: the run's figures, and --json's document with the time of
// every phase of the process (ms): process_start, device_start (cuda), input (read, onto the
// device on cuda), check_input, allocation (the output field), compute (the stencil passes,
// synchronised), check_result, output (the .npy written and synced), total.
ApplyResult finish(ApplyPlan& p, std::string where, int per_pass, bool root) {
  const ApplyRun& r = p.run;
  p.phases.total();
  ApplyResult res;
  res.where = std::move(where);
  res.n = p.n;
  res.precision = p.precision;
  res.steps = r.steps;
  res.per_pass = per_pass;
  res.compute_ms = p.phases.of("compute");
  res.gpts_per_step = double(p.n.points()) * r.steps / (res.compute_ms * 1e-3) / 1e9;
  res.root = root;
  res.report = {{"stencil", r.stencil.describe()},
                {"bc", r.bc.describe()},
                {"shape", {p.n.nx, p.n.ny, p.n.nz}},
                {"precision", to_string(p.precision)},
                {"device", res.where},
                {"steps", r.steps},
                {"update", describe(r.update)},
                {"steps_per_pass", per_pass},
                {"compute_s", res.compute_ms * 1e-3},
                {"gpts_per_step", res.gpts_per_step},
                {"output", r.out},
                {"timing_ms", p.phases.ms}};
  if (root && !r.json.empty()) write_report(r.json, res.report);
  return res;
}

// After "the input holds N non-finite values" when one is an inf: a float64 file read into an
// f32 run may be finite, its values beyond f32's range read as inf (a NaN is the file's own).
std::string narrowed(const ApplyPlan& p) {
  if (p.file_precision != Precision::f64 || p.precision != Precision::f32) return "";
  return " (read as f32 from a float64 file: values beyond f32's range, about 3.4e38, become "
         "inf; " +
         p.run.words.precision + " f64 keeps them)";
}

std::string refusal(const ApplyRun& r, const std::string& why) {
  return why + ". Nothing was written (" + r.words.allow_nonfinite + " writes it anyway)";
}
void warn(const ApplyRun& r, const std::string& why) {
  if (r.on_warning) r.on_warning(why + " (written: " + r.words.allow_nonfinite + ")");
}

// One process: on the GPU the array goes from the file onto the device and back through a
// bounded host buffer, and the finite checks run there; on the CPU it is a host field.
template <class T>
ApplyResult run_one(ApplyPlan& p) {
  const ApplyRun& r = p.run;
  Phases& phase = p.phases;
  const Memory mem = memory_of(p.device);
  const StepOptions update = one_process_update<T>(r, mem);
  const bool single = single_pass(r);
  Field<T> u = npy_read_field<T>(r.in, one_process_ghost<T>(r, mem), mem);
  phase.end("input");
  const FiniteReport<T> input = check_finite(u);
  phase.end("check_input");
  // The output (apply_steps' scratch) is made before the passes are timed: on a GPU its
  // allocation costs about two 512^3 steps, which are not the stencil's.
  Field<T> out(u.extent(), u.ghost(), mem);
  phase.end("allocation");
  if (single) {
    apply(r.stencil, u, out, r.bc);
    u = std::move(out);
  } else {
    apply_steps(r.stencil, u, out, r.bc, r.steps, update);
  }
  if (mem == Memory::device) device_synchronize();
  phase.end("compute");
  if (const FiniteReport<T> result = check_finite(u); !result.all_finite) {
    const bool inf_in = !input.all_finite && std::isinf(input.value);
    const std::string why =
        nonfinite_result(result, &input, p.n.points()) + (inf_in ? narrowed(p) : "");
    if (!r.allow_nonfinite) throw Error(refusal(r, why));
    warn(r, why);
  }
  phase.end("check_result");
  npy_write_field(r.out, u);
  phase.end("output");
  // The host has no fused passes: it takes one step per pass whatever fuse asks.
  const int per_pass = single || mem == Memory::host ? 1 : update.fuse;
  return finish(p, to_string(p.device), per_pass, true);
}

// The same on the job's ranks (mpirun -np N): each rank reads its box of the input, the
// halos travel between ranks (CUDA IPC or NCCL between GPUs), and the ranks write their rows
// of one file.
template <class T>
ApplyResult run_ranks(ApplyPlan& p) {
  const ApplyRun& r = p.run;
  Phases& phase = p.phases;
  const dist::Job& job = dist::Job::get();
  const bool single = single_pass(r);
  const int ghost = std::max(r.stencil.radius(), 1);
  const Memory mem = memory_of(p.device);
  if (mem == Memory::device) {
    dist::connect_gpus(p.grid, p.n);
    phase.end("communicators");
  }
  dist::DistField<T> in(p.n, p.grid, ghost, mem), out(p.n, p.grid, ghost, mem);
  phase.end("allocation");
  dist::read_npy(r.in, in);
  phase.end("input");
  const FiniteReport<T> in_check = check_finite(in.local());
  const long long bad_in = job.sum((long long)in_check.count);
  // Whether a rank's first non-finite input value is an inf (what narrowing makes).
  const bool inf_in = job.sum((long long)(!in_check.all_finite && std::isinf(in_check.value))) > 0;
  job.barrier();
  phase.end("check_input");
  // Steps: one pass a step after each exchange, the result in `in` (`out` the scratch).
  if (single)
    dist::apply(r.stencil, in, out, r.bc);
  else
    dist::apply_steps(r.stencil, in, out, r.bc, r.steps, r.update);
  dist::DistField<T>& result = single ? out : in;
  device_synchronize();
  job.barrier();
  phase.end("compute");
  const long long bad_out = job.sum((long long)check_finite(result.local()).count);
  if (bad_out > 0) {
    const std::string why =
        "the result holds " + std::to_string(bad_out) + " non-finite value" +
        (bad_out == 1 ? "" : "s") +
        (bad_in > 0 ? "; the input holds " + std::to_string(bad_in) + (inf_in ? narrowed(p) : "")
                    : "; the input is finite");
    // Every rank found the same: said once, every rank fails.
    if (!r.allow_nonfinite) throw dist::AgreedError(refusal(r, why));
    if (job.root()) warn(r, why);
  }
  phase.end("check_result");
  dist::write_npy(r.out, result);
  phase.end("output");
  const std::string where = std::string(to_string(p.device)) + " on " + std::to_string(job.size()) +
                            (job.size() == 1 ? " rank" : " ranks") + " (process grid " +
                            p.grid.str() + ")";
  // One rank's steps are apply_steps on its box, with the passes one process takes.
  const int per_pass = job.size() == 1 && mem == Memory::device && !single
                           ? (r.fuse > 0 ? r.fuse : auto_fuse<T>(r.stencil, mem))
                           : 1;
  return finish(p, where, per_pass, job.root());
}

}  // namespace

ApplyPlan plan_apply(const ApplyRun& r) {
  check_outputs({{r.words.out, r.out}, {r.words.json, r.json}});
  // The result may replace its input (in place); the report may not.
  const Output report[] = {{r.words.json, r.json}};
  const Input input[] = {{r.words.in, r.in}};
  check_not_inputs(report, input);
  const Device dev = resolve(r.device, r.words.device);
  const NpyInfo info = npy_inspect(r.in);
  if (info.shape.size() != 3)
    throw Error("input '" + r.in + "' has rank " + std::to_string(info.shape.size()) +
                ": strata apply needs a 3D array [z][y][x]");
  const Precision precision = r.precision.value_or(info.dtype);
  const Extent n = npy_extent(info, r.in);
  require_representable(r, precision);
  dist::Job& job = dist::Job::get();
  const int ghost = std::max(r.stencil.radius(), 1);
  const dist::ProcessGrid grid = r.grid.empty() ? dist::ProcessGrid::choose(n, job.size(), ghost)
                                                : dist::ProcessGrid::parse(r.grid, r.words.grid);
  grid.require_fits(n, job.size(), ghost, r.words.grid);
  // A grid asks for the distributed run, on one rank too (to compare it with one process).
  const bool distributed = job.size() > 1 || !r.grid.empty();
  if (distributed && io::check_output(r.out).kind == io::OutputTarget::Kind::stream)
    throw Error(
        r.words.out + " '" + r.out +
        "' is a pipe or device: the ranks of a distributed run write their parts of one file in "
        "parallel; give a file path");
  if (job.size() > 1 && r.fuse > 1)
    throw Error(r.words.fuse + " " + std::to_string(r.fuse) +
                ": over several ranks every step is one pass (the ghosts are exchanged between "
                "steps); fused passes take one process");
  bind_gpu(dev, distributed);
  ApplyPlan p{r, dev, precision, info.dtype, n, distributed, grid, Phases(r.start)};
  if (precision == Precision::f32)
    check_memory<float>(p);
  else
    check_memory<double>(p);
  if (dev == Device::cuda) p.phases.end("device_start");
  return p;
}

ApplyResult run_apply(ApplyPlan& p) {
  if (p.distributed)
    return p.precision == Precision::f32 ? run_ranks<float>(p) : run_ranks<double>(p);
  return p.precision == Precision::f32 ? run_one<float>(p) : run_one<double>(p);
}

}  // namespace strata::drivers

// strata poisson's run (drivers/poisson.hpp): one process, or the job's ranks each holding
// its box of f and u, decided once here.
#include "drivers/poisson.hpp"

#include <cmath>

#include "drivers/job.hpp"
#include "io/atomic_file.hpp"
#include "strata/dist_poisson.hpp"
#include "strata/error.hpp"
#include "base/host_memory.hpp"
#include "strata/npy.hpp"
#include "strata/reduce.hpp"
#include "strata/vector_ops.hpp"

namespace strata::drivers {

namespace {

Memory memory_of(Device d) { return d == Device::cuda ? Memory::device : Memory::host; }
bool generated(const PoissonRun& r) { return r.rhs == "manufactured" || r.rhs == "random"; }

// A right-hand side read from a file must be finite as the run's precision holds it: a solve of
// a NaN or an infinity (or a float64 value beyond f32's range in an f32 run) only fails later,
// as a diverged iteration. `found`: the report of this process's field, `count`: the job's.
template <class T>
std::string nonfinite_rhs(const PoissonRun& r, const FiniteReport<T>& found, long long count,
                          std::size_t points, bool distributed) {
  std::string what = distributed ? std::to_string(count) + " non-finite value" +
                                       (count == 1 ? "" : "s") + " of " + std::to_string(points)
                                 : describe(found, points);
  const char* why =
      sizeof(T) == 4 ? " (a float64 value beyond f32's range is inf in an f32 run)" : "";
  return r.words.rhs + " " + r.rhs + " holds " + what + " as " + to_string(precision_of<T>) + why +
         ": every value must be a finite number";
}

// The report as JSON, the same for one process and many ranks.
nlohmann::json report_json(const PoissonPlan& p, double h, const PoissonReport& rep) {
  const PoissonOptions& o = p.run.options;
  const Extent n = p.run.n;
  nlohmann::json j = {{"operator", to_string(o.op)},
                      {"bc", o.bc.describe()},
                      {"shape", {n.nx, n.ny, n.nz}},
                      {"h", h},
                      {"solver", to_string(o.method)},
                      {"smoother", to_string(o.smoother)},
                      {"pre", o.pre},
                      {"post", o.post},
                      {"precision", to_string(p.run.precision)},
                      {"device", to_string(p.device)},
                      {"converged", rep.converged},
                      {"iterations", rep.iterations},
                      {"direct", rep.direct},
                      {"restarts", rep.restarts},
                      {"rtol", rep.rtol},
                      {"atol", rep.atol},
                      {"rtol_default", rep.rtol_default},
                      {"at_floor", rep.at_floor},
                      {"rel_residual", rep.rel_residual},
                      {"residuals", rep.residuals},
                      {"iteration_ms", rep.iteration_ms},
                      {"convergence_factor", rep.convergence_factor},
                      {"setup_ms", rep.setup_ms},
                      {"solve_ms", rep.solve_ms},
                      {"iterations_per_s", rep.iterations_per_s},
                      {"gb_per_s", rep.gb_per_s},
                      {"message", rep.message},
                      {"warnings", rep.warnings},
                      {"commit", build_info().commit}};
  for (const auto& L : rep.levels) j["levels"].push_back({L.n.nx, L.n.ny, L.n.nz});
  // STRATA_POISSON_LEVELS=1: the cycle's parts in the order it runs them.
  for (const auto& [part, ms] : rep.level_ms) j["level_ms"].push_back({{"part", part}, {"ms", ms}});
  return j;
}

// What is solved where, for on_start.
std::string headline(const PoissonPlan& p, double h) {
  const PoissonOptions& o = p.run.options;
  const std::string problem =
      std::string(to_string(o.op)) + " " + o.bc.describe() + " " + p.run.n.str();
  const std::string method = std::string(to_string(o.method)) + ", " + to_string(p.run.precision) +
                             ", h = " + format_number(h);
  if (!p.distributed) return problem + " on " + to_string(p.device) + ", " + method;
  const int ranks = dist::Job::get().size();
  return problem + " on " + std::to_string(ranks) + " " + to_string(p.device) + " rank" +
         (ranks == 1 ? "" : "s") + " (process grid " + p.grid.str() + "), " + method;
}

// The solve's figures into the phases (its setup, solve and the rest of the solver's call).
void solved(Phases& phase, Clock::time_point t_solver, const PoissonReport& rep) {
  phase.mark = Clock::now();
  phase.ms["setup"] = rep.setup_ms;
  phase.ms["solve"] = rep.solve_ms;
  phase.ms["solver_other"] = Phases::since(t_solver, phase.mark) - rep.setup_ms - rep.solve_ms;
}

// The solution written, the report's timings (its own write is the last thing timed; the
// total runs from the start) and the JSON written where asked.
void finish(PoissonPlan& p, PoissonResult& res) {
  Phases& phase = p.phases;
  phase.end("output");
  phase.total();
  if (!res.root) return;
  res.json["timing_ms"] = phase.ms;
  if (!p.run.json.empty()) write_report(p.run.json, res.json);
}

// Whether `bytes` more fit in the current GPU's free memory.
bool device_holds(std::size_t bytes) {
  try {
    require_device_memory(bytes, "");
    return true;
  } catch (const Error&) {
    return false;
  }
}

// manufactured_error over the ranks: u against this box of u* (in u's memory), both shifted
// to zero global mean on Neumann and periodic grids, with the vector operations where the
// fields are (in T; the one-process error sums in double).
template <class T>
poisson::ErrorNorms box_error(const Boundary& bc, const dist::DistField<T>& u,
                              const Field<T>& exact, double exact_mean) {
  const dist::Job& job = dist::Job::get();
  const bool shift = bc.kind != BoundaryKind::dirichlet;
  const double mu = shift ? dist::sum(u) / double(u.global().points()) : 0.0,
               me = shift ? exact_mean : 0.0;
  const Extent n = exact.extent();
  const Memory m = exact.memory();
  Field<T> d(n, 1, m), e(n, 1, m);  // d = (u - mu) - e, e = u* - me
  copy_interior(u.local(), d);
  copy_interior(exact, e);
  if (shift) {
    Field<T> c(n, 1, m);
    fill(c, T(mu));
    axpy(T(-1), c, d);
    fill(c, T(me));
    axpy(T(-1), c, e);
  }
  axpy(T(-1), e, d);
  const double dn = norm2(d), en = norm2(e);
  return {job.max(double(max_abs(d))), std::sqrt(job.sum(dn * dn) / job.sum(en * en))};
}

// The problem is built, solved and measured where the solve runs: on the GPU no grid is
// made or read on the host (.npy files stream through a bounded buffer).
template <class T>
PoissonResult run_one(PoissonPlan& p) {
  const PoissonRun& r = p.run;
  Phases& phase = p.phases;
  const Extent n = r.n;
  const Memory mem = memory_of(p.device);
  const double h = r.options.h > 0 ? r.options.h : poisson_spacing(r.options.bc, n.nx);
  if (mem == Memory::device) {
    // f, u and about 10 grids of the solver's (levels, residuals, Krylov vectors); this
    // first call also starts the device.
    require_device_memory(12 * n.points() * sizeof(T), "the " + n.str() + " Poisson solve");
    phase.end("device_start");
  }
  Field<T> f, u(n, 1, mem);
  const bool manufactured = r.rhs == "manufactured";
  if (generated(r)) {
    f = Field<T>(n, 1, mem);
    phase.end("allocation");
    if (manufactured)
      poisson::manufactured<T>(r.options.bc, h, f, nullptr);
    else
      poisson::random_rhs(f, 12345);
  } else {
    phase.end("allocation");
    f = npy_read_field<T>(r.rhs, 1, mem);
    if (const FiniteReport<T> bad = check_finite(f); !bad.all_finite)
      throw Error(nonfinite_rhs(r, bad, (long long)bad.count, n.points(), false));
  }
  fill(u, T(r.options.bc.kind == BoundaryKind::dirichlet ? r.options.bc.value
                                                         : 0.0));  // a sensible start
  if (mem == Memory::device) device_synchronize();
  phase.end("input");

  PoissonOptions o = r.options;
  o.h = h;
  if (r.on_start) r.on_start(headline(p, h));
  const Clock::time_point t_solver = Clock::now();
  PoissonResult res;
  res.h = h;
  res.report = solve_poisson(o, f, u);
  solved(phase, t_solver, res.report);
  res.json = report_json(p, h, res.report);
  if (manufactured) {
    res.error = poisson::manufactured_error(o.bc, h, u);
    res.json["error_max"] = res.error->max_abs;
    res.json["error_rel_l2"] = res.error->rel_l2;
    phase.end("error");
  }
  if (!r.out.empty()) npy_write_field(r.out, u);
  finish(p, res);
  return res;
}

// The same over the job's ranks: each rank holds its box of f and u, rank 0 writes the
// report, the ranks write their rows of the solution.
template <class T>
PoissonResult run_ranks(PoissonPlan& p) {
  const PoissonRun& r = p.run;
  Phases& phase = p.phases;
  const Extent n = r.n;
  const dist::Job& job = dist::Job::get();
  const Memory mem = memory_of(p.device);
  const double h = r.options.h > 0 ? r.options.h : poisson_spacing(r.options.bc, n.nx);
  if (mem == Memory::device) {
    dist::connect_gpus(p.grid, n);
    phase.end("communicators");
  }
  dist::DistField<T> f(n, p.grid, 1, mem), u(n, p.grid, 1, mem);
  phase.end("allocation");
  const bool manufactured = r.rhs == "manufactured";
  Field<T> exact;  // manufactured: u* on this rank's box, beside u
  double exact_mean = 0;
  if (generated(r)) {
    // The generators fill a whole grid: every rank makes it and keeps its box. On its GPU
    // where the whole grid (and u*) fits beside the boxes (seconds faster than on the host
    // at 511^3), else on the host.
    const std::size_t whole_bytes = n.points() * sizeof(T) * (manufactured ? 2 : 1);
    const Memory gen = mem == Memory::device && device_holds(whole_bytes + (whole_bytes >> 3))
                           ? mem
                           : Memory::host;
    Field<T> whole(n, 1, gen), whole_exact;
    if (manufactured) {
      whole_exact = Field<T>(n, 1, gen);
      poisson::manufactured<T>(r.options.bc, h, whole, &whole_exact);
      exact_mean = sum(whole_exact) / double(n.points());
      exact = Field<T>(f.box().local, 1, mem);
      dist::take_box(whole_exact, f.box(), exact);
    } else {
      poisson::random_rhs(whole, 12345);
    }
    dist::take_box(whole, f.box(), f.local());
  } else {
    dist::read_npy(r.rhs, f);
    const FiniteReport<T> bad = check_finite(f.local());
    // Every rank finds the same sum: said once, every rank fails.
    if (const long long count = job.sum((long long)bad.count); count > 0)
      throw dist::AgreedError(nonfinite_rhs(r, bad, count, n.points(), true));
  }
  fill(u.local(), T(r.options.bc.kind == BoundaryKind::dirichlet ? r.options.bc.value : 0.0));
  device_synchronize();
  phase.end("input");

  PoissonResult res;
  res.root = job.root();
  res.h = h;
  PoissonOptions o = r.options;
  o.h = h;
  if (!res.root) o.on_iteration = nullptr, o.on_warning = nullptr;  // rank 0 speaks
  if (res.root && r.on_start) r.on_start(headline(p, h));
  const Clock::time_point t_solver = Clock::now();
  res.report = dist::solve_poisson(o, f, u);
  solved(phase, t_solver, res.report);
  if (res.root) res.json = report_json(p, h, res.report);
  if (manufactured) {
    res.error = box_error(o.bc, u, exact, exact_mean);
    if (res.root) {
      res.json["error_max"] = res.error->max_abs;
      res.json["error_rel_l2"] = res.error->rel_l2;
    }
    phase.end("error");
  }
  if (!r.out.empty()) dist::write_npy(r.out, u);
  if (res.root) {
    res.json["ranks"] = job.size(), res.json["process_grid"] = p.grid.str();
    if (mem == Memory::device)
      res.json["gpu_exchange"] = dist::transports().gpu;  // the one it chose
  }
  finish(p, res);
  return res;
}

}  // namespace

PoissonPlan plan_poisson(const PoissonRun& run) {
  PoissonRun r = run;
  check_outputs({{r.words.out, r.out}, {r.words.json, r.json}});  // before the solve, not after it
  // The solution may replace a right-hand side file (in place); the report may not.
  const Output report[] = {{r.words.json, r.json}};
  const Input input[] = {{r.words.rhs, generated(r) ? std::string() : r.rhs}};
  check_not_inputs(report, input);
  const PoissonOptions& o = r.options;
  if (o.mixed_precision && (r.precision != Precision::f64 || o.method != PoissonMethod::mgcg))
    throw Error(r.words.mixed + " needs " + r.words.solver + " mgcg " + r.words.precision + " f64");
  const Device dev = resolve(r.device, r.words.device);
  if (!generated(r)) {
    const Extent fe = npy_extent(npy_inspect(r.rhs), r.rhs);  // checks the file before any work
    if (r.n.points() == 0) r.n = fe;
    if (!(fe == r.n))
      throw Error(r.words.rhs + " " + r.rhs + " is " + fe.str() + " but the grid is " + r.n.str());
  }
  if (r.n.points() == 0) throw Error("give the grid with --n N or --shape NX,NY,NZ");
  const Extent n = r.n;
  dist::Job& job = dist::Job::get();
  const int ranks = job.size();
  // A grid asks for the distributed solver, on one rank too.
  const bool distributed = ranks > 1 || !r.grid.empty();
  // On the CPU: the fields (f, u, with ghosts) and about 14 grids of the solver's (its
  // levels, residuals, Krylov vectors), checked before any. Distributed, each rank holds its
  // share and, for a generated right-hand side, the whole grid twice while it is made. A GPU
  // run holds no grid on the host (its device memory is checked when it starts).
  const double grid_bytes = double(n.points()) * double(bytes_of(r.precision));
  if (dev == Device::cpu)
    host::require_host_memory(16 * grid_bytes / ranks + (distributed ? 2 * grid_bytes : 0.0),
                              "the " + n.str() + " Poisson solve", "", "use a smaller grid");
  const dist::ProcessGrid pg = r.grid.empty() ? dist::ProcessGrid::choose(n, ranks, 1)
                                              : dist::ProcessGrid::parse(r.grid, r.words.grid);
  if (distributed) {
    if (const std::string why = dist::poisson_unsupported(o, pg, n); !why.empty()) throw Error(why);
    if (!r.out.empty() && io::check_output(r.out).kind == io::OutputTarget::Kind::stream)
      throw Error(
          r.words.out + " '" + r.out + "' is a pipe or device: the distributed solver's ranks (" +
          std::to_string(ranks) + ") write their parts of one file in parallel; give a file path");
  }
  bind_gpu(dev, distributed);
  PoissonPlan p{r, dev, distributed, pg, Phases(r.start)};
  // Each rank's box of f, u and about 10 grids of the solver's, on its GPU, before the ranks
  // start (one process checks the whole grid as it starts the device, in run_one).
  if (distributed && dev == Device::cuda) {
    require_device_memory(
        12 * dist::Subdomain::of(pg, n, job.rank()).local.points() * bytes_of(r.precision),
        "rank " + std::to_string(job.rank()) + "'s box of the " + n.str() + " Poisson solve");
    p.phases.end("device_start");
  }
  check_poisson_options(o, n, memory_of(dev));
  return p;
}

PoissonResult run_poisson(PoissonPlan& p) {
  if (p.distributed)
    return p.run.precision == Precision::f32 ? run_ranks<float>(p) : run_ranks<double>(p);
  return p.run.precision == Precision::f32 ? run_one<float>(p) : run_one<double>(p);
}

}  // namespace strata::drivers

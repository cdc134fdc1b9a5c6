// strata poisson: solve -Lap(u) = f on a box with multigrid, CG or Jacobi, printing the
// residual as it goes and a report (convergence factor, setup and solve time, cycles/s,
// bandwidth; with a manufactured right-hand side also the discretisation error).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <string>

#include <nlohmann/json.hpp>

#include "apps/strata/commands.hpp"
#include "apps/strata/options.hpp"
#include "apps/strata/report.hpp"
#include "strata/host_memory.hpp"
#include "strata/manufactured.hpp"
#include "strata/device.hpp"
#include "strata/dist.hpp"
#include "strata/dist_poisson.hpp"
#include "strata/npy.hpp"
#include "strata/poisson.hpp"
#include "strata/reduce.hpp"
#include "strata/vector_ops.hpp"

namespace strata::cli {

namespace {

struct PoissonArgs {
  std::string shape;
  int n = 0;
  std::string op = "fd7", bc = "dirichlet", solver = "mg", smoother = "chebyshev";
  int pre = 2, post = 2, max_iter = 50;
  std::string rtol = "auto";
  double atol = 0, h = 0;
  std::string precision = "f32", rhs = "manufactured", out, json, device, grid;
  long long gather_below = 0;
  bool mixed = false, no_graphs = false, quiet = false, verbose = false;
};

// The report's lines and its JSON, the same for one process and many ranks (printed by
// rank 0 alone).
template <class T>
nlohmann::json report(const PoissonOptions& o, Extent n, double h, Device dev, const PoissonReport& rep) {
  std::printf("levels (x,y,z):");
  for (const auto& L : rep.levels) std::printf(" %s", L.n.xyz().c_str());
  std::printf("\n%s\n", rep.message.c_str());
  if (rep.direct)
    std::printf("direct solve, relative residual %.3e (recomputed)\n", rep.rel_residual);
  else
    std::printf("iterations %d, final relative residual %.3e (recomputed), convergence factor %.4f\n",
                rep.iterations, rep.rel_residual, rep.convergence_factor);
  std::printf("setup %.2f ms, solve %.2f ms, %.1f iterations/s, ~%.0f GB/s\n", rep.setup_ms, rep.solve_ms,
              rep.iterations_per_s, rep.gb_per_s);
  nlohmann::json j = {{"operator", to_string(o.op)},      {"bc", o.bc.describe()},
                      {"shape", {n.nx, n.ny, n.nz}},      {"h", h},
                      {"solver", to_string(o.method)},    {"smoother", to_string(o.smoother)},
                      {"pre", o.pre},                     {"post", o.post},
                      {"precision", to_string(precision_of<T>)}, {"device", to_string(dev)},
                      {"converged", rep.converged},       {"iterations", rep.iterations},
                      {"direct", rep.direct},             {"restarts", rep.restarts},
                      {"rtol", rep.rtol},                 {"atol", rep.atol},
                      {"rtol_default", rep.rtol_default}, {"at_floor", rep.at_floor},
                      {"rel_residual", rep.rel_residual}, {"residuals", rep.residuals},
                      {"iteration_ms", rep.iteration_ms},
                      {"convergence_factor", rep.convergence_factor},
                      {"setup_ms", rep.setup_ms},         {"solve_ms", rep.solve_ms},
                      {"iterations_per_s", rep.iterations_per_s}, {"gb_per_s", rep.gb_per_s},
                      {"message", rep.message},           {"warnings", rep.warnings},
                      {"commit", build_info().commit}};
  for (const auto& L : rep.levels) j["levels"].push_back({L.n.nx, L.n.ny, L.n.nz});
  return j;
}

// The solve's options with the per-iteration lines (printed where `print`, unless --quiet)
// and its warnings (printed where `print`).
PoissonOptions with_progress(const PoissonArgs& a, const PoissonOptions& opt, double h, bool print) {
  PoissonOptions o = opt;
  o.h = h;
  if (print)
    o.on_warning = [](const std::string& w) {
      std::fprintf(stderr, "strata poisson: warning: %s\n", w.c_str());
    };
  if (print && !a.quiet)
    o.on_iteration = [](const PoissonIteration& it) {
      std::printf("  iteration %3d  relative residual %.3e  factor %.3f  %8.2f ms\n", it.iteration, it.rel_residual,
                  it.factor, it.ms);
      std::fflush(stdout);
    };
  return o;
}

// The first line's parts: the problem, and the method.
std::string problem(const PoissonOptions& o, Extent n) {
  return std::string(to_string(o.op)) + " " + o.bc.describe() + " " + n.str();
}
template <class T>
std::string describe(const PoissonOptions& o, double h) {
  return std::string(to_string(o.method)) + ", " + to_string(precision_of<T>) +
         ", h = " + format_number(h);
}

void solved(Phases& phase, Clock::time_point t_solver, const PoissonReport& rep) {
  phase.mark = Clock::now();
  phase.ms["setup"] = rep.setup_ms;
  phase.ms["solve"] = rep.solve_ms;
  phase.ms["solver_other"] =
      std::chrono::duration<double, std::milli>(phase.mark - t_solver).count() - rep.setup_ms - rep.solve_ms;
}

void error_lines(nlohmann::json& j, const poisson::ErrorNorms& e, Phases& phase) {
  std::printf("discretisation error vs the manufactured solution: max %.3e, relative L2 %.3e\n", e.max_abs, e.rel_l2);
  j["error_max"] = e.max_abs;
  j["error_rel_l2"] = e.rel_l2;
  phase.end("error");
}

// The timings, --verbose and --json (where `root`), and the exit code.
void finish(const PoissonArgs& a, Phases& phase, const PoissonReport& rep, nlohmann::json& j, bool root) {
  phase.end("output");
  // The report's own write is the last thing timed; the total runs from the process start.
  phase.total();
  j["timing_ms"] = phase.ms;
  if (root && a.verbose) {
    std::printf("time (ms):");
    for (const auto& [k, v] : phase.ms.items()) std::printf(" %s %.1f", k.c_str(), v.template get<double>());
    std::printf("\n");
  }
  if (root && !a.json.empty()) write_report(a.json, j);
  if (!rep.converged) set_exit_code(3);
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
poisson::ErrorNorms box_error(const Boundary& bc, const dist::DistField<T>& u, const Field<T>& exact, double exact_mean) {
  const dist::Job& job = dist::Job::get();
  const bool shift = bc.kind != BoundaryKind::dirichlet;
  const double mu = shift ? dist::sum(u) / double(u.global().points()) : 0.0, me = shift ? exact_mean : 0.0;
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
void run(const PoissonArgs& a, Extent n, const PoissonOptions& opt, Device dev, Phases& phase) {
  const Memory mem = dev == Device::cuda ? Memory::device : Memory::host;
  const double h = opt.h > 0 ? opt.h : poisson_spacing(opt.bc, n.nx);
  if (mem == Memory::device) {
    // f, u and about 10 grids of the solver's (levels, residuals, Krylov vectors); this
    // first call also starts the device.
    require_device_memory(12 * n.points() * sizeof(T), "the " + n.str() + " Poisson solve");
    phase.end("device_start");
  }
  Field<T> f, u(n, 1, mem);
  const bool manufactured = a.rhs == "manufactured";
  if (a.rhs == "manufactured" || a.rhs == "random") {
    f = Field<T>(n, 1, mem);
    phase.end("allocation");
    if (manufactured) poisson::manufactured<T>(opt.bc, h, f, nullptr);
    else poisson::random_rhs(f, 12345);
  } else {
    phase.end("allocation");
    f = npy_read_field<T>(a.rhs, 1, mem);
  }
  fill(u, T(opt.bc.kind == BoundaryKind::dirichlet ? opt.bc.value : 0.0));  // a sensible start
  if (mem == Memory::device) device_synchronize();
  phase.end("input");

  const PoissonOptions o = with_progress(a, opt, h, true);
  std::printf("strata poisson: %s on %s, %s\n", problem(o, n).c_str(), to_string(dev), describe<T>(o, h).c_str());
  const Clock::time_point t_solver = Clock::now();
  const PoissonReport rep = solve_poisson(o, f, u);
  solved(phase, t_solver, rep);

  nlohmann::json j = report<T>(o, n, h, dev, rep);
  if (manufactured) error_lines(j, poisson::manufactured_error(o.bc, h, u), phase);
  if (!a.out.empty()) npy_write_field(a.out, u);
  finish(a, phase, rep, j, true);
}

// The same over the job's ranks (mpirun -np N strata poisson ...): each rank holds its box
// of f and u, rank 0 prints and writes the report, the ranks write their rows of --out.
template <class T>
void run_distributed(const PoissonArgs& a, Extent n, const PoissonOptions& opt, Device dev,
                     const dist::ProcessGrid& grid, Phases& phase) {
  const dist::Job& job = dist::Job::get();
  const Memory mem = dev == Device::cuda ? Memory::device : Memory::host;
  const double h = opt.h > 0 ? opt.h : poisson_spacing(opt.bc, n.nx);
  if (mem == Memory::device) {
    dist::connect_gpus(grid, n);
    phase.end("communicators");
  }
  dist::DistField<T> f(n, grid, 1, mem), u(n, grid, 1, mem);
  phase.end("allocation");
  const bool manufactured = a.rhs == "manufactured";
  Field<T> exact;  // manufactured: u* on this rank's box, beside u
  double exact_mean = 0;
  if (manufactured || a.rhs == "random") {
    // The generators fill a whole grid: every rank makes it and keeps its box. On its GPU
    // where the whole grid (and u*) fits beside the boxes (seconds faster than on the host
    // at 511^3), else on the host.
    const std::size_t whole_bytes = n.points() * sizeof(T) * (manufactured ? 2 : 1);
    const Memory gen = mem == Memory::device && device_holds(whole_bytes + (whole_bytes >> 3)) ? mem : Memory::host;
    Field<T> whole(n, 1, gen), whole_exact;
    if (manufactured) {
      whole_exact = Field<T>(n, 1, gen);
      poisson::manufactured<T>(opt.bc, h, whole, &whole_exact);
      exact_mean = sum(whole_exact) / double(n.points());
      exact = Field<T>(f.box().local, 1, mem);
      dist::take_box(whole_exact, f.box(), exact);
    } else {
      poisson::random_rhs(whole, 12345);
    }
    dist::take_box(whole, f.box(), f.local());
  } else {
    dist::read_npy(a.rhs, f);
  }
  fill(u.local(), T(opt.bc.kind == BoundaryKind::dirichlet ? opt.bc.value : 0.0));
  device_synchronize();
  phase.end("input");

  const bool root = job.root();
  const PoissonOptions o = with_progress(a, opt, h, root);
  if (root)
    std::printf("strata poisson: %s on %d %s rank%s (process grid %s), %s\n", problem(o, n).c_str(), job.size(),
                to_string(dev), job.size() == 1 ? "" : "s", grid.str().c_str(), describe<T>(o, h).c_str());
  const Clock::time_point t_solver = Clock::now();
  const PoissonReport rep = dist::solve_poisson(o, f, u);
  solved(phase, t_solver, rep);

  nlohmann::json j = root ? report<T>(o, n, h, dev, rep) : nlohmann::json{};
  if (manufactured) {
    const poisson::ErrorNorms e = box_error(o.bc, u, exact, exact_mean);
    if (root) error_lines(j, e, phase);
  }
  if (!a.out.empty()) dist::write_npy(a.out, u);
  if (root) j["ranks"] = job.size(), j["process_grid"] = grid.str();
  finish(a, phase, rep, j, root);
}

}  // namespace

void add_poisson(CLI::App& app) {
  auto a = std::make_shared<PoissonArgs>();
  auto* cmd = app.add_subcommand(
      "poisson",
      "Solve -Lap(u) = f on a box. The operators (fd7, fe27) are A = -Lap, positive definite: "
      "the opposite sign of strata apply's default stencils (+Lap). Neumann and periodic grids "
      "need a zero-mean f: a mean is removed with a warning, a constant f refused. Shapes count "
      "the unknowns: Dirichlet grids are vertex-centred "
      "with the boundary planes outside the shape (a 257^3 grid with its boundary is --n 255), "
      "Neumann grids cell-centred, periodic grids one period. Exit code 3 when the tolerance was "
      "not reached (the message says why: max-iter, divergence, the rounding floor).");
  cmd->add_option("--shape", a->shape, "NX,NY,NZ unknowns");
  cmd->add_option("--n", a->n, "N unknowns per axis (a cube)")->check(whole_number_in(1, 1 << 14));
  cmd->add_option("--operator", a->op, "fd7 (7-point finite differences) | fe27 (trilinear finite elements)")->capture_default_str();
  cmd->add_option("--bc", a->bc, "dirichlet[:VALUE] | neumann | periodic")->capture_default_str();
  cmd->add_option("--solver", a->solver,
                  "mg | fmg | mgcg | cg | jacobi | fft (periodic fd7: cuFFT on the GPU, KissFFT "
                  "on the CPU where built with it: strata info)")
      ->capture_default_str();
  cmd->add_option("--smoother", a->smoother, "chebyshev | jacobi")->capture_default_str();
  cmd->add_option("--pre", a->pre, "smoothing steps before the coarse correction")->capture_default_str()
      ->check(whole_number_in(0, 32));
  cmd->add_option("--post", a->post, "smoothing steps after it")->capture_default_str()->check(whole_number_in(0, 32));
  cmd->add_option("--rtol", a->rtol,
                  "converged when the solution's ||f - A u||, recomputed, is <= max(rtol ||f||, atol); auto: 1e-6, "
                  "or the rounding floor of the precision where that is higher (f32 on all but small grids): the "
                  "run converges when the residual stops falling below eps * sum|A| * ||u|| / ||f||")
      ->capture_default_str()
      ->check(number_in(0, 1, false, false, true, "auto"));
  cmd->add_option("--atol", a->atol, "absolute tolerance on the residual norm (0: none)")->capture_default_str()
      ->check(number_in(0, 1e300));
  cmd->add_option("--max-iter", a->max_iter, "V-cycles, CG iterations or Jacobi sweeps")->capture_default_str()
      ->check(whole_number_in(1, 1e7));
  // 1/h^2 stays within [1e-30, 1e30] on every multigrid level: representable in f32 with room.
  cmd->add_option("--spacing", a->h, "grid spacing h (default: the x extent of the box is 1)")
      ->check(number_in(1e-15, 1e15));
  cmd->add_option("--precision", a->precision, "f32 | f64")->capture_default_str();
  cmd->add_option("--rhs", a->rhs, "manufactured | random | FILE.npy (3D, [z][y][x])")->capture_default_str();
  cmd->add_option("--out", a->out, "write the solution u as .npy");
  cmd->add_option("--json", a->json, "write the report as JSON");
  cmd->add_option("--device", a->device, "cpu | cuda (default: cuda when a GPU is visible)");
  cmd->add_option("--grid", a->grid,
                  "process grid PXxPYxPZ for a run over several ranks (mpirun -np N strata poisson ...; solvers "
                  "mg, cg, mgcg, operator fd7); default: the grid of N boxes with the least halo surface. Given on "
                  "one rank (1x1x1), it runs the distributed solver there, to compare with the one-process one");
  cmd->add_option("--gather-below", a->gather_below,
                  "over several ranks: multigrid levels of fewer points are gathered whole to every rank and cycled there "
                  "(0: the default, " + std::to_string(dist::kPoissonGatherBelow) + ")")
      ->check(number_in(0, 1e15));
  cmd->add_flag("--mixed", a->mixed, "mgcg in f64 with an f32 multigrid preconditioner");
  cmd->add_flag("--no-graphs", a->no_graphs, "launch every kernel instead of replaying CUDA graphs");
  cmd->add_flag("--quiet", a->quiet, "no per-iteration lines");
  cmd->add_flag("--verbose", a->verbose,
                "print where the wall time went: process start, device start, allocation, input, setup, solve, "
                "error, output, total (also in the JSON report as timing_ms)");
  cmd->callback([a] {
    check_outputs({{"--out", a->out}, {"--json", a->json}});  // before the solve, not after it
    PoissonOptions o;
    o.op = parse_poisson_operator(a->op);
    o.bc = Boundary::parse(a->bc);
    o.method = parse_poisson_method(a->solver);
    o.smoother = parse_smoother(a->smoother);
    o.pre = a->pre;
    o.post = a->post;
    if (a->rtol != "auto") o.rtol = parse_numbers(a->rtol, "--rtol")[0];  // checked: a number in [0, 1)
    o.atol = a->atol;
    o.max_iter = a->max_iter;
    o.h = a->h;
    o.mixed_precision = a->mixed;
    o.use_graphs = !a->no_graphs;
    o.gather_below = a->gather_below;
    const Precision p = parse_precision(a->precision);
    if (a->mixed && (p != Precision::f64 || o.method != PoissonMethod::mgcg))
      throw Error("--mixed needs --solver mgcg --precision f64");
    const Device dev = resolve_device(a->device);
    if (a->rhs != "manufactured" && a->rhs != "random") {
      const Extent fe = npy_extent(npy_inspect(a->rhs), a->rhs);  // checks the file before any work
      if (a->shape.empty() && a->n == 0) a->shape = std::to_string(fe.nx) + "," + std::to_string(fe.ny) + "," + std::to_string(fe.nz);
    }
    if (a->shape.empty() && a->n == 0) throw Error("give the grid with --n N or --shape NX,NY,NZ");
    if (!a->shape.empty() && a->n != 0) throw Error("give either --n or --shape, not both");
    const Extent n = a->n ? Extent{a->n, a->n, a->n} : parse_shape(a->shape);
    if (a->rhs != "manufactured" && a->rhs != "random") {
      const Extent fe = npy_extent(npy_inspect(a->rhs), a->rhs);
      if (!(fe == n)) throw Error("--rhs " + a->rhs + " is " + fe.str() + " but the grid is " + n.str());
    }
    // On the CPU: the app's fields (f, u, with ghosts) and about 14 grids of the solver's
    // (its levels, residuals, Krylov vectors), checked before any. A GPU run holds no grid
    // on the host (its device memory is checked when it starts).
    dist::Job& job = dist::Job::get();
    const int ranks = job.size();
    // A --grid asks for the distributed solver, on one rank too.
    const bool distributed = ranks > 1 || !a->grid.empty();
    const double grid = double(n.points()) * double(bytes_of(p));
    // Distributed, each rank holds its share and, for a generated right-hand side, the whole
    // grid twice while it is made.
    if (dev == Device::cpu)
      host::require_host_memory(16 * grid / ranks + (distributed ? 2 * grid : 0.0), "the " + n.str() + " Poisson solve",
                                "", "use a smaller grid");
    const dist::ProcessGrid pg =
        a->grid.empty() ? dist::ProcessGrid::choose(n, ranks, 1) : dist::ProcessGrid::parse(a->grid);
    if (distributed) {
      if (const std::string why = dist::poisson_unsupported(o, pg, n); !why.empty()) throw Error(why);
      if (!a->out.empty() && io::check_output(a->out).kind == io::OutputTarget::Kind::stream)
        throw Error("--out '" + a->out + "' is a pipe or device: the distributed solver's ranks (" +
                    std::to_string(ranks) + ") write their parts of one file in parallel; give a file path");
      if (dev == Device::cuda && ranks > 1) job.bind_gpu();
    }
    Phases phase;
    // Each rank's box of f, u and about 10 grids of the solver's, on its GPU, before the ranks
    // start (one process checks the whole grid as it starts the device, in run).
    if (distributed && dev == Device::cuda) {
      require_device_memory(12 * dist::Subdomain::of(pg, n, job.rank()).local.points() * bytes_of(p),
                            "rank " + std::to_string(job.rank()) + "'s box of the " + n.str() + " Poisson solve");
      phase.end("device_start");
    }
    check_poisson_options(o, n, dev == Device::cuda ? Memory::device : Memory::host);
    job.begin();  // every rank validated: from here a failure is one rank's own
    if (distributed) {
      if (p == Precision::f32) run_distributed<float>(*a, n, o, dev, pg, phase);
      else run_distributed<double>(*a, n, o, dev, pg, phase);
    } else if (p == Precision::f32) {
      run<float>(*a, n, o, dev, phase);
    } else {
      run<double>(*a, n, o, dev, phase);
    }
  });
}

}  // namespace strata::cli

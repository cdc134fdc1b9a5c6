// strata poisson: solve -Lap(u) = f on a box with multigrid, CG or Jacobi, printing the
// residual as it goes and a report (convergence factor, setup and solve time, cycles/s,
// bandwidth; with a manufactured right-hand side also the discretisation error). The CLI
// parses and prints; the run is drivers/poisson.hpp's, which Python's strata.run.poisson
// shares.
#include <cstdio>
#include <string>

#include "apps/strata/commands.hpp"
#include "apps/strata/options.hpp"
#include "drivers/poisson.hpp"
#include "strata/dist.hpp"
#include "strata/dist_poisson.hpp"

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

// The report's lines (rank 0's under mpirun), --verbose's timings, and the exit code.
void print(const PoissonArgs& a, const drivers::PoissonResult& r, const drivers::Phases& phase) {
  if (!r.root) return;
  const PoissonReport& rep = r.report;
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
  if (r.error)
    std::printf("discretisation error vs the manufactured solution: max %.3e, relative L2 %.3e\n",
                r.error->max_abs, r.error->rel_l2);
  if (a.verbose) {
    std::printf("time (ms):");
    for (const auto& [k, v] : phase.ms.items()) std::printf(" %s %.1f", k.c_str(), v.template get<double>());
    std::printf("\n");
  }
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
  cmd->add_option("--n", a->n, "N unknowns per axis (a cube)")->transform(whole_number_in(1, 1 << 14));
  cmd->add_option("--operator", a->op, "fd7 (7-point finite differences) | fe27 (trilinear finite elements)")->capture_default_str();
  cmd->add_option("--bc", a->bc, "dirichlet[:VALUE] | neumann | periodic")->capture_default_str();
  cmd->add_option("--solver", a->solver,
                  "mg | fmg | mgcg | cg | jacobi | fft (periodic fd7: cuFFT on the GPU, KissFFT "
                  "on the CPU where built with it: strata info)")
      ->capture_default_str();
  cmd->add_option("--smoother", a->smoother, "chebyshev | jacobi")->capture_default_str();
  cmd->add_option("--pre", a->pre, "smoothing steps before the coarse correction")->capture_default_str()
      ->transform(whole_number_in(0, 32));
  cmd->add_option("--post", a->post, "smoothing steps after it")->capture_default_str()->transform(whole_number_in(0, 32));
  cmd->add_option("--rtol", a->rtol,
                  "converged when the solution's ||f - A u||, recomputed, is <= max(rtol ||f||, atol); auto: 1e-6, "
                  "or the rounding floor of the precision where that is higher (f32 on all but small grids): the "
                  "run converges when the residual stops falling below eps * sum|A| * ||u|| / ||f||")
      ->capture_default_str()
      ->check(number_in(0, 1, false, false, true, "auto"));
  cmd->add_option("--atol", a->atol, "absolute tolerance on the residual norm (0: none)")->capture_default_str()
      ->check(number_in(0, 1e300));
  cmd->add_option("--max-iter", a->max_iter, "V-cycles, CG iterations or Jacobi sweeps")->capture_default_str()
      ->transform(whole_number_in(1, 1e7));
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
                  "mg, cg, mgcg, operator fd7); default: the grid of N boxes with the least weighted halo surface (x cuts 4, y 2.5, z 1). Given on "
                  "one rank (1x1x1), it runs the distributed solver there, to compare with the one-process one");
  cmd->add_option("--gather-below", a->gather_below,
                  "over several ranks: multigrid levels of fewer points are gathered whole to every rank and cycled there "
                  "(0: the default, " + std::to_string(dist::kPoissonGatherBelowGpu) + " on GPUs, " +
                      std::to_string(dist::kPoissonGatherBelowCpu) + " on CPUs)")
      ->check(number_in(0, 1e15));
  cmd->add_flag("--mixed", a->mixed, "mgcg in f64 with an f32 multigrid preconditioner");
  cmd->add_flag("--no-graphs", a->no_graphs, "launch every kernel instead of replaying CUDA graphs");
  cmd->add_flag("--quiet", a->quiet, "no per-iteration lines");
  cmd->add_flag("--verbose", a->verbose,
                "print where the wall time went: process start, device start, allocation, input, setup, solve, "
                "error, output, total (also in the JSON report as timing_ms)");
  cmd->callback([a] {
    drivers::PoissonRun run;
    PoissonOptions& o = run.options;
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
    o.on_warning = [](const std::string& w) { std::fprintf(stderr, "strata poisson: warning: %s\n", w.c_str()); };
    if (!a->quiet)
      o.on_iteration = [](const PoissonIteration& it) {
        std::printf("  iteration %3d  relative residual %.3e  factor %.3f  %8.2f ms\n", it.iteration,
                    it.rel_residual, it.factor, it.ms);
        std::fflush(stdout);
      };
    run.precision = parse_precision(a->precision);
    run.device = resolve_device(a->device);
    if (!a->shape.empty() && a->n != 0) throw Error("give either --n or --shape, not both");
    if (a->n) run.n = {a->n, a->n, a->n};
    else if (!a->shape.empty()) run.n = parse_shape(a->shape);
    run.rhs = a->rhs;
    run.out = a->out;
    run.json = a->json;
    run.grid = a->grid;
    run.start = process_start();
    run.on_start = [](const std::string& what) { std::printf("strata poisson: %s\n", what.c_str()); };
    drivers::PoissonPlan plan = drivers::plan_poisson(run);
    dist::Job::get().begin();  // every rank validated: from here a failure is one rank's own
    const drivers::PoissonResult result = drivers::run_poisson(plan);
    print(*a, result, plan.phases);
    if (!result.report.converged) set_exit_code(3);
  });
}

}  // namespace strata::cli

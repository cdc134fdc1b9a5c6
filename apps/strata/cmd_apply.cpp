// strata apply: one stencil pass over a .npy array with a boundary condition, on the GPU
// when there is one. The CLI parses the options and prints; the run (validation, one
// process or the job's ranks, the atomic output, the non-finite rule, the report) is
// drivers/apply.hpp's, which Python's strata.run.apply shares.
#include <cstdio>

#include "apps/strata/commands.hpp"
#include "apps/strata/options.hpp"
#include "drivers/apply.hpp"
#include "strata/dist.hpp"

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

Stencil make_stencil(const ApplyArgs& a) {
  if (a.coeffs.empty()) return Stencil::named(a.stencil, a.radius, std::nullopt, a.spacing);
  const std::vector<double> c = parse_numbers(a.coeffs, "--coeffs");
  return Stencil::named(a.stencil, a.radius, c, a.spacing);
}

// The run's line on stdout (rank 0's under mpirun).
void print(const drivers::ApplyRun& run, const drivers::ApplyResult& r, const drivers::Phases& phase) {
  if (!r.root) return;
  const bool single = r.steps == 1 && run.update.update == StepUpdate::repeat;
  const std::string steps = single ? ""
                                   : ", " + std::to_string(r.steps) + " steps of " + drivers::describe(run.update) +
                                         (r.per_pass > 1 ? ", up to " + std::to_string(r.per_pass) + " per pass" : "");
  std::printf("strata apply: %s, %s boundary%s, %s %s on %s: %.2f ms (%.1f Gpts/s per step); "
              "read %.0f ms, write %.0f ms, whole process %.0f ms -> %s\n",
              run.stencil.describe().c_str(), run.bc.describe().c_str(), steps.c_str(), r.n.str().c_str(),
              to_string(r.precision), r.where.c_str(), r.compute_ms, r.gpts_per_step, phase.of("input"),
              phase.of("output"), phase.of("total"), run.out.c_str());
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
  cmd->add_option("--stencil", a->stencil, "7pt | star (with --radius) | star1..star4 | sym27 | box27")->capture_default_str();
  cmd->add_option("--radius", a->radius, "star radius 1..4 (7pt, sym27 and box27 have radius 1)")
      ->transform(whole_number_in(1, Stencil::kMaxRadius));
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
                  "default: the grid of N boxes with the least weighted halo surface (x cuts 4, y 2.5, z 1). Given on one rank (1x1x1), it runs "
                  "the distributed path there, to compare with the one-process run");
  cmd->add_option("--steps", a->steps,
                  "apply the stencil this many times, refilling the ghosts from --bc before each step")
      ->capture_default_str()->transform(whole_number_in(0, 1e9));
  cmd->add_option("--update", a->update,
                  "what a step does: repeat (u <- A u) or relax:C (u <- u + C (A u): the explicit heat "
                  "step with C = kappa dt, or weighted Jacobi)")
      ->capture_default_str();
  cmd->add_option("--fuse", a->fuse,
                  "steps per trip through memory on the GPU (temporal blocking, 2..4 steps per pass for stars of "
                  "radius 1..4, 2 for sym27; box27 takes single steps); 1: one pass per step; 0: strata's measured "
                  "choice (H100: 7pt 3; radius-2 star 2 in f32; else 1; docs/performance.md). "
                  "The same result bits whatever the value. Under mpirun every step is one pass (0 or 1)")
      ->capture_default_str()->transform(whole_number_in(0, 4));
  cmd->add_option("--json", a->json,
                  "write a JSON report: the run, its rate, and the time of every phase of the process (ms)");
  cmd->add_flag("--allow-nonfinite", a->allow_nonfinite,
                "write the result even when it holds NaN or Inf (otherwise an error, and nothing is written)");
  cmd->callback([a] {
    // Everything cheap is validated first (plan_apply): nothing is read or allocated on bad input.
    drivers::ApplyRun run;
    run.stencil = make_stencil(*a);
    run.bc = Boundary::parse(a->bc);
    run.update = drivers::parse_update(a->update);
    run.in = a->in;
    run.out = a->out;
    run.json = a->json;
    if (!a->precision.empty()) run.precision = parse_precision(a->precision);
    run.device = resolve_device(a->device);
    run.grid = a->grid;
    run.steps = a->steps;
    run.fuse = a->fuse;
    run.allow_nonfinite = a->allow_nonfinite;
    run.start = process_start();
    run.on_warning = [](const std::string& w) { std::fprintf(stderr, "strata apply: warning: %s\n", w.c_str()); };
    drivers::ApplyPlan plan = drivers::plan_apply(run);
    dist::Job::get().begin();  // every rank validated: from here a failure is one rank's own
    const drivers::ApplyResult result = drivers::run_apply(plan);
    print(run, result, plan.phases);
  });
}

}  // namespace strata::cli

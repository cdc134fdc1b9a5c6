// strata demo: the main job on a default grid. Checks every stencil family on the chosen
// device (against the CPU reference on the GPU, and against exact polynomial Laplacians on
// both), solves a Poisson problem at two resolutions (second-order convergence), runs a
// short 8th-order wave simulation, then the benchmark, and prints a short report. Exits 1
// if any check fails.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>

#include "apps/strata/commands.hpp"
#include "apps/strata/options.hpp"
#include "bench/bench.hpp"
#include "drivers/outputs.hpp"
#include "strata/manufactured.hpp"
#include "verify/stencil_check.hpp"
#include "strata/apply.hpp"
#include "strata/device.hpp"
#include "strata/poisson.hpp"
#include "strata/wave.hpp"

namespace strata::cli {

namespace {

struct DemoArgs {
  std::string device;
  int size = 0;
  int reps = 20;
  std::string json;
};

struct Tally {
  int passed = 0, failed = 0;
  void report(const std::string& what, const verify::Mismatch& m) {
    (m.ok() ? passed : failed)++;
    std::printf("  %-4s %-52s %s\n", m.ok() ? "ok" : "FAIL", what.c_str(), m.str().c_str());
  }
};

std::vector<Stencil> demo_stencils() {
  std::vector<double> k(27);
  for (int i = 0; i < 27; ++i) k[i] = 0.1 * ((i * 7) % 11) - 0.45;
  return {Stencil::laplacian7(), Stencil::laplacian(8), Stencil::fe27(), Stencil::box27(k)};
}

// GPU against the CPU reference: every stencil, boundary condition and precision on a grid
// that leaves partial tiles on every axis.
template <class T>
void check_gpu_vs_cpu(Tally& t) {
  const Extent n{67, 45, 37};
  for (const Stencil& s : demo_stencils())
    for (const Boundary& bc : {Boundary::dirichlet(0.5), Boundary::neumann(), Boundary::periodic()}) {
      Field<T> in(n), got(n);
      for (int z = 0; z < n.nz; ++z)
        for (int y = 0; y < n.ny; ++y)
          for (int x = 0; x < n.nx; ++x)
            in(x, y, z) = T(std::sin(0.3 * x + 0.7 * y) * std::cos(0.2 * z) + 0.01 * x);
      Field<T> din(n, in.ghost(), Memory::device), dout(n, in.ghost(), Memory::device);
      copy(in, din);
      apply(s, din, dout, bc);
      copy(dout, got);
      fill_ghosts(in, bc, s.radius());  // the reference sees the same boundary values
      t.report("gpu vs cpu " + s.name() + " " + bc.describe() + " " + to_string(precision_of<T>),
               verify::against_reference(s, in, got));
    }
}

template <class T>
void check_exactness(Tally& t, Memory mem) {
  const Extent n{40, 33, 29};
  for (int order : {2, 4, 6, 8}) {
    const double h = 1.0 / 40;
    t.report("exact Laplacian order " + std::to_string(order) + " on degree-" +
                 std::to_string(order + 1) + " polynomial " + to_string(precision_of<T>),
             verify::laplacian_exactness<T>(Stencil::laplacian(order, h), order + 1, n, h, mem));
  }
  const double h = 1.0 / 40;  // sym27's default, the finite-element +Laplacian: exact on cubics
  const std::string what = "exact FE Laplacian sym27 on degree-3 polynomial ";
  t.report(what + to_string(precision_of<T>),
           verify::laplacian_exactness<T>(Stencil::fe27(h), 3, n, h, mem));
}

// Multigrid on the manufactured problem at h and h/2: the error against the exact solution
// must fall about 4x (second order), and the solve must converge.
void check_poisson(Tally& t, Memory mem) {
  const int n1 = mem == Memory::device ? 63 : 15, n2 = 2 * n1 + 1;
  for (PoissonOperator op : {PoissonOperator::fd7, PoissonOperator::fe27}) {
    double err[2] = {0, 0}, ms = 0, factor = 0;
    bool converged = true;
    for (int k = 0; k < 2; ++k) {
      const Extent n{k ? n2 : n1, k ? n2 : n1, k ? n2 : n1};
      PoissonOptions o;
      o.op = op;
      o.method = PoissonMethod::fmg;
      o.rtol = 1e-10;
      o.h = poisson_spacing(o.bc, n.nx);
      Field<double> f(n, 1), exact(n, 1), u(n, 1);
      poisson::manufactured<double>(o.bc, o.h, f, &exact);
      PoissonReport r;
      if (mem == Memory::device) {
        Field<double> df(n, 1, mem), du(n, 1, mem);
        copy(f, df);
        r = solve_poisson(o, df, du);
        copy(du, u);
      } else {
        r = solve_poisson(o, f, u);
      }
      converged = converged && r.converged;
      err[k] = poisson::solution_error(o.bc, u, exact).rel_l2;
      ms = r.solve_ms;
      factor = r.convergence_factor;
    }
    const double ratio = err[0] / err[1];
    verify::Mismatch m;  // reported through the same tally: one "point", the ratio
    m.checked = 1;
    m.bad = converged && ratio > 3.4 && ratio < 4.6 ? 0 : 1;
    m.got = ratio;
    std::printf("  %-4s poisson %-4s fmg+V(2,2): error %.2e -> %.2e (x%.2f per halving), factor %.3f, %.1f ms at %d^3\n",
                m.ok() ? "ok" : "FAIL", std::string(to_string(op)).c_str(), err[0], err[1], ratio, factor, ms, n2);
    (m.ok() ? t.passed : t.failed)++;
  }
}

// A short 8th-order wave run (the quick example's model) on the chosen device: the wave
// must stay finite and reach the receivers.
void check_wave(Tally& t, Device dev) {
  const std::string config = R"({
    "grid": {"shape": [96, 96, 96], "spacing": 10.0},
    "model": {"type": "layered", "layers": [{"top": 0.0, "velocity": 1800.0}, {"top": 400.0, "velocity": 2600.0}]},
    "time": {"steps": 300}, "scheme": {"order": 8, "precision": "f32"},
    "sources": [{"position": [480.0, 480.0, 100.0], "frequency": 12.0}],
    "receivers": {"every": 2, "lines": [{"start": [200.0, 480.0, 20.0], "end": [760.0, 480.0, 20.0], "count": 29}]},
    "boundary": {"zmin": "free", "pml": {"width": 12}}})";
  const std::string device = std::string("device=") + (dev == Device::cuda ? "cuda" : "cpu");
  const std::vector<std::string> overrides = {device};
  wave::Solver s(wave::parse_config(config, overrides, "demo"));
  const auto t0 = std::chrono::steady_clock::now();
  s.advance(s.config().steps);
  const auto traces = s.traces();
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  double peak = 0;
  bool finite = true;
  for (double v : traces) finite = finite && std::isfinite(v), peak = std::max(peak, std::fabs(v));
  const bool ok = finite && peak > 0;
  std::printf("  %-4s wave order 8, 96^3, 300 steps with CPML and a free surface: peak trace %.3e, %.2f Gpts/s\n",
              ok ? "ok" : "FAIL", peak, 96.0 * 96 * 96 * 300 / secs / 1e9);
  (ok ? t.passed : t.failed)++;
}

}  // namespace

void add_demo(CLI::App& app) {
  auto a = std::make_shared<DemoArgs>();
  auto* cmd = app.add_subcommand(
      "demo",
      "Check, solve and benchmark on this machine: every stencil on the GPU (or CPU) against the "
      "reference and against exact answers, a Poisson problem at two resolutions, a short wave "
      "simulation, then every kernel benchmarked against the copy kernel, and a report.");
  cmd->add_option("--device", a->device, "cpu | cuda (default: cuda when a GPU is visible)");
  cmd->add_option("--size", a->size, "benchmark cube edge (default 512 on GPU, 96 on CPU)")
      ->transform(whole_number_in(8, 4096));
  cmd->add_option("--reps", a->reps, "timed repetitions per kernel")->capture_default_str()->transform(whole_number_in(1, 10000));
  cmd->add_option("--json", a->json, "write the benchmark results as JSON to this file");
  cmd->callback([a] {
    check_outputs({{"--json", a->json}});  // before the checks and the benchmark, not after them
    const Device dev = resolve_device(a->device);
    const BuildInfo& b = build_info();
    std::printf("strata %s (commit %s, %s)\n", b.version.c_str(), b.commit.c_str(),
                b.cuda ? "CUDA build" : "CPU-only build");
    if (dev == Device::cuda) {
      const DeviceInfo d = cuda_current_device();
      std::printf("device: %s, %d SMs, %.0f GiB\n", d.name.c_str(), d.multiprocessors,
                  double(d.total_memory) / (1 << 30));
    } else {
      std::printf("device: CPU (%s)\n", b.cuda ? cuda_unavailable_reason().c_str() : "no CUDA in this build");
    }

    std::printf("\nchecks\n");
    Tally t;
    const Memory mem = dev == Device::cuda ? Memory::device : Memory::host;
    if (dev == Device::cuda) {
      check_gpu_vs_cpu<float>(t);
      check_gpu_vs_cpu<double>(t);
    }
    check_exactness<float>(t, mem);
    check_exactness<double>(t, mem);
    check_poisson(t, mem);
    check_wave(t, dev);

    std::printf("\nbenchmark (median of %d runs; ratio = GB/s over the 2.5D copy kernel's)\n", a->reps);
    bench::Options opt;
    opt.reps = a->reps;
    opt.quiet = true;
    const int n = a->size ? a->size : (dev == Device::cuda ? 512 : 96);
    opt.shapes = {{n, n, n}};
    const auto results = dev == Device::cuda ? bench::stencils_cuda(opt) : bench::stencils_cpu(opt);
    bench::print_table(std::cout, results);
    if (!a->json.empty()) {
      const std::string text = bench::to_json(results).dump(2) + "\n";
      drivers::write_text(a->json, text);
    }
    std::printf("\ndemo: %d checks passed, %d failed\n", t.passed, t.failed);
    if (t.failed) set_exit_code(1);
  });
}

}  // namespace strata::cli

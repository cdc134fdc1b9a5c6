// strata demo: the main job on a default grid. Checks every stencil family on the chosen
// device (against the CPU reference on the GPU, and against exact polynomial Laplacians on
// both), then runs the benchmark and prints a short report. Exits 1 if any check fails.
#include <cstdio>
#include <iostream>

#include "apps/strata/commands.hpp"
#include "apps/strata/options.hpp"
#include "bench/bench.hpp"
#include "core/atomic_file.hpp"
#include "core/verify.hpp"
#include "strata/apply.hpp"
#include "strata/device.hpp"

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
}

}  // namespace

void add_demo(CLI::App& app) {
  auto a = std::make_shared<DemoArgs>();
  auto* cmd = app.add_subcommand(
      "demo",
      "The main job: check every stencil on the GPU (or CPU) against the reference and against "
      "exact answers, then benchmark every kernel against the copy kernel and report.");
  cmd->add_option("--device", a->device, "cpu | cuda (default: cuda when a GPU is visible)");
  cmd->add_option("--size", a->size, "benchmark cube edge (default 512 on GPU, 96 on CPU)")
      ->check(CLI::Range(8, 4096));
  cmd->add_option("--reps", a->reps, "timed repetitions per kernel")->capture_default_str()->check(CLI::Range(1, 10000));
  cmd->add_option("--json", a->json, "write the benchmark results as JSON to this file");
  cmd->callback([a] {
    const DeviceChoice dev = resolve_device(a->device);
    const BuildInfo& b = build_info();
    std::printf("strata %s (commit %s, %s)\n", b.version.c_str(), b.commit.c_str(),
                b.cuda ? "CUDA build" : "CPU-only build");
    if (dev == DeviceChoice::cuda) {
      const DeviceInfo d = cuda_devices().at(0);
      std::printf("device: %s, %d SMs, %.0f GiB\n", d.name.c_str(), d.multiprocessors,
                  double(d.total_memory) / (1 << 30));
    } else {
      std::printf("device: CPU (%s)\n", b.cuda ? cuda_unavailable_reason().c_str() : "no CUDA in this build");
    }

    std::printf("\nchecks\n");
    Tally t;
    const Memory mem = dev == DeviceChoice::cuda ? Memory::device : Memory::host;
    if (dev == DeviceChoice::cuda) {
      check_gpu_vs_cpu<float>(t);
      check_gpu_vs_cpu<double>(t);
    }
    check_exactness<float>(t, mem);
    check_exactness<double>(t, mem);

    std::printf("\nbenchmark (median of %d runs; ratio = GB/s over the 2.5D copy kernel's)\n", a->reps);
    bench::Options opt;
    opt.reps = a->reps;
    opt.quiet = true;
    const int n = a->size ? a->size : (dev == DeviceChoice::cuda ? 512 : 96);
    opt.shapes = {{n, n, n}};
    const auto results = dev == DeviceChoice::cuda ? bench::stencils_cuda(opt) : bench::stencils_cpu(opt);
    bench::print_table(std::cout, results);
    if (!a->json.empty()) {
      const std::string text = bench::to_json(results).dump(2) + "\n";
      io::AtomicFile f(a->json);
      f.write(text.data(), text.size());
      f.commit();
    }
    std::printf("\ndemo: %d checks passed, %d failed\n", t.passed, t.failed);
    if (t.failed) set_exit_code(1);
  });
}

}  // namespace strata::cli

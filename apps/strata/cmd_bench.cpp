// strata bench: times every kernel family against the copy kernel of the same run; prints
// a table and optionally writes the JSON record kept in bench/results/<gpu>.json.
#include <algorithm>
#include <iostream>
#include <set>
#include <sstream>

#include "apps/strata/commands.hpp"
#include "apps/strata/options.hpp"
#include "bench/bench.hpp"
#include "bench/poisson.hpp"
#include "bench/reduce.hpp"
#include "bench/wave.hpp"
#include "strata/atomic_file.hpp"
#include "strata/device.hpp"

namespace strata::cli {

namespace {

struct BenchArgs {
  std::string kernels = "stencils";
  std::string precision = "all";
  std::vector<int> sizes;
  std::vector<std::string> shapes;
  bool sweep = false;
  std::string device, variants = "default", json;
  int reps = 20, warmup = 3, zchunks = 0;
};

// 128^3 .. 768^3 and non-cubic shapes, some not multiples of any tile.
std::vector<Extent> sweep_shapes() {
  std::vector<Extent> s;
  for (int n : {128, 192, 256, 384, 512, 640, 768}) s.push_back({n, n, n});
  for (Extent e : {Extent{1024, 512, 256}, Extent{256, 512, 1024}, Extent{2048, 256, 256},
                   Extent{1000, 500, 250}, Extent{513, 513, 513}})
    s.push_back(e);
  return s;
}

void write_json(const std::string& path, const std::vector<bench::Result>& results) {
  const std::string text = bench::to_json(results).dump(2) + "\n";
  io::AtomicFile f(path);
  f.write(text.data(), text.size());
  f.commit();
}

}  // namespace

void add_bench(CLI::App& app) {
  auto a = std::make_shared<BenchArgs>();
  auto* cmd = app.add_subcommand(
      "bench",
      "Benchmark kernels: median of repeated event-timed runs after warm-up, points/s, GB/s at "
      "the optimal footprint (read + write once), effective bytes per point and the ratio to the "
      "2.5D copy kernel of the same run. Every GPU kernel is checked against the CPU reference "
      "before it is timed.");
  cmd->add_option("--kernel", a->kernels,
                  "comma-separated: stencils (all of copy, copy_halo, 7pt, star2, star3, star4, "
                  "sym27, box27) or any of them; reduce (all of sum, dot, max_abs) or any of them; "
                  "poisson (V-cycles, 513^3 solves, cuFFT reference; GPU); wave (the fused "
                  "acoustic update, radius 4); all (every family)")
      ->capture_default_str();
  cmd->add_option("--precision", a->precision, "f32 | f64 | all")->capture_default_str();
  cmd->add_option("--size", a->sizes, "cube edge N (repeatable); default 512 on GPU, 128 on CPU")
      ->check(whole_number_in(1, 1 << 20));
  cmd->add_option("--shape", a->shapes, "NX,NY,NZ (repeatable)");
  cmd->add_flag("--sweep", a->sweep, "128^3 .. 768^3 plus non-cubic shapes");
  cmd->add_option("--device", a->device, "cpu | cuda (default: cuda when a GPU is visible)");
  cmd->add_option("--reps", a->reps, "timed repetitions per kernel (median reported)")
      ->capture_default_str()->check(whole_number_in(1, 100000));
  cmd->add_option("--warmup", a->warmup, "untimed runs first")->capture_default_str()->check(whole_number_in(0, 1000));
  cmd->add_option("--variants", a->variants,
                  "default | all (every compiled tile configuration; needs -DSTRATA_STENCIL_LAB=ON "
                  "for more than the defaults)")
      ->capture_default_str();
  cmd->add_option("--zchunks", a->zchunks, "split z into this many chunks (0: automatic)")
      ->capture_default_str()->check(whole_number_in(0, 1 << 20));
  cmd->add_option("--json", a->json, "also write the results as JSON to this file (atomically)");
  cmd->callback([a] {
    check_outputs({a->json});  // before the benchmark, not after it
    const DeviceChoice dev = resolve_device(a->device);
    bench::Options opt;
    opt.precisions = parse_precisions(a->precision);
    opt.reps = a->reps;
    opt.warmup = a->warmup;
    opt.zchunks = a->zchunks;
    if (a->variants != "default" && a->variants != "all")
      throw Error("--variants '" + a->variants + "': allowed default, all");
    opt.all_variants = a->variants == "all";
    for (int n : a->sizes) {
      if (n < 1) throw Error("--size " + std::to_string(n) + ": must be >= 1");
      opt.shapes.push_back({n, n, n});
    }
    for (const auto& s : a->shapes) opt.shapes.push_back(parse_shape(s));
    if (a->sweep) {
      const auto s = sweep_shapes();
      opt.shapes.insert(opt.shapes.end(), s.begin(), s.end());
    }
    // Split the kernel list into the two families; an empty family list means "all of it".
    const auto& known = bench::stencil_kernels();
    const std::vector<std::string> reductions = {"sum", "dot", "max_abs"};
    bool run_stencils = false, run_reduce = false, run_poisson = false, run_wave = false;
    bench::Options ropt = opt;
    std::stringstream ss(a->kernels);
    std::string k;
    while (std::getline(ss, k, ',')) {
      if (k == "stencils" || k == "all") run_stencils = true;
      if (k == "reduce" || k == "all") run_reduce = true;
      if (k == "poisson" || (k == "all" && dev == DeviceChoice::cuda)) run_poisson = true;
      if (k == "all" && dev != DeviceChoice::cuda)
        std::cerr << "strata bench: poisson skipped: its benchmark times the GPU solvers (--device cuda)\n";
      if (k == "wave" || k == "all") run_wave = true;
      if (k == "stencils" || k == "reduce" || k == "poisson" || k == "wave" || k == "all") continue;
      if (std::find(known.begin(), known.end(), k) != known.end()) {
        opt.kernels.push_back(k);
        run_stencils = true;
      } else if (std::find(reductions.begin(), reductions.end(), k) != reductions.end()) {
        ropt.kernels.push_back(k);
        run_reduce = true;
      } else {
        throw Error("unknown kernel '" + k +
                    "': allowed stencils, copy, copy_halo, 7pt, star2, star3, star4, sym27, box27, "
                    "reduce, sum, dot, max_abs, poisson, wave, all");
      }
    }
    if (a->kernels.find("stencils") != std::string::npos || a->kernels.find("all") != std::string::npos)
      opt.kernels.clear();
    if (a->kernels.find("reduce") != std::string::npos || a->kernels.find("all") != std::string::npos)
      ropt.kernels.clear();
    std::cerr << "strata bench on " << to_string(dev) << " (" << opt.reps << " timed runs each)\n";
    std::vector<bench::Result> results;
    if (run_stencils)
      results = dev == DeviceChoice::cuda ? bench::stencils_cuda(opt) : bench::stencils_cpu(opt);
    if (run_reduce) {
      ropt.shapes = {};  // reductions size themselves (2 GiB per call on the GPU) unless --size or --shape
      for (int n : a->sizes) ropt.shapes.push_back({n, n, n});
      for (const auto& s : a->shapes) ropt.shapes.push_back(parse_shape(s));
      const auto r = dev == DeviceChoice::cuda ? bench::reduce_cuda(ropt) : bench::reduce_cpu(ropt);
      results.insert(results.end(), r.begin(), r.end());
    }
    if (run_wave) {
      bench::Options wopt = opt;  // the sweep is the stencils' study: waves take explicit shapes only
      wopt.shapes.clear();
      for (int n : a->sizes) wopt.shapes.push_back({n, n, n});
      for (const auto& s : a->shapes) wopt.shapes.push_back(parse_shape(s));
      const auto r = dev == DeviceChoice::cuda ? bench::wave_cuda(wopt) : bench::wave_cpu(wopt);
      results.insert(results.end(), r.begin(), r.end());
    }
    if (run_poisson) {
      if (dev != DeviceChoice::cuda) throw Error("--kernel poisson benchmarks the GPU: it needs --device cuda");
      const auto r = bench::poisson_cuda(opt);
      results.insert(results.end(), r.begin(), r.end());
    }
    bench::print_table(std::cout, results);
    if (!a->json.empty()) {
      write_json(a->json, results);
      std::cerr << "results written to " << a->json << "\n";
    }
  });
}

}  // namespace strata::cli

// strata bench: times every kernel family against the copy kernel of the same run; prints
// a table and optionally writes the JSON record kept in bench/results/<gpu>.json.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <sstream>

#include "apps/strata/commands.hpp"
#include "apps/strata/options.hpp"
#include "bench/bench.hpp"
#include "bench/families.hpp"
#include "drivers/outputs.hpp"
#include "strata/device.hpp"
#include "strata/dist.hpp"
#include "strata/tuning.hpp"

namespace strata::cli {

namespace {

struct BenchArgs {
  std::string kernels = "stencils";
  std::string precision = "all";
  std::vector<int> sizes;
  std::vector<std::string> shapes;
  bool sweep = false;
  std::string device, variants = "default", json, tune, grid;
  int reps = 20, warmup = 3, zchunks = 0, steps = 0;
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
  drivers::write_text(path, text);
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
  cmd->add_option(
         "--kernel", a->kernels,
         "comma-separated: stencils (all of copy, copy_halo, 7pt, star2, star3, star4, "
         "sym27, box27) or any of them; reduce (all of sum, dot, max_abs) or any of them; "
         "poisson (V-cycles, Dirichlet solves by each method, the periodic problem by FFT "
         "and by multigrid: 511^3 with cuFFT on the GPU, 127^3 with KissFFT on the CPU "
         "unless --size/--shape); wave (the fused acoustic update, radius 4, its "
         "correlating form in each shape, and whole steps); steps (12 "
         "heat steps u <- u + c A u per pass count: one pass per step, then 2..4 fused "
         "steps where strata has them (GPU); rates per step against the copy-bound rate); "
         "imaging (one order-8 CPML shot run forward alone, then its misfit gradient "
         "with kept states and with boundary saving (on a GPU also each with the "
         "correlation as a pass of its own), then its migration with the compensated image: "
         "the cost in forward runs; 256^3 x 400 steps on the GPU, 64^3 x 100 on the CPU unless "
         "--size/--shape) or any of imaging_checkpoints, imaging_boundary_saving, "
         "imaging_migrate (that row and the forward run alone); "
         "transfers (a GPU's: one field's interior in each --precision, 512^3 unless --size, down "
         "to the "
         "host and up by cudaMemcpy from pinned and pageable memory and by strata's own "
         "copies, each over the bus's pinned rate; skipped on the CPU); "
         "dist (under mpirun -np N: the halo fill and the exchange alone beside "
         "NCCL's/MPI's own, 7pt weak scaling at --size^3 per rank and strong scaling at "
         "(2 size)^3; f32 unless --precision f64); all (every family; dist only with "
         "several ranks)")
      ->capture_default_str();
  cmd->add_option("--precision", a->precision, "f32 | f64 | all")->capture_default_str();
  cmd->add_option("--size", a->sizes, "cube edge N (repeatable); default 512 on GPU, 128 on CPU")
      ->transform(whole_number_in(1, 1 << 20));
  cmd->add_option("--shape", a->shapes, "NX,NY,NZ (repeatable)");
  cmd->add_flag("--sweep", a->sweep, "128^3 .. 768^3 plus non-cubic shapes");
  cmd->add_option("--device", a->device, "cpu | cuda (default: cuda when a GPU is visible)");
  cmd->add_option("--reps", a->reps, "timed repetitions per kernel (median reported)")
      ->capture_default_str()
      ->transform(whole_number_in(1, 100000));
  cmd->add_option("--warmup", a->warmup, "untimed runs first")
      ->capture_default_str()
      ->transform(whole_number_in(0, 1000));
  cmd->add_option("--variants", a->variants,
                  "default | all (every compiled tile configuration; needs "
                  "-DSTRATA_STENCIL_VARIANTS=ON for more than the tuning candidates)")
      ->capture_default_str();
  cmd->add_option("--tune", a->tune,
                  "auto | measure | cached | off: where the GPU kernels' launch shapes come from "
                  "(overrides STRATA_TUNE; the table's last column says which each row took)");
  cmd->add_option("--zchunks", a->zchunks, "split z into this many chunks (0: automatic)")
      ->capture_default_str()
      ->transform(whole_number_in(0, 1 << 20));
  cmd->add_option("--steps", a->steps,
                  "time steps of the imaging family's shot (default 400 on GPU, 100 on CPU; "
                  "issue 40's figure is 2000 at --size 512)")
      ->transform(whole_number_in(1, 1 << 20));
  cmd->add_option(
      "--grid", a->grid,
      "PXxPYxPZ: the process grid of the dist family's strong scaling (default: the one "
      "strata chooses, as a distributed apply does)");
  cmd->add_option("--json", a->json, "also write the results as JSON to this file (atomically)");
  cmd->callback([a] {
    check_outputs({{"--json", a->json}});  // before the benchmark, not after it
    if (!a->tune.empty()) tuning::set_mode(tuning::parse_mode(a->tune, "--tune"));
    const Device dev = resolve_device(a->device);
    bench::Options opt;
    opt.precisions = parse_precisions(a->precision);
    opt.reps = a->reps;
    opt.warmup = a->warmup;
    opt.zchunks = a->zchunks;
    opt.steps = a->steps;
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
    // Each --kernel token names a family (all of it), one of a family's kernels, or all.
    std::vector<std::string> skipped;
    const auto pick = bench::select(a->kernels, dist::Job::get().size(), skipped);
    if (a->steps > 0) {  // a shot's length: the imaging family's alone
      bool imaging = false;
      for (std::size_t f = 0; f < pick.size(); ++f)
        imaging = imaging || (pick[f].run && bench::families()[f].name == "imaging");
      if (!imaging)
        throw Error("--steps sets the imaging family's shot length, but --kernel " + a->kernels +
                    " does not run it: add imaging to --kernel, or leave --steps out");
    }
    if (!a->grid.empty()) {  // checked here, on every rank, before the job begins
      bool dist_family = false;
      for (std::size_t f = 0; f < pick.size(); ++f)
        dist_family = dist_family || (pick[f].run && bench::families()[f].name == "dist");
      if (!dist_family)
        throw Error("--grid sets the dist family's strong-scaling grid, but --kernel " +
                    a->kernels +
                    " does not run it (under mpirun): add dist to --kernel, or leave --grid out");
      const int per = opt.shapes.empty() ? 512 : opt.shapes.front().nx;
      const Extent strong{2 * per, 2 * per, 2 * per};
      dist::ProcessGrid::parse(a->grid, "--grid")
          .require_fits(strong, dist::Job::get().size(), 1,
                        "--grid " + a->grid + " for the " + strong.str() + " grid");
      opt.grid = a->grid;
    }
    if (dist::Job::get().root())
      for (const std::string& why : skipped) std::cerr << "strata bench: " << why << "\n";
    dist::Job& job = dist::Job::get();
    if (dev == Device::cuda && job.size() > 1) job.bind_gpu();
    job.begin();
    if (!job.root()) opt.quiet = true;
    // Each row is printed once, in the table at the end; on a terminal the row being timed
    // shows meanwhile on one line of stderr, rewritten in place and cleared before the table.
    const bool terminal = job.root() && ::isatty(2);
    if (terminal)
      opt.on_row = [](const bench::Result& r) {
        std::fprintf(stderr, "\r\033[K  timed %s %s %s %s: %.3f ms", r.kernel.c_str(),
                     r.variant.c_str(), to_string(r.precision), r.shape.str().c_str(), r.median_ms);
        std::fflush(stderr);
      };
    if (job.root())
      std::cerr << "strata bench on " << to_string(dev)
                << (job.size() > 1 ? " x " + std::to_string(job.size()) + " ranks" : "") << " ("
                << opt.reps << " timed runs each)\n";
    std::vector<Extent> explicit_shapes;
    for (int n : a->sizes) explicit_shapes.push_back({n, n, n});
    for (const auto& sh : a->shapes) explicit_shapes.push_back(parse_shape(sh));
    const std::vector<bench::Result> results =
        bench::run(pick, opt, explicit_shapes, dev == Device::cuda);
    if (!job.root()) return;
    if (terminal) std::fprintf(stderr, "\r\033[K");
    bench::print_table(std::cout, results);
    if (!a->json.empty()) {
      write_json(a->json, results);
      std::cerr << "results written to " << a->json << "\n";
    }
  });
}

}  // namespace strata::cli

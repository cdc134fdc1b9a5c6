// The benchmark driver's vocabulary: every family (stencils, copies, reductions) times its
// kernels its own way and reports Results in one shape, so `strata bench` prints one table
// and one JSON file. Rates use the declared optimal bytes per point, never measured bytes.
#pragma once

#include <chrono>
#include <functional>
#include <iosfwd>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "strata/field.hpp"
#include "strata/stencil.hpp"

namespace strata::bench {

struct Result;

struct Options {
  std::vector<std::string> kernels;   // empty: every kernel of the family
  std::vector<Precision> precisions;  // empty: f32 and f64
  std::vector<Extent> shapes;         // empty: the family's default
  int reps = 20;                      // timed repetitions (median reported)
  int warmup = 3;
  bool quiet = false;                 // no notes on stderr (a family skipped, a size too small)
  // Called with each row as soon as it is timed (before the ratios, which need the family's
  // reference): the CLI's progress. The rows themselves are printed once, by print_table.
  std::function<void(const Result&)> on_row;
  bool all_variants = false;          // every compiled tile configuration, not only defaults
  int zchunks = 0;                    // z split of the stencil grid (0: the launcher chooses)
  int steps = 0;                      // the imaging family's shot length (0: its default)
  std::string grid;                   // the dist family's strong-scaling grid ("": chosen)
};

// The kernels of the stencil family, in report order.
const std::vector<std::string>& stencil_kernels();
// A Stencil with fixed, distinct, non-uniform coefficients for a kernel name (the copies
// are the identity star, so the reference check applies to them too).
Stencil bench_stencil(const std::string& kernel);

struct Result {
  std::string kernel;        // "copy", "7pt", "sym27", "box27", "star4", "sum", ...
  std::string variant;       // which implementation ran ("tma", "ref", "cub", ...)
  std::string device;        // "cpu" or "cuda"
  Precision precision = Precision::f32;
  Extent shape;              // for flat arrays: {n, 1, 1}
  double points = 0;         // points (elements) processed per run
  double bytes_per_point_opt = 0;  // fewest bytes per point through memory
  double median_ms = 0, min_ms = 0, max_ms = 0;
  int reps = 0;
  double gpts_per_s = 0, gb_per_s = 0;  // gb_per_s = gpts_per_s * bytes_per_point_opt
  double bytes_per_point_eff = 0;       // bytes_per_point_opt * reference rate / rate
  double ratio_to_copy = 0;             // this kernel's GB/s over the reference's GB/s
  std::string reference;                // the kernel ratio_to_copy compares with
  nlohmann::json extra = nlohmann::json::object();
};

struct Timing {
  double median_ms = 0, min_ms = 0, max_ms = 0;
  int reps = 0;
};
Timing summarize(std::vector<double> ms);

// The one host timer of the CPU benchmarks (the GPU's is cuda_timing.cuh): `warmup` untimed
// calls, then `reps` timed ones on the steady clock; median and spread.
template <class Run>
Timing time_host(Run&& run, int warmup, int reps) {
  for (int i = 0; i < warmup; ++i) run();
  std::vector<double> ms;
  for (int r = 0; r < reps; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    run();
    ms.push_back(
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  return summarize(ms);
}

// A result row before timing: what ran, where, on what; points default to the shape's.
Result result_row(const std::string& device, const std::string& kernel, const std::string& variant,
                  Precision precision, Extent shape, double bytes_per_point, double points = 0);

// A row timed: hands it to opt.on_row, if any.
inline void row_done(const Options& opt, const Result& r) {
  if (opt.on_row) opt.on_row(r);
}

// Fills the rate fields of r from its timing, points and footprint.
void set_rates(Result& r, const Timing& t);
// ratio_to_copy and bytes_per_point_eff of r against a reference result (same precision).
void compare_to(Result& r, const Result& reference);

// Calls run(T{}, shape) for every shape and precision of opt, or the family's defaults
// where opt leaves them empty: the one loop every benchmark family shares.
template <class Run>
void for_each_case(const Options& opt, const std::vector<Extent>& default_shapes,
                   const std::vector<Precision>& default_precisions, Run&& run) {
  const auto& shapes = opt.shapes.empty() ? default_shapes : opt.shapes;
  const auto& precisions = opt.precisions.empty() ? default_precisions : opt.precisions;
  for (const Extent& shape : shapes)
    for (Precision p : precisions) {
      if (p == Precision::f32)
        run(float{}, shape);
      else
        run(double{}, shape);
    }
}

std::vector<Result> stencils_cpu(const Options& opt);
std::vector<Result> stencils_cuda(const Options& opt);  // throws when built without CUDA

nlohmann::json to_json(const std::vector<Result>& results);
void print_table(std::ostream& os, const std::vector<Result>& results);

}  // namespace strata::bench

// What the CPU and GPU repeated-steps benchmarks share (bench/steps.hpp): the stencils, their
// selection, the row and its progress line.
#include "bench/steps.hpp"

#include <algorithm>
#include <cstdio>

namespace strata::bench {

std::vector<std::string> steps_stencils(const Options& opt) {
  std::vector<std::string> names;
  const bool all = opt.kernels.empty() || opt.kernels == std::vector<std::string>{"steps"};
  for (const std::string name : {"7pt", "star2", "star4", "sym27"})
    if (all || std::find(opt.kernels.begin(), opt.kernels.end(), name) != opt.kernels.end())
      names.push_back(name);
  return names;
}

Stencil steps_stencil(const std::string& name) {
  if (name == "7pt") return Stencil::laplacian(2);
  if (name == "star2") return Stencil::laplacian(4);
  if (name == "star4") return Stencil::laplacian(8);
  return Stencil::fe27();
}

Result steps_row(const Options& opt, const std::string& device, const std::string& name, int fuse,
                 Precision p, Extent shape, const Timing& t, const Result& reference,
                 const std::string& validated) {
  Result r =
      result_row(device, "steps:" + name, fuse == 1 ? "per-step" : "fuse " + std::to_string(fuse),
                 p, shape, 2.0 * bytes_of(p), double(shape.points()) * kSteps);
  set_rates(r, t);
  compare_to(r, reference);
  r.extra["steps"] = kSteps;
  r.extra["fuse"] = fuse;
  r.extra["validated"] = validated;
  if (!opt.quiet)
    std::fprintf(stderr,
                 "  steps %-6s fuse %d %s %s: %.3f ms for %d steps, %.1f Gpts/s per step, %.2fx "
                 "copy-bound\n",
                 name.c_str(), fuse, to_string(p), shape.str().c_str(), r.median_ms, kSteps,
                 r.gpts_per_s, r.ratio_to_copy);
  return r;
}

}  // namespace strata::bench

// What the CPU and GPU repeated-steps benchmarks share (bench/steps.hpp): the stencils, their
// selection, the row (handed to opt.on_row as it is timed).
#include "bench/steps.hpp"

#include <algorithm>

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
  row_done(opt, r);
  return r;
}

}  // namespace strata::bench

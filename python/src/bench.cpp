// strata.bench.run's C++ side: the benchmark families of `strata bench` (bench/families.hpp,
// the same selection and runs as the CLI), with the GIL released; the rows come back as the
// JSON text `strata bench --json` writes, which strata/bench.py turns into dicts.
#include <nanobind/stl/array.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <array>

#include "bench/bench.hpp"
#include "bench/families.hpp"
#include "bindings.hpp"
#include "common.hpp"
#include "strata/device.hpp"

namespace strata::python {
namespace {

std::string bench_run(const std::string& kernels, const std::string& device, const std::vector<std::string>& precisions,
                      const std::vector<std::array<int, 3>>& shapes, int reps, int warmup) {
  if (device != "cpu" && device != "cuda") throw nb::value_error(("device '" + device + "': allowed 'cpu', 'cuda'").c_str());
  const bool cuda = device == "cuda";
  if (cuda && !cuda_available())
    throw nb::value_error(("device 'cuda': no GPU can be used (" + cuda_unavailable_reason() + ")").c_str());
  if (reps < 1 || warmup < 0) throw nb::value_error("reps must be >= 1 and warmup >= 0");
  bench::Options opt;
  for (const std::string& p : precisions) {
    if (p != "f32" && p != "f64") throw nb::value_error(("precision '" + p + "': allowed 'f32', 'f64'").c_str());
    opt.precisions.push_back(p == "f32" ? Precision::f32 : Precision::f64);
  }
  for (const auto& s : shapes) {
    if (s[0] < 1 || s[1] < 1 || s[2] < 1) throw nb::value_error("shapes must be positive (nx, ny, nz)");
    opt.shapes.push_back({s[0], s[1], s[2]});
  }
  opt.reps = reps;
  opt.warmup = warmup;
  opt.quiet = true;
  std::vector<std::string> skipped;
  const auto pick = bench::select(kernels, 1, skipped);  // an unknown name: strata.Error
  std::vector<bench::Result> results;
  {
    nb::gil_scoped_release unlocked;
    results = bench::run(pick, opt, opt.shapes, cuda);
  }
  nlohmann::json out = bench::to_json(results);  // device, commit, ..., results
  out["skipped"] = skipped;
  return out.dump();
}

}  // namespace

void bind_bench(nb::module_& m) {
  using namespace nb::literals;
  m.def("_bench_run", &bench_run, "kernels"_a, "device"_a, "precisions"_a, "shapes"_a, "reps"_a, "warmup"_a,
        "The families of `strata bench` (strata.bench.run wraps it): JSON text of the rows.");
}

}  // namespace strata::python

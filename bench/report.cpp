// Shared by every benchmark family: medians, rates, the table and the JSON document.
#include <algorithm>
#include <cstdio>
#include <ostream>

#include "bench/bench.hpp"
#include "bench/tune_report.hpp"
#include "io/tuning_state.hpp"
#include "strata/device.hpp"

namespace strata::bench {

Timing summarize(std::vector<double> ms) {
  Timing t;
  if (ms.empty()) return t;
  std::sort(ms.begin(), ms.end());
  const std::size_t n = ms.size();
  t.median_ms = n % 2 ? ms[n / 2] : 0.5 * (ms[n / 2 - 1] + ms[n / 2]);
  t.min_ms = ms.front();
  t.max_ms = ms.back();
  t.reps = int(n);
  return t;
}

Result result_row(const std::string& device, const std::string& kernel, const std::string& variant,
                  Precision precision, Extent shape, double bytes_per_point, double points) {
  Result r;
  r.kernel = kernel;
  r.variant = variant;
  r.device = device;
  r.precision = precision;
  r.shape = shape;
  r.points = points > 0 ? points : double(shape.points());
  r.bytes_per_point_opt = bytes_per_point;
  return r;
}

void set_rates(Result& r, const Timing& t) {
  r.median_ms = t.median_ms;
  r.min_ms = t.min_ms;
  r.max_ms = t.max_ms;
  r.reps = t.reps;
  r.gpts_per_s = t.median_ms > 0 ? r.points / (t.median_ms * 1e-3) / 1e9 : 0;
  r.gb_per_s = r.gpts_per_s * r.bytes_per_point_opt;
}

void compare_to(Result& r, const Result& ref) {
  r.reference = ref.kernel;
  if (r.gb_per_s <= 0 || ref.gb_per_s <= 0) return;
  r.ratio_to_copy = r.gb_per_s / ref.gb_per_s;
  r.bytes_per_point_eff = r.bytes_per_point_opt * ref.gb_per_s / r.gb_per_s;
}

nlohmann::json to_json(const std::vector<Result>& results) {
  const BuildInfo& b = build_info();
  nlohmann::json doc;
  std::string device = "cpu";
  nlohmann::json gpu = nullptr;
  for (const Result& r : results)
    if (r.device == "cuda") {
      const DeviceInfo d = cuda_current_device();
      device = d.name;
      gpu = {{"name", d.name},
             {"multiprocessors", d.multiprocessors},
             {"memory_bytes", d.total_memory},
             {"l2_bytes", d.l2_bytes},
             {"compute_capability", std::to_string(d.cc_major) + "." + std::to_string(d.cc_minor)}};
      break;
    }
  doc["device"] = device;
  doc["gpu"] = gpu;
  doc["commit"] = b.commit;
  doc["strata_version"] = b.version;
  doc["build_type"] = b.build_type;
  doc["tuning"] = io::tuning_state();  // the launch shapes this run's GPU kernels took, and why
  doc["results"] = nlohmann::json::array();
  for (const Result& r : results) {
    nlohmann::json j = {{"kernel", r.kernel},
                        {"variant", r.variant},
                        {"device", r.device},
                        {"precision", to_string(r.precision)},
                        {"shape", {r.shape.nx, r.shape.ny, r.shape.nz}},
                        {"points", r.points},
                        {"median_ms", r.median_ms},
                        {"min_ms", r.min_ms},
                        {"max_ms", r.max_ms},
                        {"reps", r.reps},
                        {"gpts_per_s", r.gpts_per_s},
                        {"gb_per_s", r.gb_per_s},
                        {"bytes_per_point_opt", r.bytes_per_point_opt},
                        {"bytes_per_point_eff", r.bytes_per_point_eff},
                        {"ratio_to_copy", r.ratio_to_copy},
                        {"reference", r.reference}};
    if (!r.extra.empty()) j["extra"] = r.extra;
    doc["results"].push_back(j);
  }
  return doc;
}

void print_table(std::ostream& os, const std::vector<Result>& results) {
  char line[512];
  // "shape from": where a tuned kernel's launch shape came from (strata/tuning.hpp).
  std::snprintf(line, sizeof line, "%-12s %-16s %-4s %-5s %-14s %10s %9s %9s %7s %7s  %-10s %s\n",
                "kernel", "variant", "dev", "prec", "shape (x,y,z)", "median_ms", "Gpts/s", "GB/s",
                "BpP_eff", "ratio", "vs", "shape from");
  os << line;
  for (const Result& r : results) {
    const std::string choice = r.extra.value("choice", std::string());
    std::snprintf(line, sizeof line,
                  "%-12s %-16s %-4s %-5s %-14s %10.4f %9.2f %9.1f %7.2f %7.3f  %-10s %s",
                  r.kernel.c_str(), r.variant.c_str(), r.device.c_str(), to_string(r.precision),
                  r.shape.xyz().c_str(), r.median_ms, r.gpts_per_s, r.gb_per_s,
                  r.bytes_per_point_eff, r.ratio_to_copy, r.reference.c_str(), choice.c_str());
    const std::string text = line;  // without the blanks an empty last column leaves
    os << text.substr(0, text.find_last_not_of(" \n") + 1) << "\n";
  }
}

}  // namespace strata::bench

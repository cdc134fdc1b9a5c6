// The lab's registry, table and JSON: what every experiment shares (lab/lab.hpp).
#include <algorithm>
#include <cmath>
#include <iomanip>
#include <ostream>
#include <sstream>

#include "lab/lab.hpp"
#include "strata/error.hpp"

namespace strata::lab {

#if STRATA_HAVE_CUDA
// One function per experiment, each in its own lab/<name>.cu.
Report run_reduce(const Options&);
Report run_transpose(const Options&);
Report run_matmul(const Options&);
Report run_coalescing(const Options&);
Report run_coefficients(const Options&);
Report run_streams(const Options&);
Report run_stencil(const Options&);
#define STRATA_LAB(fn) &fn
#else
namespace {
Report needs_cuda(const Options&) {
  throw Error(
      "the lab's experiments time CUDA kernels on a GPU: this strata was built without "
      "the CUDA backend");
}
}  // namespace
#define STRATA_LAB(fn) &needs_cuda
#endif

const std::vector<Experiment>& experiments() {
  static const std::vector<Experiment> all = {
      {"reduce", "sum of int32: the seed's seven Harris kernels, warp shuffles, 16-byte streaming, strata::sum, CUB",
       STRATA_LAB(run_reduce)},
      {"transpose", "fp32 B = A^T: naive, shared tile, padded tile (the seed's), two 16-byte designs, cuBLAS",
       STRATA_LAB(run_transpose)},
      {"matmul", "fp32 C = A B on FFMA: seed 001's naive and tiled kernels up to warp tiling, vs cuBLAS SGEMM (TF32 off)",
       STRATA_LAB(run_matmul)},
      {"coalescing", "copy bandwidth against load offset 0..32 and stride 1..32, 4/8/16-byte elements (seed 000)",
       STRATA_LAB(run_coalescing)},
      {"coefficients", "radius-4 star stencil with its coefficients in global, constant, shared memory, immediates, "
                       "kernel parameters (seed 000)",
       STRATA_LAB(run_coefficients)},
      {"streams", "host-to-device, kernel, device-to-host pipelined over 1..8 streams, pinned and pageable: overlap "
                  "against the ideal (seeds 000, 003)",
       STRATA_LAB(run_streams)},
      {"stencil",
       "7-point fp32, naive 3D to strata's TMA engine through 002's 2.5D steps (48x4 two-load "
       "halo): ratio to copy",
       STRATA_LAB(run_stencil)},
  };
  return all;
}

#undef STRATA_LAB

const Experiment& find(const std::string& name) {
  std::string names;
  for (const Experiment& e : experiments()) {
    if (e.name == name) return e;
    names += (names.empty() ? "" : ", ") + e.name;
  }
  throw Error("no experiment '" + name + "' (experiments: " + names + ")");
}

double gbps(double bytes, double ms) { return ms > 0 ? bytes / (ms * 1e-3) / 1e9 : 0; }

void ladder_speedups(Report& r, std::size_t first, std::size_t last) {
  last = std::min(last, r.rows.size());
  for (std::size_t i = first; i < last; ++i) {
    Row& row = r.rows[i];
    const double prev = i > first ? r.rows[i - 1].median_ms : row.median_ms;
    row.extra["step"] = row.median_ms > 0 ? prev / row.median_ms : 0.0;
    row.extra["cumulative"] = row.median_ms > 0 ? r.rows[first].median_ms / row.median_ms : 0.0;
  }
}

nlohmann::ordered_json bar_series(const Report& r, const std::string& label, std::size_t first,
                                  std::size_t last) {
  nlohmann::ordered_json s = {{"label", label}, {"x", nlohmann::ordered_json::array()},
                              {"y", nlohmann::ordered_json::array()}};
  last = std::min(last, r.rows.size());
  for (std::size_t i = first; i < last; ++i) {
    s["x"].push_back(r.rows[i].variant);
    s["y"].push_back(r.rows[i].validated ? r.rows[i].value : 0.0);
  }
  return s;
}

std::vector<std::string> failures(const Report& r) {
  std::vector<std::string> out;
  for (const Row& row : r.rows)
    if (!row.validated) out.push_back(row.variant + " (" + row.size + "): " + row.check);
  return out;
}

namespace {

std::string fixed(double v, int digits) {
  std::ostringstream s;
  s << std::fixed << std::setprecision(digits) << v;
  return s.str();
}

std::string cell(const nlohmann::ordered_json& v) {
  if (v.is_number_float()) return fixed(v.get<double>(), std::fabs(v.get<double>()) >= 1000 ? 1 : 3);
  if (v.is_string()) return v.get<std::string>();
  return v.dump();
}


}  // namespace

void print(const Report& r, std::ostream& os) {
  os << "strata lab " << r.experiment << ": " << r.title << "\n";
  if (!r.device.empty()) os << "device: " << r.device << "\n";
  // Columns: the fixed ones, then every extra key in first-seen order.
  std::vector<std::string> keys;
  for (const Row& row : r.rows)
    for (auto it = row.extra.begin(); it != row.extra.end(); ++it)
      if (std::find(keys.begin(), keys.end(), it.key()) == keys.end()) keys.push_back(it.key());
  std::vector<std::string> head = {"variant", "size", "median ms", r.unit};
  if (!r.reference.empty()) head.push_back("/ " + r.reference);
  head.insert(head.end(), keys.begin(), keys.end());
  head.push_back("check");
  std::vector<std::vector<std::string>> table;
  for (const Row& row : r.rows) {
    std::vector<std::string> line = {row.variant, row.size, fixed(row.median_ms, 4),
                                     row.validated ? fixed(row.value, 2) : "-"};
    if (!r.reference.empty()) line.push_back(row.validated && row.ratio > 0 ? fixed(row.ratio, 3) : "-");
    for (const std::string& k : keys) line.push_back(row.extra.contains(k) ? cell(row.extra[k]) : "");
    line.push_back(row.check);
    table.push_back(std::move(line));
  }
  std::vector<std::size_t> width(head.size());
  for (std::size_t c = 0; c < head.size(); ++c) {
    width[c] = head[c].size();
    for (const auto& line : table) width[c] = std::max(width[c], line[c].size());
  }
  auto put = [&](const std::vector<std::string>& line) {
    for (std::size_t c = 0; c < line.size(); ++c) {
      const bool left = c < 2 || c + 1 == line.size();
      os << (left ? std::left : std::right) << std::setw(int(width[c])) << line[c]
         << (c + 1 == line.size() ? "\n" : "  ");
    }
  };
  put(head);
  for (const auto& line : table) put(line);
  for (const std::string& n : r.notes) os << "  " << n << "\n";
}

nlohmann::ordered_json to_json(const Report& r) {
  nlohmann::ordered_json j;
  j["experiment"] = r.experiment;
  j["title"] = r.title;
  j["device"] = r.device;
  j["unit"] = r.unit;
  j["reference"] = r.reference;
  j["rows"] = nlohmann::ordered_json::array();
  for (const Row& row : r.rows) {
    nlohmann::ordered_json o = {{"variant", row.variant}, {"size", row.size},
                                {"median_ms", row.median_ms}, {"min_ms", row.min_ms},
                                {"max_ms", row.max_ms}, {"value", row.value},
                                {"ratio", row.ratio}, {"validated", row.validated},
                                {"check", row.check}};
    for (auto it = row.extra.begin(); it != row.extra.end(); ++it) o[it.key()] = it.value();
    j["rows"].push_back(std::move(o));
  }
  j["notes"] = r.notes;
  j["plot"] = {{"kind", r.plot.kind}, {"title", r.plot.title.empty() ? r.title : r.plot.title},
               {"xlabel", r.plot.xlabel}, {"ylabel", r.plot.ylabel.empty() ? r.unit : r.plot.ylabel},
               {"logy", r.plot.logy}, {"series", r.plot.series}, {"references", r.plot.references}};
  for (auto it = r.extra.begin(); it != r.extra.end(); ++it) j[it.key()] = it.value();
  return j;
}

}  // namespace strata::lab

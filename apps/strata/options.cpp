// Option parsing shared by the CLI verbs.
#include "apps/strata/options.hpp"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <sstream>

#include "strata/atomic_file.hpp"

#include "strata/device.hpp"
#include "strata/error.hpp"
#include "strata/tuning.hpp"

namespace strata::cli {

namespace {

std::string fmt(double v) {
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char b[32];
  std::snprintf(b, sizeof b, "%g", v);
  return b;
}

// The whole text as one number, or nullopt.
std::optional<double> to_number(const std::string& text) {
  const auto b = text.find_first_not_of(" \t"), e = text.find_last_not_of(" \t");
  if (b == std::string::npos) return std::nullopt;
  const std::string t = text.substr(b, e - b + 1);
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(t.c_str(), &end);
  if (end != t.c_str() + t.size()) return std::nullopt;
  return v;
}

}  // namespace

CLI::Validator number_in(double lo, double hi, bool integer, bool lo_open, bool hi_open, const std::string& word) {
  const std::string range =
      std::string(lo_open ? "(" : "[") + fmt(lo) + ", " + fmt(hi) + (hi_open ? ")" : "]");
  const std::string kind = (word.empty() ? "" : word + " or ") + (integer ? "a whole number" : "a number") + " in " + range;
  return CLI::Validator(
      [=](std::string& text) -> std::string {
        if (!word.empty() && text == word) return {};
        const std::optional<double> v = to_number(text);
        const bool ok = v && std::isfinite(*v) && (!integer || *v == std::floor(*v)) && (lo_open ? *v > lo : *v >= lo) &&
                        (hi_open ? *v < hi : *v <= hi);
        return ok ? std::string() : "must be " + kind + ", got '" + text + "'";
      },
      kind);
}

CLI::Validator number_list() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        try {
          parse_numbers(text, "");
        } catch (const Error& e) {
          return e.what();
        }
        return "";
      },
      "N,N,...");
}

void check_outputs(std::initializer_list<Output> outputs) {
  namespace fs = std::filesystem;
  const auto same = [](const std::string& a, const std::string& b) {
    std::error_code e1, e2;
    if (fs::weakly_canonical(a, e1) == fs::weakly_canonical(b, e2) && !e1 && !e2) return true;
    std::error_code e3;
    return fs::exists(a, e3) && fs::exists(b, e3) && fs::equivalent(a, b, e3) && !e3;
  };
  for (auto o = outputs.begin(); o != outputs.end(); ++o) {
    if (o->path.empty()) continue;
    for (auto p = outputs.begin(); p != o; ++p)
      if (!p->path.empty() && (p->path == o->path || same(p->path, o->path)))
        throw Error(std::string(p->option) + " and " + o->option + " name the same file '" + o->path +
                    "': one would overwrite the other; give each its own path");
    io::check_output(o->path);
  }
}

std::vector<double> parse_numbers(const std::string& text, const std::string& what) {
  const std::string head = what.empty() ? "" : what + ": ";
  if (text.find_first_not_of(" \t") == std::string::npos)
    throw Error(head + "empty list (give comma-separated numbers, or leave the option out)");
  std::vector<double> out;
  std::size_t start = 0;
  while (true) {  // every item, the one after a trailing comma included
    const std::size_t comma = text.find(',', start);
    const std::string item = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    const std::optional<double> v = to_number(item);
    if (!v)
      throw Error(head + "'" + item + "' " + (item.find_first_not_of(" \t") == std::string::npos ? "is an empty item" : "is not a number") +
                  " in '" + text + "' (expected a comma-separated list of numbers)");
    out.push_back(*v);  // finiteness is the stencil's check, with its own message
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

Extent parse_shape(const std::string& text) {
  const auto v = parse_numbers(text, "shape '" + text + "'");
  for (double d : v)
    if (!(d >= 1 && d <= 1 << 20 && d == std::floor(d)))
      throw Error("shape '" + text + "': every size must be a whole number >= 1");
  if (v.size() == 1) return {int(v[0]), int(v[0]), int(v[0])};
  if (v.size() == 3) return {int(v[0]), int(v[1]), int(v[2])};
  throw Error("shape '" + text + "': give N (a cube) or NX,NY,NZ");
}

Precision parse_precision(const std::string& text) {
  if (text == "f32" || text == "float32" || text == "float") return Precision::f32;
  if (text == "f64" || text == "float64" || text == "double") return Precision::f64;
  throw Error("unknown precision '" + text + "': allowed f32, f64");
}

std::vector<Precision> parse_precisions(const std::string& text) {
  if (text == "all" || text.empty()) return {Precision::f32, Precision::f64};
  return {parse_precision(text)};
}

DeviceChoice resolve_device(const std::string& text) {
  if (text == "cpu") return DeviceChoice::cpu;
  // A GPU run reads STRATA_TUNE (its launch shapes): a bad value is refused before any work.
  auto gpu = [] {
    tuning::mode();
    return DeviceChoice::cuda;
  };
  if (text == "cuda" || text == "gpu") {
    if (!cuda_available())
      throw Error("--device cuda was requested but no GPU can be used: " + cuda_unavailable_reason());
    return gpu();
  }
  if (text.empty() || text == "auto") return cuda_available() ? gpu() : DeviceChoice::cpu;
  throw Error("unknown device '" + text + "': allowed cpu, cuda (default: cuda when a GPU is visible)");
}

}  // namespace strata::cli

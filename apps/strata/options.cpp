// Option parsing shared by the CLI verbs.
#include "apps/strata/options.hpp"

#include <cmath>
#include <cstdlib>
#include <sstream>

#include "strata/device.hpp"
#include "strata/error.hpp"

namespace strata::cli {

std::vector<double> parse_numbers(const std::string& text, const std::string& what) {
  std::vector<double> out;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ',')) {
    const auto b = item.find_first_not_of(" \t"), e = item.find_last_not_of(" \t");
    const std::string t = b == std::string::npos ? "" : item.substr(b, e - b + 1);
    char* end = nullptr;
    const double v = std::strtod(t.c_str(), &end);
    if (t.empty() || end != t.c_str() + t.size())
      throw Error(what + ": '" + t + "' is not a number (expected a comma-separated list)");
    out.push_back(v);  // finiteness is the stencil's check, with its own message
  }
  if (out.empty()) throw Error(what + ": empty list");
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
  if (text == "cuda" || text == "gpu") {
    if (!cuda_available())
      throw Error("--device cuda was requested but no GPU can be used: " + cuda_unavailable_reason());
    return DeviceChoice::cuda;
  }
  if (text.empty() || text == "auto") return cuda_available() ? DeviceChoice::cuda : DeviceChoice::cpu;
  throw Error("unknown device '" + text + "': allowed cpu, cuda (default: cuda when a GPU is visible)");
}

}  // namespace strata::cli

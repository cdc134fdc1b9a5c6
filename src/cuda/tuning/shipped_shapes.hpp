// The launch shapes shipped with strata per GPU model: what a device of that model runs
// without measuring (STRATA_TUNE=off or cached, or auto where the row was measured on that
// very model), and what the nearest model's devices fall back to. The table itself is in
// shipped_shapes.cpp; `strata tune` prints a row in its format, so filling one is one edit.
#pragma once

#include <map>
#include <span>
#include <string>
#include <string_view>

namespace strata::tuning {

struct ShippedRow {
  const char* device;    // the GPU's name as CUDA reports it (cudaDeviceProp::name)
  const char* model;     // a word of the name that the row also serves ("H100"), as nearest
  const char* measured;  // how, where and when the shapes were measured; "" = not yet on this model
  const char* shapes;    // "family=variant" for every tuned family, separated by white space
};

std::span<const ShippedRow> shipped_rows();

// The row for a device: the row of its exact name, else the first whose model is a word of
// the name ("H100" in "NVIDIA H100 PCIe", not "H200" in "NVIDIA GH200 480GB"), else none.
struct ShippedMatch {
  const ShippedRow* row = nullptr;
  bool exact = false;  // the row names this device and was measured on it
};
ShippedMatch match_shipped(std::string_view device_name,
                           std::span<const ShippedRow> rows = shipped_rows());

// family -> variant of a row's shapes; throws Error for a token that is not family=variant or
// a family named twice.
std::map<std::string, std::string> parse_shapes(std::string_view shapes);

// A row as C++ source for shipped_shapes.cpp, lines within 100 columns.
std::string format_row(std::string_view device, std::string_view model, std::string_view measured,
                       const std::map<std::string, std::string>& shapes);

}  // namespace strata::tuning

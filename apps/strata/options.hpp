// Parsing shared by the verbs: number lists, shapes, precisions and the device choice,
// each failing with a message that says what is allowed.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "strata/field.hpp"

namespace strata::cli {

std::vector<double> parse_numbers(const std::string& text, const std::string& what);
Extent parse_shape(const std::string& text);  // "NX,NY,NZ" or "N" (cube)
Precision parse_precision(const std::string& text);
std::vector<Precision> parse_precisions(const std::string& text);  // f32 | f64 | all

enum class DeviceChoice { cpu, cuda };
// "cpu", "cuda" or "" (default: cuda when a GPU is visible, else cpu). Asking for cuda
// without one is an error that says why there is none.
DeviceChoice resolve_device(const std::string& text);
inline const char* to_string(DeviceChoice d) { return d == DeviceChoice::cpu ? "cpu" : "cuda"; }

}  // namespace strata::cli

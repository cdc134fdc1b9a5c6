// The tuned families: one per stencil kernel of the registry and precision, and the wave
// update at radius 4 ("wave4"), each with its candidate shapes by name (the policy first;
// tuning/stencil_candidates.hpp, wave_policy.hpp). Plain C++, in every build: the cache, the
// shipped table and `strata info` speak in these names.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "strata/field.hpp"

namespace strata::tuning {

struct FamilySpec {
  std::string name;    // "<kernel>.<precision>": "7pt.f32"
  std::string kernel;  // the registry's kernel name ("copy", "7pt", ...) or "wave4"
  Precision precision = Precision::f32;
  std::vector<std::string> variants;  // candidate shapes; variants[0] is the policy
  bool has(std::string_view variant) const;
};

// Every tuned family: the stencil kernels in the registry's order, then wave4; f32, then f64.
const std::vector<FamilySpec>& tuned_families();
// The family of that name, or nullptr.
const FamilySpec* find_family(std::string_view name);
std::string family_name(std::string_view kernel, Precision precision);
// "copy.f32, copy_halo.f32, ...": for messages.
std::string family_list();

}  // namespace strata::tuning

// The tuned families, from the candidate lists (tuning/stencil_candidates.hpp, wave_policy.hpp).
#include "cuda/tuning/families.hpp"

#include <algorithm>

#include "cuda/tuning/stencil_candidates.hpp"
#include "cuda/tuning/wave_policy.hpp"

namespace strata::tuning {

namespace {

// The registry's stencil kernels, in its order (src/cuda/stencil/registry.cpp).
constexpr const char* kKernels[] = {"copy",  "copy_halo", "7pt",   "star2",
                                    "star3", "star4",     "sym27", "box27"};

template <class T>
void add_families(std::vector<FamilySpec>& out) {
  for (const char* kernel : kKernels) {
    FamilySpec f{family_name(kernel, precision_of<T>), kernel, precision_of<T>, {}};
    cuda::with_candidates<T>(kernel, [&](auto list) { f.variants = decltype(list)::names(); });
    out.push_back(std::move(f));
  }
  // The wave solver's leapfrog update at radius 4 (its default order; other radii run their
  // policy).
  out.push_back({family_name("wave4", precision_of<T>), "wave4", precision_of<T>,
                 cuda::WaveCandidates<T>::radius4::names()});
}

}  // namespace

bool FamilySpec::has(std::string_view variant) const {
  return std::find(variants.begin(), variants.end(), variant) != variants.end();
}

const std::vector<FamilySpec>& tuned_families() {
  static const std::vector<FamilySpec> all = [] {
    std::vector<FamilySpec> v;
    add_families<float>(v);
    add_families<double>(v);
    return v;
  }();
  return all;
}

const FamilySpec* find_family(std::string_view name) {
  for (const FamilySpec& f : tuned_families())
    if (f.name == name) return &f;
  return nullptr;
}

std::string family_name(std::string_view kernel, Precision precision) {
  return std::string(kernel) + "." + to_string(precision);
}

std::string family_list() {
  std::string s;
  for (const FamilySpec& f : tuned_families()) s += (s.empty() ? "" : ", ") + f.name;
  return s;
}

}  // namespace strata::tuning

// The GPU's side of tuning (src/cuda/stencil/tuning.cu): the device key and the timers of the
// tuned families' candidates for the tuner in tuning/tuner.hpp, and the lookup every tuned
// launcher makes: the variant tuning chose for a family on the current device.
#pragma once

#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <utility>

#include "cuda/check.hpp"
#include "cuda/tuning/choice.hpp"

namespace strata::cuda {

// The tuner's view of the GPU (its key, the timers of the candidates).
const tuning::DeviceOps& tuning_ops();

// Whether work queued on `stream` is being captured into a graph (then nothing is measured).
bool stream_capturing(void* stream);

// The variant tuning chose for `family` on the current device: `find` maps a shape's name to
// the caller's compiled variant. Kept per device until the tuner's generation changes, so a
// launch after the first costs a lock and a map lookup.
template <class V>
const V& chosen_variant(const std::string& family, void* stream,
                        const std::function<const V*(const std::string&)>& find) {
  static std::mutex m;
  static std::map<std::pair<int, std::string>, std::pair<const V*, int>> known;
  int device = 0;
  STRATA_CUDA_CHECK(cudaGetDevice(&device));
  const int generation = tuning::generation();
  const std::pair<int, std::string> at{device, family};
  {
    std::lock_guard<std::mutex> lock(m);
    if (const auto it = known.find(at); it != known.end() && it->second.second == generation)
      return *it->second.first;
  }
  const tuning::Resolved r =
      tuning::resolve(tuning_ops(), device, family, !stream_capturing(stream), stream);
  const V* v = find(r.variant);
  require(v != nullptr,
          "internal: tuning chose " + r.variant + " for " + family + ", which is not compiled");
  if (r.remembered) {
    std::lock_guard<std::mutex> lock(m);
    known[at] = {v, generation};
  }
  return *v;
}

}  // namespace strata::cuda

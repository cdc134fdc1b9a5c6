// Tuning in a build without CUDA: there is no GPU to measure or describe. The modes, the cache
// and the notes (src/cuda/tuning/*.cpp, plain C++) are in every build.
#include "strata/error.hpp"
#include "strata/tuning.hpp"

namespace strata::tuning {

DeviceStatus device_status(int) {
  throw Error("strata was built without CUDA: there is no GPU whose launch shapes to describe");
}

TuneReport tune(const TuneOptions&, const std::function<void(const FamilyTiming&)>&) {
  throw Error(
      "strata was built without CUDA: tuning measures the GPU's kernels, and there is none");
}

}  // namespace strata::tuning

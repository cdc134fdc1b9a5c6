// The copy rate (dispatch/copy_rate.hpp): validated here, timed by the CUDA backend.
#include "dispatch/copy_rate.hpp"

#include "backend/copy_rate.hpp"
#include "dispatch/backend.hpp"
#include "strata/error.hpp"

namespace strata {

template <class T>
double copy_gb_per_s(const Field<T>& in, Field<T>& out, Stream stream) {
  require(!in.empty() && !out.empty() && in.data() != out.data(),
          "copy_gb_per_s: in and out must be distinct, non-empty fields");
  require(in.extent() == out.extent() && in.ghost() == out.ghost(),
          "copy_gb_per_s: in and out must have the same extent and ghost width");
  require(in.memory() == Memory::device && out.memory() == Memory::device,
          "copy_gb_per_s: the copy rate is measured on device fields only (the GPU's copy kernel)");
  constexpr int kWarmup = 1, kReps = 5;
  double ms = 0;
  on_device_only(
      [&](auto tag) { ms = time_copy_kernel_ms(tag, in, out, stream.handle, kWarmup, kReps); },
      "strata was built without CUDA: the GPU's copy rate cannot be measured");
  return 2.0 * sizeof(T) * double(in.extent().points()) / (ms * 1e-3) / 1e9;
}

template double copy_gb_per_s(const Field<float>&, Field<float>&, Stream);
template double copy_gb_per_s(const Field<double>&, Field<double>&, Stream);

}  // namespace strata

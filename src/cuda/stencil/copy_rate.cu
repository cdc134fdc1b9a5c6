// The copy kernel timed with CUDA events (backend/copy_rate.hpp): the "copy" implementation
// this device runs (the shape tuning chose), so the yardstick is the kernel `strata bench` times.
#include <algorithm>

#include "backend/copy_rate.hpp"
#include "cuda/check.hpp"
#include "cuda/stencil/registry.hpp"

namespace strata::cuda {

template <class T>
double time_copy_kernel_ms(Tag, const Field<T>& in, Field<T>& out, void* stream, int warmup,
                           int reps) {
  const auto& copy = chosen_impl<T>("copy", stream);
  const cudaStream_t st = static_cast<cudaStream_t>(stream);
  cudaEvent_t e0, e1;
  STRATA_CUDA_CHECK(cudaEventCreate(&e0));
  STRATA_CUDA_CHECK(cudaEventCreate(&e1));
  float best = 1e30f;
  for (int rep = 0; rep < warmup + reps; ++rep) {
    STRATA_CUDA_CHECK(cudaEventRecord(e0, st));
    copy.launch(nullptr, in, out, stream, 0, {});
    STRATA_CUDA_CHECK(cudaEventRecord(e1, st));
    STRATA_CUDA_CHECK(cudaEventSynchronize(e1));
    float ms = 0;
    STRATA_CUDA_CHECK(cudaEventElapsedTime(&ms, e0, e1));
    if (rep >= warmup) best = std::min(best, ms);
  }
  STRATA_CUDA_CHECK(cudaEventDestroy(e0));
  STRATA_CUDA_CHECK(cudaEventDestroy(e1));
  return double(best);
}

template double time_copy_kernel_ms(Tag, const Field<float>&, Field<float>&, void*, int, int);
template double time_copy_kernel_ms(Tag, const Field<double>&, Field<double>&, void*, int, int);

}  // namespace strata::cuda

// Owned CUDA streams and events (freed with their owner) and the two kinds the backends make:
// a non-blocking stream, ordered against the default one by events alone, and an untimed
// event for that ordering.
#pragma once

#include <cuda_runtime.h>

#include <memory>
#include <type_traits>

#include "cuda/check.hpp"

namespace strata::cuda {

struct StreamDelete {
  void operator()(cudaStream_t s) const noexcept { cudaStreamDestroy(s); }
};
struct EventDelete {
  void operator()(cudaEvent_t e) const noexcept { cudaEventDestroy(e); }
};
using StreamPtr = std::unique_ptr<std::remove_pointer_t<cudaStream_t>, StreamDelete>;
using EventPtr = std::unique_ptr<std::remove_pointer_t<cudaEvent_t>, EventDelete>;

inline StreamPtr make_side_stream() {
  cudaStream_t s = nullptr;
  STRATA_CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  return StreamPtr(s);
}
inline EventPtr make_order_event() {
  cudaEvent_t e = nullptr;
  STRATA_CUDA_CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
  return EventPtr(e);
}

}  // namespace strata::cuda

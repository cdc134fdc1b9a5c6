// Owned CUDA streams and events (freed with their owner) and the kinds the backends make: a
// non-blocking stream, ordered against the default one by events alone (at the default or the
// greatest priority), and an untimed event for that ordering.
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
// The same at the device's greatest priority: its blocks are dispatched first wherever an SM
// has room, so short latency-bound kernels on it run beside a long one on the default stream
// instead of after all of its blocks.
inline StreamPtr make_urgent_side_stream() {
  int least = 0, greatest = 0;
  STRATA_CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
  cudaStream_t s = nullptr;
  STRATA_CUDA_CHECK(cudaStreamCreateWithPriority(&s, cudaStreamNonBlocking, greatest));
  return StreamPtr(s);
}
inline EventPtr make_order_event() {
  cudaEvent_t e = nullptr;
  STRATA_CUDA_CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
  return EventPtr(e);
}

}  // namespace strata::cuda

// Stream: where device work is enqueued. An opaque CUDA stream handle (a cudaStream_t passed
// as Stream{handle}; {} is the default stream), so public headers need no CUDA headers.
// Host work ignores it. Every API that may run on the device takes one.
#pragma once

namespace strata {

struct Stream {
  void* handle = nullptr;
};

}  // namespace strata

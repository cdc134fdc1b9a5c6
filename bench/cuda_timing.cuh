// Event timing for the GPU benchmarks (the only place they create events), and the
// deterministic device fill they time on.
#pragma once

#include <cuda_runtime.h>

#include <vector>

#include "bench/bench.hpp"
#include "cuda/check.hpp"

namespace strata::bench {

// How the timed launches follow each other. queued: back to back on the stream, one event
// pair around each (the steady-state rate of a pipeline of passes). each: the stream is
// drained after every launch, so each time is that call alone from an idle device (the
// reductions, whose result the caller waits for).
enum class Pace { queued, each };

// The one GPU timer of the benchmarks: `warmup` untimed launches, then `reps` timed ones,
// one event pair around each (no host work inside a timed region); median and spread.
template <class Launch>
Timing time_launches(Launch&& launch, int warmup, int reps, cudaStream_t stream,
                     Pace pace = Pace::queued) {
  for (int i = 0; i < warmup; ++i) launch();
  if (pace == Pace::each) STRATA_CUDA_CHECK(cudaStreamSynchronize(stream));
  std::vector<cudaEvent_t> ev(2 * std::size_t(reps));
  for (auto& e : ev) STRATA_CUDA_CHECK(cudaEventCreate(&e));
  for (int r = 0; r < reps; ++r) {
    STRATA_CUDA_CHECK(cudaEventRecord(ev[2 * r], stream));
    launch();
    STRATA_CUDA_CHECK(cudaEventRecord(ev[2 * r + 1], stream));
    if (pace == Pace::each) STRATA_CUDA_CHECK(cudaEventSynchronize(ev[2 * r + 1]));
  }
  STRATA_CUDA_CHECK(cudaStreamSynchronize(stream));
  std::vector<double> ms(reps);
  for (int r = 0; r < reps; ++r) {
    float t = 0;
    STRATA_CUDA_CHECK(cudaEventElapsedTime(&t, ev[2 * r], ev[2 * r + 1]));
    ms[r] = t;
  }
  for (auto& e : ev) STRATA_CUDA_CHECK(cudaEventDestroy(e));
  return summarize(ms);
}

// Fills n values at p with a deterministic hash of (index, seed) in [-1, 1): fast on a
// large grid, and never zeros (METHOD: never time on zeros).
template <class T>
__global__ void fill_hashed(T* p, std::size_t n, unsigned long long seed) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
       i += std::size_t(gridDim.x) * blockDim.x) {
    unsigned long long x = (i + 1) * 0x9E3779B97F4A7C15ull ^ seed;
    x ^= x >> 30, x *= 0xBF58476D1CE4E5B9ull, x ^= x >> 27, x *= 0x94D049BB133111EBull, x ^= x >> 31;
    p[i] = T(double(x >> 11) * 0x1.0p-52 - 1.0);
  }
}

template <class T>
void fill_device_random(T* p, std::size_t n, unsigned long long seed, cudaStream_t stream) {
  fill_hashed<<<1024, 256, 0, stream>>>(p, n, seed);
  STRATA_CUDA_CHECK_LAUNCH();
}

}  // namespace strata::bench

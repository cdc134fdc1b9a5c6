// Launcher of the pitched box copy (device code in kernels/copy_pitched.cuh): picks the
// widest vector the alignment allows and the 32- or 64-bit index, and gives every vector a
// thread of its own: one block of 256 for each 256 vectors, the hardware's block scheduler
// keeping the SMs full. On an H200 a row copy of strata's 512^3 f32 field so launched ran at
// 0.99 of cudaMemcpy where a grid of 4 blocks of 256 an SM, each thread looping with 4 loads
// in flight, ran at 0.95 (2026-11-29, bench/results/nvidia-h200-copy-probe-blocks.json).
#include <algorithm>
#include <cstdint>
#include <limits>

#include "cuda/check.hpp"
#include "cuda/copy_pitched.hpp"
#include "cuda/kernels/copy_pitched.cuh"

namespace strata::cuda {

namespace {

constexpr int kBlock = 256;
constexpr int kInFlight = 1;

// A thread a vector; past 2^31 - 1 blocks (2^39 vectors) the kernel's grid-stride loop takes
// the rest.
int blocks_for(std::uint64_t count) {
  const std::uint64_t wanted = (count + kBlock - 1) / kBlock;
  return int(std::min<std::uint64_t>(wanted, std::uint64_t(std::numeric_limits<int>::max())));
}

template <class V>
void launch(kernels::PitchedBox b, bool wide_index) {
  b.per_row /= sizeof(V);
  b.count *= b.per_row;
  const int blocks = blocks_for(b.count);
  // The 32-bit path needs every index below 2^31 (FastDiv's range); rows then are too.
  if (!wide_index && b.count < (std::uint64_t(1) << 31)) {
    using D = kernels::FastDiv;
    kernels::copy_pitched<V, std::uint32_t, D, kInFlight><<<blocks, kBlock, 0, cudaStreamLegacy>>>(
        b, D::make(std::uint32_t(b.per_row)), D::make(std::uint32_t(b.height)));
  } else {
    using D = kernels::WideDiv;
    kernels::copy_pitched<V, std::uint64_t, D, kInFlight>
        <<<blocks, kBlock, 0, cudaStreamLegacy>>>(b, D::make(b.per_row), D::make(b.height));
  }
  STRATA_CUDA_CHECK_LAUNCH();
}

}  // namespace

void copy_pitched(void* dst, std::size_t dpitch, std::size_t drows, const void* src,
                  std::size_t spitch, std::size_t srows, std::size_t width, std::size_t height,
                  std::size_t depth, bool wide_index) {
  if (width == 0 || height == 0 || depth == 0) return;
  // per_row holds the width in bytes and count the rows until launch<V> divides by the vector.
  const kernels::PitchedBox b{static_cast<char*>(dst),
                              static_cast<const char*>(src),
                              dpitch,
                              dpitch * drows,
                              spitch,
                              spitch * srows,
                              width,
                              height,
                              std::uint64_t(height) * depth};
  // The plane strides are multiples of the pitches, so they follow the pitches' alignment.
  const std::uintptr_t bits = reinterpret_cast<std::uintptr_t>(dst) |
                              reinterpret_cast<std::uintptr_t>(src) | dpitch | spitch | width;
  if (bits % 16 == 0)
    launch<uint4>(b, wide_index);
  else if (bits % 8 == 0)
    launch<uint2>(b, wide_index);
  else if (bits % 4 == 0)
    launch<unsigned>(b, wide_index);
  else if (bits % 2 == 0)
    launch<unsigned short>(b, wide_index);
  else
    launch<unsigned char>(b, wide_index);
  // cudaMemcpy3D's callers read or hand on the result at once (host reads, kernels on
  // non-blocking streams): return only when the copy is done, as before.
  STRATA_CUDA_CHECK(cudaStreamSynchronize(cudaStreamLegacy));
}

}  // namespace strata::cuda

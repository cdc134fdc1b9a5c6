// Device code of the pitched box copy (cuda/copy_pitched.cu): the box is walked in row order
// as one flat run of vectors (row within all planes, vector within row), grid-stride, with K
// loads in flight per thread before the stores (the launcher gives each vector a thread of
// its own, K = 1); that order keeps DRAM on whole rows.
#pragma once

#include <cstddef>
#include <cstdint>

namespace strata::cuda::kernels {

// A box of `count` vectors: `per_row` vectors a row, `height` rows a plane; offsets in bytes.
struct PitchedBox {
  char* dst;
  const char* src;
  std::size_t dpitch, dplane, spitch, splane;
  std::uint64_t per_row, height, count;
};

// n / d and n % d for 0 <= n < 2^31 by a multiply-high and a shift (Granlund-Montgomery;
// t <= n, so t + n cannot wrap): a 32-bit division is some twenty instructions a vector.
struct FastDiv {
  std::uint32_t d, mul, shift;
  static FastDiv make(std::uint32_t d) {  // 1 <= d < 2^31
    std::uint32_t s = 0;
    while ((std::uint64_t(1) << s) < d) ++s;
    const std::uint64_t m = ((std::uint64_t(1) << 32) * ((std::uint64_t(1) << s) - d)) / d + 1;
    return {d, std::uint32_t(m), s};
  }
  __device__ __forceinline__ void divmod(std::uint32_t n, std::uint32_t& q,
                                         std::uint32_t& r) const {
    q = (__umulhi(n, mul) + n) >> shift;
    r = n - q * d;
  }
};

// Boxes of 2^31 vectors or more: plain 64-bit division (2 GiB of bytes, 32 GiB of 16-byte
// vectors; rare enough that its cost does not matter).
struct WideDiv {
  std::uint64_t d;
  static WideDiv make(std::uint64_t d) { return {d}; }
  __device__ __forceinline__ void divmod(std::uint64_t n, std::uint64_t& q,
                                         std::uint64_t& r) const {
    q = n / d;
    r = n - q * d;
  }
};

// V: the vector moved (uint4 for 16 bytes down to unsigned char); I: the index type that
// Div divides. src and dst must not overlap (the loads go through the read-only path).
template <class V, class I, class Div, int K>
__global__ void copy_pitched(PitchedBox b, Div per_row, Div per_plane) {
  const I count = I(b.count);
  const I stride = I(gridDim.x) * blockDim.x;
  for (I i = I(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += K * stride) {
    V v[K];
    std::size_t to[K];
#pragma unroll
    for (int k = 0; k < K; ++k) {
      const I e = i + k * stride;
      if (e >= count) continue;
      I row, x, z, y;
      per_row.divmod(e, row, x);
      per_plane.divmod(row, z, y);
      const std::size_t cx = std::size_t(x) * sizeof(V);
      to[k] = std::size_t(z) * b.dplane + std::size_t(y) * b.dpitch + cx;
      v[k] = __ldg(reinterpret_cast<const V*>(b.src + std::size_t(z) * b.splane +
                                              std::size_t(y) * b.spitch + cx));
    }
#pragma unroll
    for (int k = 0; k < K; ++k)
      if (i + k * stride < count) *reinterpret_cast<V*>(b.dst + to[k]) = v[k];
  }
}

}  // namespace strata::cuda::kernels

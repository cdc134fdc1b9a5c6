// Device code of the multigrid passes: the epilogues that fuse a smoothing step or a
// residual into the 2.5D stencil pass, and the grid-transfer, dense-solve and conversion
// kernels. Fields of one level share a layout, so one offset indexes all of them.
#pragma once

#include <cstdint>

#include "core/poisson/ops.hpp"

namespace strata::cuda::kernels {

// The fused epilogues read their auxiliary fields through the prefetch interface of
// stencil_25d.cuh (load one plane ahead, then combine).

// out = u + w (f - A u)                                    (weighted Jacobi, w = omega/diag)
template <class T>
struct JacobiEpilogue {
  static constexpr bool needs_centre = true;
  using Aux = T;
  const T* f;
  T w;
  __device__ __forceinline__ Aux load(std::int64_t off) const { return f[off]; }
  __device__ __forceinline__ T operator()(T s, T u, Aux fv, std::int64_t) const { return u + w * (fv - s); }
};

// out = u + alpha (u - prev) + beta (f - A u), written over prev     (one Chebyshev step in
// three-term form: 4 values per point; each point of prev is read, then written, by the
// thread that owns it)
template <class T>
struct ChebyshevEpilogue {
  static constexpr bool needs_centre = true;
  struct Aux {
    T f, prev;
  };
  const T* f;
  const T* prev;
  T alpha, beta;
  __device__ __forceinline__ Aux load(std::int64_t off) const { return {f[off], prev[off]}; }
  __device__ __forceinline__ T operator()(T s, T u, Aux a, std::int64_t) const {
    return u + alpha * (u - a.prev) + beta * (a.f - s);
  }
};

// r = f - A u
template <class T>
struct ResidualEpilogue {
  static constexpr bool needs_centre = false;
  using Aux = T;
  const T* f;
  __device__ __forceinline__ Aux load(std::int64_t off) const { return f[off]; }
  __device__ __forceinline__ T operator()(T s, T, Aux fv, std::int64_t) const { return fv - s; }
};

struct Geometry {  // interior shape and strides of a field
  int nx, ny, nz;
  std::int64_t pitch, plane;
};

// fc(x, y, z) = sum over the separable restriction weights of r (one thread per coarse
// point). The tables have no holes (unused taps weigh 0), so the unrolled loops issue
// every load up front: the kernel was latency-bound on branchy table lookups.
template <class T>
__global__ void restrict_kernel(poisson::TransferView<T> t, const T* __restrict__ r, Geometry gf,
                                T* __restrict__ fc, Geometry gc) {
  constexpr int K = poisson::TransferView<T>::kMaxFine;
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y, z = blockIdx.z;
  if (x >= gc.nx) return;
  int ix[K], iy[K], iz[K];
  T wx[K], wy[K], wz[K];
#pragma unroll
  for (int k = 0; k < K; ++k) {
    ix[k] = __ldg(t.r_idx[0] + K * x + k), wx[k] = __ldg(t.r_w[0] + K * x + k);
    iy[k] = __ldg(t.r_idx[1] + K * y + k), wy[k] = __ldg(t.r_w[1] + K * y + k);
    iz[k] = __ldg(t.r_idx[2] + K * z + k), wz[k] = __ldg(t.r_w[2] + K * z + k);
  }
  T acc = 0;
#pragma unroll
  for (int c = 0; c < K; ++c)
#pragma unroll
    for (int b = 0; b < K; ++b) {
      const T* row = r + iz[c] * gf.plane + iy[b] * gf.pitch;
      T part = 0;
#pragma unroll
      for (int a = 0; a < K; ++a) part += wx[a] * __ldg(row + ix[a]);
      acc += wz[c] * wy[b] * part;
    }
  fc[z * gc.plane + y * gc.pitch + x] = acc;
}

// u(x, y, z) += trilinear interpolation of the coarse correction (one thread per fine point)
template <class T>
__global__ void prolong_kernel(poisson::TransferView<T> t, const T* __restrict__ ec, Geometry gc,
                               T* __restrict__ u, Geometry gf) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y, z = blockIdx.z;
  if (x >= gf.nx) return;
  T* p = u + z * gf.plane + y * gf.pitch + x;
  const T old = *p;  // issued first: independent of the table lookups
  T acc = 0;
#pragma unroll
  for (int c = 0; c < 2; ++c)
#pragma unroll
    for (int b = 0; b < 2; ++b) {
      const T* row = ec + __ldg(t.p_idx[2] + 2 * z + c) * gc.plane + __ldg(t.p_idx[1] + 2 * y + b) * gc.pitch;
      const T wzy = __ldg(t.p_w[2] + 2 * z + c) * __ldg(t.p_w[1] + 2 * y + b);
#pragma unroll
      for (int a = 0; a < 2; ++a) acc += wzy * __ldg(t.p_w[0] + 2 * x + a) * __ldg(row + __ldg(t.p_idx[0] + 2 * x + a));
    }
  *p = old + acc;
}

// u += M r on the coarsest grid: the block loads r (C order) into shared memory, each warp
// computes rows of M r with a shuffle reduction. M is N x N row-major, N <= 512.
template <class T>
__global__ void dense_correct_kernel(const T* __restrict__ m, const T* __restrict__ r, T* __restrict__ u,
                                     Geometry g) {
  __shared__ T rv[512];
  const int N = g.nx * g.ny * g.nz;
  for (int i = threadIdx.x; i < N; i += blockDim.x) {
    const int x = i % g.nx, y = (i / g.nx) % g.ny, z = i / (g.nx * g.ny);
    rv[i] = r[z * g.plane + y * g.pitch + x];
  }
  __syncthreads();
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, warps = blockDim.x / 32;
  for (int row = blockIdx.x * warps + warp; row < N; row += gridDim.x * warps) {
    T acc = 0;
    for (int j = lane; j < N; j += 32) acc += m[std::int64_t(row) * N + j] * rv[j];
#pragma unroll
    for (int o = 16; o > 0; o /= 2) acc += __shfl_xor_sync(0xffffffffu, acc, o);
    if (lane == 0) {
      const int x = row % g.nx, y = (row / g.nx) % g.ny, z = row / (g.nx * g.ny);
      u[z * g.plane + y * g.pitch + x] += acc;
    }
  }
}

template <class D, class S>
__global__ void convert_kernel(const S* __restrict__ src, Geometry gs, D* __restrict__ dst, Geometry gd) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y, z = blockIdx.z;
  if (x < gs.nx) dst[z * gd.plane + y * gd.pitch + x] = D(src[z * gs.plane + y * gs.pitch + x]);
}

}  // namespace strata::cuda::kernels

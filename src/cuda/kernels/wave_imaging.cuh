// Device code of the imaging condition (cuda/wave/adjoint.cu, backend/wave_adjoint.hpp's
// begin_imaging .. correlate): per grid point, in the dense [z][y][x] order of the sums, the
// wave fields read through their ghost-layer layout. Every product and difference is rounded
// as the CPU's (no contraction into fused multiply-adds), so the sums are the CPU's given the
// same fields: illumination += u^2; correlation += lambda * second, second = next - 2 now +
// prev (less, at the sources' points, their injection, source by source), lambda = q / c2.
// One pass over memory each; the correlation's is a pass of its own beside the adjoint's step
// (issue 40 asks for it fused into the step: not yet).
#pragma once

#include <cstdint>

namespace strata::cuda::kernels {

// The grid and the wave fields' layout (ghosts included): a dense index's field offset.
struct ImagingGrid {
  int nx = 0, ny = 0, nz = 0;
  std::int64_t pitch = 0, plane = 0;
  __host__ __device__ std::int64_t points() const { return std::int64_t(nx) * ny * nz; }
  __device__ std::int64_t offset(std::int64_t i) const {
    const std::int64_t x = i % nx, r = i / nx;
    return (r / ny) * plane + (r % ny) * pitch + x;
  }
};

// The pass over every point (image_points' launch shape: threads along x, blockIdx.y and its
// strides over the rows (y, z)): f(dense index, field offset), without offset()'s three 64-bit
// divisions per point (each a long subroutine on the GPU: estimated, not measured, to cost
// about as much as the pass's memory traffic at 512^3). The sums at a point still run in time
// order, so the bits are the same.
constexpr int kImageThreads = 256;

template <class F>
__device__ __forceinline__ void each_point(const ImagingGrid& g, F&& f) {
  const int x = int(blockIdx.x) * kImageThreads + int(threadIdx.x);
  if (x >= g.nx) return;
  const int rows = g.ny * g.nz;
  for (int r = int(blockIdx.y); r < rows; r += int(gridDim.y)) {
    const int z = r / g.ny, y = r - z * g.ny;
    f(std::int64_t(r) * g.nx + x, std::int64_t(z) * g.plane + std::int64_t(y) * g.pitch + x);
  }
}

template <class T>
__global__ void image_illuminate(const T* __restrict__ u, ImagingGrid g, double* __restrict__ ill) {
  each_point(g, [&](std::int64_t i, std::int64_t o) {
    const double v = double(u[o]);
    ill[i] = __dadd_rn(ill[i], __dmul_rn(v, v));
  });
}

template <class T>
__global__ void image_keep(const T* __restrict__ u, ImagingGrid g, T* __restrict__ next) {
  each_point(g, [&](std::int64_t i, std::int64_t o) { next[i] = u[o]; });
}

__device__ __forceinline__ double second_difference(double next, double now, double prev) {
  return __dadd_rn(__dsub_rn(next, __dmul_rn(2.0, now)), prev);
}

// The sources' points first (one thread each, its taps in source order), while `next` still
// holds the later state; `mask` marks them for the pass over every point, which leaves them.
template <class T>
__global__ void image_correlate_sources(const T* __restrict__ now, const T* __restrict__ prev,
                                        const T* __restrict__ q, const T* __restrict__ c2,
                                        const T* __restrict__ next, ImagingGrid g,
                                        const std::int64_t* __restrict__ dense,
                                        const int* __restrict__ first, const int* __restrict__ src,
                                        const double* __restrict__ w,
                                        const double* __restrict__ amps, int points,
                                        double* __restrict__ corr) {
  const int k = int(blockIdx.x) * int(blockDim.x) + int(threadIdx.x);
  if (k >= points) return;
  const std::int64_t i = dense[k], o = g.offset(i);
  double second = second_difference(double(next[i]), double(now[o]), double(prev[o]));
  for (int t = first[k]; t < first[k + 1]; ++t)
    second = __dsub_rn(second, __dmul_rn(w[t], amps[src[t]]));
  const double lambda = double(q[o]) / double(c2[o]);
  corr[i] = __dadd_rn(corr[i], __dmul_rn(lambda, second));
}

template <class T>
__global__ void image_correlate(const T* __restrict__ now, const T* __restrict__ prev,
                                const T* __restrict__ q, const T* __restrict__ c2,
                                const unsigned char* __restrict__ mask, ImagingGrid g,
                                T* __restrict__ next, double* __restrict__ corr) {
  each_point(g, [&](std::int64_t i, std::int64_t o) {
    const T v = now[o];
    if (!mask[i]) {
      const double lambda = double(q[o]) / double(c2[o]);
      corr[i] = __dadd_rn(corr[i], __dmul_rn(lambda, second_difference(double(next[i]), double(v),
                                                                       double(prev[o]))));
    }
    next[i] = v;
  });
}

// Boundary saving's ring: u's values at the ring's points (field offsets) into a row, and
// back (row == nullptr: zeros).
template <class T>
__global__ void ring_gather(const T* __restrict__ u, const std::int64_t* __restrict__ off,
                            std::int64_t points, T* __restrict__ row) {
  const std::int64_t stride = std::int64_t(gridDim.x) * blockDim.x;
  for (std::int64_t k = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; k < points;
       k += stride)
    row[k] = u[off[k]];
}

template <class T>
__global__ void ring_scatter(T* __restrict__ u, const std::int64_t* __restrict__ off,
                             std::int64_t points, const T* __restrict__ row) {
  const std::int64_t stride = std::int64_t(gridDim.x) * blockDim.x;
  for (std::int64_t k = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; k < points;
       k += stride)
    u[off[k]] = row ? row[k] : T(0);
}

}  // namespace strata::cuda::kernels

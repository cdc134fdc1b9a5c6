// Device code of the imaging condition (cuda/wave/adjoint.cu, backend/wave_adjoint.hpp's
// begin_imaging .. correlate): per grid point, the wave fields read through their ghost-layer
// layout, the illumination dense [z][y][x], `next` and the correlation in the fields' layout. Every
// product and difference is rounded as the CPU's (no contraction into fused multiply-adds), so the
// sums are the CPU's given the same fields: illumination += u^2; correlation += lambda * second,
// second = next - 2 now + prev (less, at the sources' points, their injection, source by source),
// lambda = q / c2 (lambda_of: q times c2's reciprocal). The correlation is a pass of its own
// (image_correlate: `next`, now and prev read again), or fused into a step: with checkpointing
// into the adjoint's step back (AdjointCorrelate: the step holds q and c2), with boundary saving
// into the forward field's step run backward (LeapfrogCorrelate below: the step already holds
// u_{m+1}, u_m and c2 and makes u_{m-1}, so the correlation costs q and the sum), the rest of
// the box the points that step's interior update does not write and the sources'
// (image_correlate_rest). The sum is kept in the fields' layout (ghosts included), indexed by
// the same offset as the fields, in the fields' precision T (add_term): in f64 it is the whole
// sum; in f32 the sum of a block of kImageBlockSteps steps, added into a double total of the
// same layout at the block's end (image_flush), so that a step reads and writes 8 B of sum a
// point instead of 16 (the reversed correlating step 28 B a point instead of 36) and a block's
// rounding in f32 stays within kImageBlockSteps units of its last place.
#pragma once

#include <cstdint>
#include "cuda/kernels/async_copy.cuh"

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

// The steps whose sums an f32 run adds up in f32 before they join the double total: a step
// with n % kImageBlockSteps == 0 ends a block (the backward sweep's last, n = 0, among them);
// for the illumination every kImageBlockSteps-th call of illuminate.
constexpr int kImageBlockSteps = 32;

// One step's product added to a point's sum, in double, rounded to the sum's precision (in
// f64 a double sum, as the CPU's).
template <class T>
__device__ __forceinline__ T add_term(T sum, double term) {
  return T(__dadd_rn(double(sum), term));
}

// A block's end (f32): total += sum, sum = 0, at every point (both in the fields' layout, or
// with `dense` both dense [z][y][x]: the illumination's).
template <class T>
__global__ void image_flush(T* __restrict__ sum, ImagingGrid g, double* __restrict__ total,
                            bool dense) {
  each_point(g, [&](std::int64_t i, std::int64_t o) {
    const std::int64_t k = dense ? i : o;
    total[k] = __dadd_rn(total[k], double(sum[k]));
    sum[k] = T(0);
  });
}

// illumination += u^2, dense [z][y][x], the sum in T as the correlation's (add_term; in f32
// a block of kImageBlockSteps calls, then image_flush with `dense`).
template <class T>
__global__ void image_illuminate(const T* __restrict__ u, ImagingGrid g, T* __restrict__ ill) {
  each_point(g, [&](std::int64_t i, std::int64_t o) {
    const double v = double(u[o]);
    ill[i] = add_term(ill[i], __dmul_rn(v, v));
  });
}

template <class T>
__global__ void image_keep(const T* __restrict__ u, ImagingGrid g, T* __restrict__ next) {
  each_point(g, [&](std::int64_t, std::int64_t o) { next[o] = u[o]; });
}

__device__ __forceinline__ double second_difference(double next, double now, double prev) {
  return __dadd_rn(__dsub_rn(next, __dmul_rn(2.0, now)), prev);
}

// lambda = q / c2 as q times c2's reciprocal (each rounded: within an ulp or so of the
// quotient, the CPU's lambda within the tests' tolerances as before). The double division
// it replaces held the correlating update to its issue rate: in a probe pass over 12 B a
// point (one H200) it took 0.68 ms on random data and 0.82 where q is zero (its fast path
// checks the dividend), against 0.36 with no division and 0.46 with the reciprocal, either
// data; the reversed correlating step took 1.04 ms on random q and 1.31 on zero q, which a
// backward sweep meets wherever the adjoint wave has not yet arrived.
template <class T>
__device__ __forceinline__ double lambda_of(T q, T c2) {
  return __dmul_rn(double(q), __drcp_rn(double(c2)));
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
                                        T* __restrict__ corr, T* __restrict__ saved) {
  const int k = int(blockIdx.x) * int(blockDim.x) + int(threadIdx.x);
  if (k >= points) return;
  const std::int64_t o = g.offset(dense[k]);
  double second = second_difference(double(next[o]), double(now[o]), double(prev[o]));
  for (int t = first[k]; t < first[k + 1]; ++t)
    second = __dsub_rn(second, __dmul_rn(w[t], amps[src[t]]));
  const double lambda = lambda_of(q[o], c2[o]);
  const T sum = add_term(corr[o], __dmul_rn(lambda, second));
  if (saved)
    saved[k] = sum;
  else
    corr[o] = sum;
}

// After a step that correlated every point (AdjointCorrelate): the sources' points get the
// sums image_correlate_sources made for them before it.
template <class S>
__global__ void image_put_saved(ImagingGrid g, const std::int64_t* __restrict__ dense,
                                const S* __restrict__ saved, int points, S* __restrict__ corr) {
  const int k = int(blockIdx.x) * int(blockDim.x) + int(threadIdx.x);
  if (k < points) corr[g.offset(dense[k])] = saved[k];
}

template <class T>
__global__ void image_correlate(const T* __restrict__ now, const T* __restrict__ prev,
                                const T* __restrict__ q, const T* __restrict__ c2,
                                const unsigned char* __restrict__ mask, ImagingGrid g,
                                T* __restrict__ next, T* __restrict__ corr) {
  each_point(g, [&](std::int64_t i, std::int64_t o) {
    const T v = now[o];
    if (!mask[i]) {
      const double lambda = lambda_of(q[o], c2[o]);
      corr[o] = add_term(corr[o], __dmul_rn(lambda, second_difference(double(next[o]), double(v),
                                                                      double(prev[o]))));
    }
    next[o] = v;
  });
}

// The reversed leapfrog step u_{m-1} = 2 u_m - u_{m+1} + c2 Lap u_m (what LeapfrogEpilogue
// stores, to the bit) with the imaging condition at the same point: corr += lambda * second,
// lambda = q / c2, second = (u_{m+1} - 2 u_m) + u_{m-1}, in double and rounded as
// image_correlate's. The loads it adds to the step's (q and the sum, the sum's store) are
// prefetched one output plane ahead with the others. `corr` is offset like the fields. The
// kernel calls it once per point of its region (the sources' points are put right after by
// image_correlate_rest, which restores their sums first).
template <class T, bool kCentreInRegisters, int Ahead = 0>
struct LeapfrogCorrelate {
  static constexpr bool needs_centre = kCentreInRegisters;
  static constexpr int kAhead = Ahead;  // planes beyond the prefetch fetched into L2 (l2_ahead)
  struct Aux {
    T up, c2, u, q, corr;
  };
  const T* u;
  const T* u_prev;  // not __ldg: the buffer being written
  const T* c2;
  const T* q;
  T* corr;
  __device__ __forceinline__ Aux load(std::int64_t off) const {
    Aux a;
    a.up = u_prev[off];
    a.c2 = __ldg(c2 + off);
    a.u = kCentreInRegisters ? T(0) : __ldg(u + off);
    a.q = __ldg(q + off);
    a.corr = corr[off];
    return a;
  }
  __device__ __forceinline__ void touch(std::int64_t off) const {
    prefetch_l2(u_prev + off);
    prefetch_l2(c2 + off);
    prefetch_l2(q + off);
    prefetch_l2(corr + off);
  }
  __device__ __forceinline__ T operator()(T s, T centre, Aux a, std::int64_t off) const {
    const T uc = kCentreInRegisters ? centre : a.u;
    const T out = fma(a.c2, s, T(2) * uc - a.up);
    const double lambda = lambda_of(a.q, a.c2);
    corr[off] = add_term(
        a.corr, __dmul_rn(lambda, second_difference(double(a.up), double(uc), double(out))));
    return out;
  }
};

// Checkpointing's imaging condition inside the adjoint's step back (CudaAdjoint::
// correlate_stepping_back): the step's bulk update of q = c2 lambda, q_{n-1} = 2 q_n - q_{n+1}
// + c2 A q_n (LeapfrogEpilogue's, to the bit), and at the same point image_correlate's
// corr += lambda * ((next - 2 now) + prev), lambda = q_n / c2, then next = now. q_n and c2
// are the step's own loads, so the correlation adds now, prev, next and the sum to them
// (the pass of its own read q and c2 again, and a mask). Every load is a prefetch, used only
// at the store: formed at the prefetch, the second difference waited there for its loads
// (H200: the step slower than step and pass apart). The centre is read again, not kept in
// registers: its queue (R + 1 planes of VY values) is what the prefetched values need (with
// it, the f32 radius-4 tile spilled 24 bytes). At the sources' points the sum stored here is
// replaced by the one image_correlate_sources made before the step (image_put_saved).
// `next` and `corr` are offset like the fields.
template <class T>
struct AdjointCorrelate {
  static constexpr bool needs_centre = false;
  struct Aux {
    T up, c2, q, now, prev, next, corr;
  };
  const T* q;
  const T* q_prev;  // not __ldg: the buffer being written
  const T* c2;
  const T* now;
  const T* prev;
  T* next;
  T* corr;
  __device__ __forceinline__ Aux load(std::int64_t off) const {
    Aux a;
    a.up = q_prev[off];
    a.c2 = __ldg(c2 + off);
    a.q = __ldg(q + off);
    a.now = __ldg(now + off);
    a.prev = __ldg(prev + off);
    a.next = next[off];
    a.corr = corr[off];
    return a;
  }
  __device__ __forceinline__ T operator()(T s, T, Aux a, std::int64_t off) const {
    const double lambda = lambda_of(a.q, a.c2);
    corr[off] = add_term(a.corr, __dmul_rn(lambda, second_difference(double(a.next), double(a.now),
                                                                     double(a.prev))));
    next[off] = a.now;
    return fma(a.c2, s, T(2) * a.q - a.up);
  }
};

// The correlation on the points the fused step leaves (image_correlate_rest's list: the box's
// points outside the step's interior update, and every source point), once u_{m-1} is whole:
// next[k] is u_{m+1} there (gathered before the first step, then left by this pass of the
// step before, below); a point the step did correlate (a
// source inside its region) starts again from saved[k], its sum before the step. Sources'
// injection subtracted tap by tap as image_correlate_sources does. Then what the next step
// would gather before it (image_rest_before): u_m into next[k], the new sum into saved[k]
// (nothing writes either between here and that step, so the pass before it is not needed).
template <class T>
__global__ void image_correlate_rest(const T* __restrict__ now, const T* __restrict__ prev,
                                     const T* __restrict__ q, const T* __restrict__ c2,
                                     const std::int64_t* __restrict__ off, T* __restrict__ next,
                                     T* __restrict__ saved, int redo, const int* __restrict__ first,
                                     const int* __restrict__ src, const double* __restrict__ w,
                                     const double* __restrict__ amps, int points,
                                     T* __restrict__ corr) {
  const int k = int(blockIdx.x) * int(blockDim.x) + int(threadIdx.x);
  if (k >= points) return;
  const std::int64_t o = off[k];
  const T u_m = now[o];
  double second = second_difference(double(next[k]), double(u_m), double(prev[o]));
  for (int t = first[k]; t < first[k + 1]; ++t)
    second = __dsub_rn(second, __dmul_rn(w[t], amps[src[t]]));
  const double lambda = lambda_of(q[o], c2[o]);
  const T sum = add_term(k < redo ? saved[k] : corr[o], __dmul_rn(lambda, second));
  corr[o] = sum;
  next[k] = u_m;
  if (k < redo) saved[k] = sum;
}

// Before the first fused step (or one image_correlate_rest did not precede): u_{m+1} at the
// rest's points, and the sums of those it will redo.
template <class T>
__global__ void image_rest_before(const T* __restrict__ up, const std::int64_t* __restrict__ off,
                                  int points, int redo, const T* __restrict__ corr,
                                  T* __restrict__ next, T* __restrict__ saved) {
  const int k = int(blockIdx.x) * int(blockDim.x) + int(threadIdx.x);
  if (k >= points) return;
  next[k] = up[off[k]];
  if (k < redo) saved[k] = corr[off[k]];
}

// Boundary saving's ring: its points, dense [z][y][x] indices of an nx x ny x nz grid, as
// offsets from a field's interior origin (z plane + y pitch + x). On the host the divisions
// took 0.08 s of a 512^3 shot's set-up (4.8 M points, the H200's host).
template <class Index>
__global__ void ring_offsets(const Index* __restrict__ dense, std::int64_t points, std::int64_t nx,
                             std::int64_t ny, std::int64_t pitch, std::int64_t plane,
                             std::int64_t* __restrict__ off) {
  const std::int64_t stride = std::int64_t(gridDim.x) * blockDim.x;
  for (std::int64_t k = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; k < points;
       k += stride) {
    const std::int64_t i = std::int64_t(dense[k]), row = i / nx, z = row / ny;
    off[k] = z * plane + (row - z * ny) * pitch + (i - row * nx);
  }
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

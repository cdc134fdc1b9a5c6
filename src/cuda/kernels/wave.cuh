// Device code of the acoustic wave solver. The fused leapfrog update is the 2.5D stencil
// kernel (stencil_25d.cuh) with StarOp and the LeapfrogEpilogue below; the rest are small
// kernels whose work is proportional to a face, a layer or a list of points: mirror ghosts,
// the CPML memory updates and corrections, source injection and receiver sampling.
#pragma once

#include <cstdint>
#include <type_traits>

#include "core/wave_ghosts.hpp"

namespace strata::cuda::kernels {

// u+ = 2u - u- + c2 * Lap(u), stored over u-'s buffer. The epilogue's loads (u-, c2 and,
// unless the kernel's register queue supplies it, the centre u) are a prefetching Aux: the
// 2.5D kernel issues them one output plane ahead, so their latency hides behind a plane of
// work instead of stalling every store. kCentreInRegisters: u from the register queue
// ((R + 1) * VY registers); otherwise from global memory, an L2 hit (its plane was loaded R
// planes earlier). Aliasing: `out` may be u-'s own buffer: the thread that owns an output
// point reads u-[off] (one plane ahead) before it stores to off, and no other thread reads
// or writes off, so the in-place update is safe.
template <class T, bool kCentreInRegisters>
struct LeapfrogEpilogue {
  static constexpr bool needs_centre = kCentreInRegisters;
  struct AuxWithCentre {
    T up, c2, u;
  };
  struct AuxNoCentre {
    T up, c2;
  };
  using Aux = std::conditional_t<kCentreInRegisters, AuxNoCentre, AuxWithCentre>;
  const T* u;       // interior origin of the input (same layout as the output)
  const T* u_prev;  // interior origin; not __ldg: it may be the buffer being written
  const T* c2;      // interior origin of (v dt / h)^2
  __device__ __forceinline__ Aux load(std::int64_t off) const {
    if constexpr (kCentreInRegisters)
      return {u_prev[off], __ldg(c2 + off)};
    else
      return {u_prev[off], __ldg(c2 + off), __ldg(u + off)};
  }
  __device__ __forceinline__ T operator()(T s, T centre, Aux a, std::int64_t) const {
    T uc;
    if constexpr (kCentreInRegisters)
      uc = centre;
    else
      uc = a.u;
    return fma(a.c2, s, T(2) * uc - a.up);
  }
};

// The same update with its loads issued at the store (no prefetch), for the benchmark's
// comparison: it needs no Aux registers, at the price of exposed load latency.
template <class T>
struct LeapfrogEpilogueLate {
  static constexpr bool needs_centre = false;
  const T* u;
  const T* u_prev;
  const T* c2;
  __device__ __forceinline__ T operator()(T s, T, std::int64_t off) const {
    return fma(__ldg(c2 + off), s, T(2) * __ldg(u + off) - u_prev[off]);
  }
};

// ---- ghosts -------------------------------------------------------------------------------

// Face ghosts of the non-pml faces over the interior cross-section (a star and the CPML
// derivatives read along one axis only, never edges or corners). Each face is resolved on
// the host into strides and, per ghost layer k, the offsets along the axis of the ghost and
// of its source with the sign (0: the value is 0): the kernel is index arithmetic and one
// copy per ghost point. Threads run along x on the y and z faces, and along a row's R
// ghosts on the x faces, so every warp touches few sectors.
struct MirrorFace {
  static constexpr int kMaxDepth = 4;  // ghost layers: the stencil radius
  int e0 = 0, e1 = 0;                  // extents of the two axes across the face (e0 fastest)
  std::int64_t s0 = 0, s1 = 0;         // their strides in u
  int depth = 0;
  bool depth_fastest = false;           // x faces: a row's ghosts are contiguous
  std::int64_t ghost[kMaxDepth] = {}, source[kMaxDepth] = {};
  int sign[kMaxDepth] = {};
};

struct MirrorArgs {
  MirrorFace face[6];  // blockIdx.y indexes the faces of one launch
};

template <class T>
__global__ void wave_mirror_ghosts(T* origin, const __grid_constant__ MirrorArgs a) {
  const MirrorFace& f = a.face[blockIdx.y];
  const unsigned total = unsigned(f.e0) * unsigned(f.e1) * unsigned(f.depth);  // < 2^31, checked
  for (unsigned t = blockIdx.x * blockDim.x + threadIdx.x; t < total; t += gridDim.x * blockDim.x) {
    unsigned k, i0, i1;
    if (f.depth_fastest) {
      k = t % unsigned(f.depth);
      i0 = t / unsigned(f.depth) % unsigned(f.e0);
      i1 = t / unsigned(f.depth) / unsigned(f.e0);
    } else {
      i0 = t % unsigned(f.e0);
      i1 = t / unsigned(f.e0) % unsigned(f.e1);
      k = t / unsigned(f.e0) / unsigned(f.e1);
    }
    const std::int64_t across = std::int64_t(i0) * f.s0 + std::int64_t(i1) * f.s1;
    const int sign = f.sign[k];
    origin[across + f.ghost[k]] = sign == 0 ? T(0) : T(sign) * origin[across + f.source[k]];
  }
}

// ---- CPML ----------------------------------------------------------------------------------

// One absorbing layer: its box of interior points and dense psi / zeta over the box (x
// fastest), with the recursive-convolution constants a, b per point along `axis`.
template <class T>
struct PmlBox {
  int axis = 0;
  int lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0};
  T* psi = nullptr;
  T* zeta = nullptr;
  const T* a = nullptr;
  const T* b = nullptr;
};

template <class T, int R>
struct PmlArgs {
  PmlBox<T> box[6];  // blockIdx.y indexes the boxes of one launch
  std::int64_t pitch = 0, plane = 0;
  T d1[R + 1] = {};  // first derivative, d1[0] unused
  T d2[R + 1] = {};  // second derivative along one axis
};

// Thread t of a box -> its interior coordinates and its index in the box's dense arrays.
template <class T>
__device__ __forceinline__ void box_point(const PmlBox<T>& b, std::int64_t t, int p[3]) {
  const int wx = b.hi[0] - b.lo[0], wy = b.hi[1] - b.lo[1];
  p[0] = b.lo[0] + int(t % wx);
  p[1] = b.lo[1] + int(t / wx % wy);
  p[2] = b.lo[2] + int(t / (std::int64_t(wx) * wy));
}

template <class T>
__device__ __forceinline__ std::int64_t box_points(const PmlBox<T>& b) {
  return std::int64_t(b.hi[0] - b.lo[0]) * (b.hi[1] - b.lo[1]) * (b.hi[2] - b.lo[2]);
}

// psi = b psi + a D1 u (reads u and its ghosts; every box of the launch is independent).
template <class T, int R>
__global__ void wave_cpml_psi(const T* __restrict__ u, const __grid_constant__ PmlArgs<T, R> a) {
  const PmlBox<T>& b = a.box[blockIdx.y];
  const std::int64_t stride[3] = {1, a.pitch, a.plane};
  const std::int64_t su = stride[b.axis];
  const std::int64_t total = box_points(b);
  for (std::int64_t t = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; t < total;
       t += std::int64_t(gridDim.x) * blockDim.x) {
    int p[3];
    box_point(b, t, p);
    const T* c = u + p[2] * a.plane + p[1] * a.pitch + p[0];
    T du = T(0);
#pragma unroll
    for (int r = 1; r <= R; ++r) du += a.d1[r] * (c[r * su] - c[-r * su]);
    const int i = p[b.axis] - b.lo[b.axis];
    b.psi[t] = fma(b.b[i], b.psi[t], b.a[i] * du);
  }
}

// zeta = b zeta + a (D2 u + D1 psi); u+ += c2 (D1 psi + zeta). psi is 0 outside its box.
// One launch per axis: boxes of different axes overlap at edges and corners, where they
// would race on u+; the (at most two) boxes of one axis are disjoint.
template <class T, int R>
__global__ void wave_cpml_apply(const T* __restrict__ u, T* __restrict__ out, const T* __restrict__ c2,
                                const __grid_constant__ PmlArgs<T, R> a) {
  const PmlBox<T>& b = a.box[blockIdx.y];
  const std::int64_t stride[3] = {1, a.pitch, a.plane};
  const std::int64_t su = stride[b.axis];
  const std::int64_t sp = b.axis == 0 ? 1 : b.axis == 1 ? (b.hi[0] - b.lo[0]) : std::int64_t(b.hi[0] - b.lo[0]) * (b.hi[1] - b.lo[1]);
  const std::int64_t total = box_points(b);
  for (std::int64_t t = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; t < total;
       t += std::int64_t(gridDim.x) * blockDim.x) {
    int p[3];
    box_point(b, t, p);
    const std::int64_t off = p[2] * a.plane + p[1] * a.pitch + p[0];
    const int q = p[b.axis], i = q - b.lo[b.axis];
    const T* c = u + off;
    T dpsi = T(0), d2u = a.d2[0] * c[0];
#pragma unroll
    for (int r = 1; r <= R; ++r) {
      const T up = q + r < b.hi[b.axis] ? b.psi[t + r * sp] : T(0);
      const T dn = q - r >= b.lo[b.axis] ? b.psi[t - r * sp] : T(0);
      dpsi += a.d1[r] * (up - dn);
      d2u += a.d2[r] * (c[r * su] + c[-r * su]);
    }
    const T z = fma(b.b[i], b.zeta[t], b.a[i] * (d2u + dpsi));
    b.zeta[t] = z;
    out[off] = fma(c2[off], dpsi + z, out[off]);
  }
}

// ---- sources and receivers -----------------------------------------------------------------

// Injection as a gather: one thread per distinct grid point touched by any source, summing
// its taps (weight * amplitude of their source) in a fixed order: deterministic, no atomics.
template <class T>
__global__ void wave_inject(T* out, const std::int64_t* __restrict__ node_off, const int* __restrict__ first,
                            const int* __restrict__ src, const T* __restrict__ w, const T* __restrict__ amps,
                            int nodes) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= nodes) return;
  T add = T(0);
  for (int e = first[i]; e < first[i + 1]; ++e) add = fma(w[e], amps[src[e]], add);
  out[node_off[i]] += add;
}

// One thread per receiver: 8 taps (unused ones have weight 0 on a valid point).
template <class T>
__global__ void wave_record(const T* __restrict__ u, const std::int64_t* __restrict__ off, const T* __restrict__ w,
                            int receivers, T* __restrict__ row) {
  const int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= receivers) return;
  T v = T(0);
#pragma unroll
  for (int k = 0; k < 8; ++k) v = fma(w[8 * r + k], u[off[8 * r + k]], v);
  row[r] = v;
}

}  // namespace strata::cuda::kernels

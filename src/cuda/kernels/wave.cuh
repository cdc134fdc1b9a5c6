// Device code of the acoustic wave solver. The fused leapfrog update is the 2.5D stencil
// kernel (stencil_25d.cuh) with StarOp and the LeapfrogEpilogue below (with absorbing
// layers, LeapfrogCpmlEpilogue of wave_cpml.cuh); the rest are small kernels whose work is
// proportional to a face or a list of points: mirror ghosts, source injection and receiver
// sampling.
#pragma once

#include <cstdint>
#include <type_traits>

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

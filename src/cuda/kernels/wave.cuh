// Device code of the acoustic wave solver. The fused leapfrog update is the 2.5D stencil
// kernel (stencil_25d.cuh) with StarOp and the LeapfrogEpilogue below; the rest are small
// kernels whose work is proportional to a face, the absorbing shell or a list of points:
// mirror ghosts, the whole update on the CPML shell, source injection, receiver sampling.
#pragma once

#include <cstdint>
#include <type_traits>

#include "backend/wave_ghosts.hpp"
#include "cuda/kernels/async_copy.cuh"

namespace strata::cuda::kernels {

// u+ = 2u - u- + c2 * Lap(u), stored over u-'s buffer. The epilogue's loads (u-, c2 and,
// unless the kernel's register queue supplies it, the centre u) are a prefetching Aux: the
// 2.5D kernel issues them one output plane ahead, so their latency hides behind a plane of
// work instead of stalling every store. kCentreInRegisters: u from the register queue
// ((R + 1) * VY registers); otherwise from global memory, an L2 hit (its plane was loaded R
// planes earlier). Aliasing: `out` may be u-'s own buffer: the thread that owns an output
// point reads u-[off] (one plane ahead) before it stores to off, and no other thread reads
// or writes off, so the in-place update is safe.
template <class T, bool kCentreInRegisters, int Ahead = 0>
struct LeapfrogEpilogue {
  static constexpr bool needs_centre = kCentreInRegisters;
  static constexpr int kAhead = Ahead;  // planes beyond the prefetch fetched into L2 (l2_ahead)
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
  __device__ __forceinline__ void touch(std::int64_t off) const {
    prefetch_l2(u_prev + off);
    prefetch_l2(c2 + off);
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
  bool depth_fastest = false;  // x faces: a row's ghosts are contiguous
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

// ---- CPML: the shell of the grid that holds the absorbing layers ---------------------------

// One absorbing layer: the box of interior points it covers (its depth along `axis`, the
// whole grid across it), its memory variables over that box (dense, x fastest) and the
// recursive-convolution constants a, b per point along the axis. psi is double-buffered:
// a step reads psi_in everywhere and writes psi_out, since a layer point needs its
// neighbours' new psi and recomputes them from psi_in rather than waiting for them.
template <class T>
struct PmlLayer {
  int axis = 0;
  int lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0};
  const T* psi_in = nullptr;
  T* psi_out = nullptr;
  T* zeta = nullptr;
  const T* a = nullptr;
  const T* b = nullptr;
};

// A box of the shell (interior coordinates), and how its points are updated:
//   march   a face slab in y or z: threads own columns along the layer's axis (`march`),
//           blocks of tile_x x tile_c columns, mlen points each (shell_column)
//   xslab   a face slab in x narrow enough to stage plane by plane (shell_xslab)
//   march_cross  edges and corners, where layers cross: they march along one of their
//           layers (z, else y) and gather the windows of the others per point
//   gather  x slabs too wide or too narrow to stage: every layer a point lies in gathers its
//           window per point (shell_gather)
// `layer` is the face slab's own layer (-1 for gather boxes); first_block numbers the
// blocks of one launch across its boxes.
enum class ShellKind { march, march_cross, xslab, gather };

struct ShellBox {
  static constexpr int kMaxSlabWidth = 64;
  static constexpr int kStageElems = 1024;  // shared memory per staged plane, in elements
  // Whether shell_xslab can stage an x slab of width w with 256 threads and radius r.
  static constexpr bool stageable(int w, int r) {
    return w >= 1 && w <= kMaxSlabWidth && (256 / w + 2 * r) * (w + 2 * r) <= kStageElems;
  }
  int lo[3] = {0, 0, 0}, n[3] = {0, 0, 0};
  int march = 2;
  int layer = -1;
  int tile_x = 0, tile_c = 0, tiles_x = 0, tiles_c = 0, mlen = 0;
  int first_block = 0;
};

template <class T, int R>
struct ShellArgs {
  static constexpr int kThreads = 256;
  PmlLayer<T> layer[6];
  ShellBox box[26];  // the boxes of one launch (a shell has at most 26: faces, edges, corners)
  int layers = 0, boxes = 0;
  int n[3] = {0, 0, 0};  // the interior
  std::int64_t pitch = 0, plane = 0;
  // u- (interior origin), read at each point before u+ is stored there: the output's own
  // buffer when the step runs in place, another when u-'s buffer is a kept state's.
  const T* u_prev = nullptr;
  T lap[R + 1] = {};  // the 3D star (grid units)
  T d1[R + 1] = {};   // first derivative along one axis, d1[0] unused
  T d2[R + 1] = {};   // second derivative along one axis
};

// The star at a point in the arithmetic of the interior's 2.5D kernel (StarOp::plane, and
// stencil_25d's accumulation over input planes): the z neighbours below from the farthest,
// then the in-plane sum (centre, then per distance the x pair plus the y pair), then the z
// neighbours above. Every shell kind forms the star so: which kernel updates a point outside
// the layers depends on where a box starts (the interior's x start is rounded up to a
// sector, so the columns before it are the shell's in one box and the interior's in a box
// that starts among them), and the bits must not. xy(r) = (x pair) + (y pair) at distance
// r, zm(r) and zp(r) the z neighbours at distance r below and above; each called once, in
// the order the sum needs them (no operand arrays: they cost the staged x slab registers).
template <class T, int R, class XY, class ZM, class ZP>
__device__ __forceinline__ T star_as_interior(const T (&k)[R + 1], T centre, XY&& xy, ZM&& zm,
                                              ZP&& zp) {
  T in_plane = k[0] * centre;
#pragma unroll
  for (int r = 1; r <= R; ++r) in_plane = fma(k[r], xy(r), in_plane);
  T acc = fma(k[R], zm(R), T(0));
#pragma unroll
  for (int r = R - 1; r >= 1; --r) acc = fma(k[r], zm(r), acc);
  acc += in_plane;
#pragma unroll
  for (int r = 1; r <= R; ++r) acc = fma(k[r], zp(r), acc);
  return acc;
}

// D1 u at the centre of a window w of u along one axis.
template <class T, int R>
__device__ __forceinline__ T first_derivative(const T (&d1)[R + 1], const T* w) {
  T du = T(0);
#pragma unroll
  for (int r = 1; r <= R; ++r) du += d1[r] * (w[r] - w[-r]);
  return du;
}

// The CPML terms D1 psi + zeta of a layer at point (x, y, z), u's value there at c: the
// 4R + 1 values of u along the layer's axis are gathered once, the 2R + 1 new psi computed
// from them. Every load comes before the first store, so they are in flight together.
template <class T, int R>
__device__ __forceinline__ T layer_terms_gathered(const ShellArgs<T, R>& a, const PmlLayer<T>& L,
                                                  const T* c, int x, int y, int z) {
  // Selects, not arrays indexed by the axis: those would live in local memory.
  const int ax = L.axis,
            q = ax == 0   ? x
                : ax == 1 ? y
                          : z,
            n_axis = ax == 0   ? a.n[0]
                     : ax == 1 ? a.n[1]
                               : a.n[2];
  const std::int64_t su = ax == 0 ? 1 : ax == 1 ? a.pitch : a.plane;
  const std::int64_t lx = L.hi[0] - L.lo[0], ly = L.hi[1] - L.lo[1];
  const std::int64_t sp = ax == 0 ? 1 : ax == 1 ? lx : lx * ly;  // along the axis in psi
  const std::int64_t idx = (std::int64_t(z - L.lo[2]) * ly + (y - L.lo[1])) * lx + (x - L.lo[0]);
  const int qlo = L.lo[L.axis], qhi = L.hi[L.axis];
  T w[4 * R + 1], pin[2 * R + 1], ca[2 * R + 1], cb[2 * R + 1];
#pragma unroll
  for (int j = 0; j <= 4 * R; ++j) {
    const int qq = q + j - 2 * R;  // u exists R beyond the interior (its ghosts)
    w[j] = qq >= -R && qq < n_axis + R ? c[(j - 2 * R) * su] : T(0);
  }
#pragma unroll
  for (int k = -R; k <= R; ++k) {
    const bool in = q + k >= qlo && q + k < qhi;  // psi is 0 outside its layer
    pin[k + R] = in ? L.psi_in[idx + k * sp] : T(0);
    ca[k + R] = in ? L.a[q + k - qlo] : T(0);
    cb[k + R] = in ? L.b[q + k - qlo] : T(0);
  }
  const T zeta = L.zeta[idx];
  T pk[2 * R + 1];
#pragma unroll
  for (int k = -R; k <= R; ++k)
    pk[k + R] = fma(cb[k + R], pin[k + R], ca[k + R] * first_derivative<T, R>(a.d1, &w[2 * R + k]));
  T dpsi = T(0), d2u = a.d2[0] * w[2 * R];
#pragma unroll
  for (int r = 1; r <= R; ++r) {
    dpsi += a.d1[r] * (pk[R + r] - pk[R - r]);
    d2u += a.d2[r] * (w[2 * R + r] + w[2 * R - r]);
  }
  const T zt = fma(cb[R], zeta, ca[R] * (d2u + dpsi));
  L.psi_out[idx] = pk[R];
  L.zeta[idx] = zt;
  return dpsi + zt;
}

// One column of a face slab in y or z, marching along its layer's axis M (1: y, 2: z) from
// m0 to m1: u along the march and the layer's new psi slide through registers, so a point
// loads one new u and computes one new psi; the neighbours across come through L1. Each
// point issues all its loads before its stores (the stores may alias later loads as far as
// the compiler knows, so a load written after a store waits for it).
template <class T, int R, int M, bool Cross>
__device__ __forceinline__ void shell_column_arrays(
    const T* __restrict__ u, T* __restrict__ out, const T* __restrict__ c2,
    const T* __restrict__ psi_in_arr, T* __restrict__ psi_out_arr, T* __restrict__ zeta_arr,
    const T* __restrict__ coef_a, const T* __restrict__ coef_b, const ShellArgs<T, R>& a,
    const ShellBox& B, int x, int xc, int m0, int m1) {
  constexpr int C = 3 - M;  // the axis other than x and the march
  const std::int64_t sm = M == 1 ? a.pitch : a.plane, sc = C == 1 ? a.pitch : a.plane;
  const int nm = a.n[M];
  const T* col = u + x + std::int64_t(xc) * sc;  // march coordinate 0 of this column
  auto u_at = [&](int m) { return m >= -R && m < nm + R ? col[std::int64_t(m) * sm] : T(0); };

  // Edges and corners: the layers of other axes this column crosses, a bit each (which
  // does not change along the march: a layer spans the grid across its own axis).
  unsigned cross = 0;
  if constexpr (Cross)
    for (int l = 0; l < a.layers; ++l) {
      const PmlLayer<T>& L = a.layer[l];
      const int q = L.axis == 0 ? x : xc;
      if (L.axis != M && q >= L.lo[L.axis] && q < L.hi[L.axis]) cross |= 1u << l;
    }

  // The slab's layer: the new psi of its point m + k in pk[k + R].
  const PmlLayer<T>& ML = a.layer[B.layer];
  const int qlo = ML.lo[M], qhi = ML.hi[M];
  const std::int64_t wx = ML.hi[0] - ML.lo[0], wy = ML.hi[1] - ML.lo[1];
  const std::int64_t sp = M == 1 ? wx : wx * wy;
  // base + q * sp: the dense index of march coordinate q in the layer
  const std::int64_t base =
      M == 1 ? (std::int64_t(xc - ML.lo[2]) * wy - ML.lo[1]) * wx + (x - ML.lo[0])
             : (std::int64_t(xc - ML.lo[1]) * wx + (x - ML.lo[0])) - std::int64_t(ML.lo[2]) * sp;
  auto psi_at = [&](int q,
                    const T* w) {  // the new psi at march coordinate q, window w centred on q
    if (q < qlo || q >= qhi) return T(0);
    return fma(coef_b[q - qlo], psi_in_arr[base + std::int64_t(q) * sp],
               coef_a[q - qlo] * first_derivative<T, R>(a.d1, w));
  };

  T w[4 * R + 1];  // w[j] = u(m - 2R + j)
  T pk[2 * R + 1];
#pragma unroll
  for (int j = 1; j <= 4 * R; ++j) w[j] = u_at(m0 - 1 - 2 * R + j);
#pragma unroll
  for (int k = 1; k <= 2 * R; ++k)
    pk[k] = psi_at(m0 - 1 - R + k, &w[R + k]);  // centred on u(m0 - 1 - R + k)
  // The operands that come from DRAM are loaded one point ahead (software pipelining): a
  // point's loads would otherwise wait for the previous point's stores, one memory round
  // trip per point with little else in flight.
  struct Ahead {
    T u_new, psi_in, zeta, c2, u_prev;
  };
  auto fetch = [&](int m) {
    Ahead f;
    const int qn = m + R;
    const std::int64_t off = std::int64_t(m) * sm + std::int64_t(xc) * sc + x;
    f.u_new = u_at(m + 2 * R);
    f.psi_in = qn >= qlo && qn < qhi ? psi_in_arr[base + std::int64_t(qn) * sp] : T(0);
    f.zeta = m >= qlo && m < qhi ? zeta_arr[base + std::int64_t(m) * sp] : T(0);
    f.c2 = m < m1 ? c2[off] : T(0);
    f.u_prev = m < m1 ? a.u_prev[off] : T(0);
    return f;
  };
  Ahead next = fetch(m0);
  for (int m = m0; m < m1; ++m) {
    const Ahead cur = next;
    next = fetch(m + 1);
    const std::int64_t off = std::int64_t(m) * sm + std::int64_t(xc) * sc + x;
    const T* c = u + off;
    const int qn = m + R;
    const bool new_in = qn >= qlo && qn < qhi, here = m >= qlo && m < qhi;
    const T u_new = cur.u_new, psi_in = cur.psi_in, zeta = cur.zeta, c2_here = cur.c2,
            u_prev = cur.u_prev;
    const T a_new = new_in ? coef_a[qn - qlo] : T(0), b_new = new_in ? coef_b[qn - qlo] : T(0);
    const std::int64_t idx = base + std::int64_t(m) * sp;
    const T a_here = here ? coef_a[m - qlo] : T(0), b_here = here ? coef_b[m - qlo] : T(0);
    T pair_x[R + 1], across_m[R + 1], across_p[R + 1];  // x pairs; C's neighbours
#pragma unroll
    for (int r = 1; r <= R; ++r)
      pair_x[r] = c[-r] + c[r], across_m[r] = c[-r * sc], across_p[r] = c[r * sc];

#pragma unroll
    for (int j = 0; j < 4 * R; ++j) w[j] = w[j + 1];
    w[4 * R] = u_new;
#pragma unroll
    for (int k = 0; k < 2 * R; ++k) pk[k] = pk[k + 1];
    pk[2 * R] = fma(b_new, psi_in, a_new * first_derivative<T, R>(a.d1, &w[3 * R]));

    // The star: across is y and the march z (M 2), or the march is y and across z (M 1).
    const T lap = star_as_interior<T, R>(
        a.lap, w[2 * R],
        [&](int r) {
          return M == 2 ? pair_x[r] + (across_m[r] + across_p[r])
                        : pair_x[r] + (w[2 * R - r] + w[2 * R + r]);
        },
        [&](int r) { return M == 2 ? w[2 * R - r] : across_m[r]; },
        [&](int r) { return M == 2 ? w[2 * R + r] : across_p[r]; });
    T extra = T(0);
    if (here) {
      T dpsi = T(0), d2u = a.d2[0] * w[2 * R];
#pragma unroll
      for (int r = 1; r <= R; ++r) {
        dpsi += a.d1[r] * (pk[R + r] - pk[R - r]);
        d2u += a.d2[r] * (w[2 * R + r] + w[2 * R - r]);
      }
      const T zt = fma(b_here, zeta, a_here * (d2u + dpsi));
      psi_out_arr[idx] = pk[R];
      zeta_arr[idx] = zt;
      extra = dpsi + zt;
    }
    if constexpr (Cross)
      for (unsigned bits = cross; bits; bits &= bits - 1) {
        extra += layer_terms_gathered<T, R>(a, a.layer[__ffs(int(bits)) - 1], c, x, M == 1 ? m : xc,
                                            M == 2 ? m : xc);
      }
    // out is u-'s buffer: this thread alone reads and then writes the point. A point in no
    // layer takes the star alone, as the interior kernel stores it (lap + 0 can flip a -0).
    const bool layered = here || (Cross && cross != 0);
    out[off] = fma(c2_here, layered ? lap + extra : lap, T(2) * w[2 * R] - u_prev);
  }
}

// The layer's arrays as restrict parameters: each is read and written through itself only
// (psi_in and psi_out are different buffers), which lets a point's loads move above the
// previous point's stores.
template <class T, int R, int M, bool Cross>
__device__ __forceinline__ void shell_column(const T* __restrict__ u, T* out,
                                             const T* __restrict__ c2, const ShellArgs<T, R>& a,
                                             const ShellBox& B, int x, int xc, int m0, int m1) {
  const PmlLayer<T>& L = a.layer[B.layer];
  shell_column_arrays<T, R, M, Cross>(u, out, c2, L.psi_in, L.psi_out, L.zeta, L.a, L.b, a, B, x,
                                      xc, m0, m1);
}

// Edges and corners of the shell (and x slabs that cannot be staged): one thread per point,
// the star from L1, and for every layer the point lies in, its window gathered.
template <class T, int R>
__device__ __forceinline__ void shell_gather(const T* __restrict__ u, T* out,
                                             const T* __restrict__ c2, const ShellArgs<T, R>& a,
                                             int x, int y, int z) {
  const std::int64_t off = std::int64_t(z) * a.plane + std::int64_t(y) * a.pitch + x;
  const T* c = u + off;
  const T c2_here = c2[off], u_prev = a.u_prev[off];
  const T lap = star_as_interior<T, R>(
      a.lap, c[0], [&](int r) { return (c[-r] + c[r]) + (c[-r * a.pitch] + c[r * a.pitch]); },
      [&](int r) { return c[-r * a.plane]; }, [&](int r) { return c[r * a.plane]; });
  T extra = T(0);
  bool layered = false;
  for (int l = 0; l < a.layers; ++l) {
    const PmlLayer<T>& L = a.layer[l];
    if (x < L.lo[0] || x >= L.hi[0] || y < L.lo[1] || y >= L.hi[1] || z < L.lo[2] || z >= L.hi[2])
      continue;
    extra += layer_terms_gathered<T, R>(a, L, c, x, y, z);
    layered = true;
  }
  out[off] = fma(c2_here, layered ? lap + extra : lap, T(2) * c[0] - u_prev);
}

// An x slab (ShellBox::stageable widths): the block owns W x tile_c columns (x, y) and walks
// the planes z from m0 to m1. Per plane it stages u (with an R halo in x and y) in shared
// memory, each thread computes the new psi_x of its own point once, the block shares them,
// and the point reads its neighbours' psi and u there; u along z slides through registers.
// (Gathering per point instead recomputed 2R + 1 psi from 4R + 1 loads of u: ~700
// instructions per point against ~200 for the slabs that march along their layer's axis.)
template <class T, int R>
__device__ __forceinline__ void shell_xslab(const T* __restrict__ u, T* out,
                                            const T* __restrict__ c2, const ShellArgs<T, R>& a,
                                            const ShellBox& B, int y0, int m0, int m1) {
  constexpr int kElems = ShellBox::kStageElems;  // (H + 2R) (W + 2R) <= kElems: stageable()
  __shared__ T us[2][kElems];  // u of the plane, double-buffered (the next plane is staged while
  __shared__ T ps[kElems];     // slow threads may still read this one); the new psi_x
  const int W = B.tile_x, H = B.tile_c, UW = W + 2 * R;
  const int tx = int(threadIdx.x) % W, ty = int(threadIdx.x) / W;
  const int x = B.lo[0] + tx, y = y0 + ty;
  const bool active = ty < H && y < B.lo[1] + B.n[1];
  const PmlLayer<T>& L = a.layer[B.layer];
  const bool in_layer = active && x >= L.lo[0] && x < L.hi[0];
  const std::int64_t lx = L.hi[0] - L.lo[0], ly = L.hi[1] - L.lo[1];
  const std::int64_t lidx0 =
      std::int64_t(y - L.lo[1]) * lx + (x - L.lo[0]);  // + (z - lo2) * lx * ly
  const T a_x = in_layer ? L.a[x - L.lo[0]] : T(0), b_x = in_layer ? L.b[x - L.lo[0]] : T(0);
  for (int e = int(threadIdx.x); e < H * UW; e += blockDim.x) ps[e] = T(0);  // pads stay 0
  const T* col = u + std::int64_t(y) * a.pitch + x;
  T w[2 * R + 1];  // u(x, y, z - R + j)
#pragma unroll
  for (int j = 1; j <= 2 * R; ++j)
    w[j] = active ? col[std::int64_t(m0 - 1 - R + j) * a.plane] : T(0);
  // This thread's operands that come from DRAM are loaded one plane ahead (see shell_column).
  struct Ahead {
    T u_new, psi_in, zeta, c2, u_prev;
  };
  auto fetch = [&](int z) {
    Ahead f;
    const bool ok = active && z < m1, lay = in_layer && z < m1;
    const std::int64_t off = std::int64_t(z) * a.plane + std::int64_t(y) * a.pitch + x;
    const std::int64_t lidx = lidx0 + std::int64_t(z - L.lo[2]) * lx * ly;
    f.u_new = ok ? col[std::int64_t(z + R) * a.plane] : T(0);
    f.psi_in = lay ? L.psi_in[lidx] : T(0);
    f.zeta = lay ? L.zeta[lidx] : T(0);
    f.c2 = ok ? c2[off] : T(0);
    f.u_prev = ok ? a.u_prev[off] : T(0);
    return f;
  };
  // The staged plane: rows y0 - R .. y0 + H + R - 1, columns lo0 - R .. lo0 + W + R - 1 (u
  // exists R beyond the interior; rows past it read 0 and feed no output), a thread's share
  // of it loaded one plane ahead too.
  constexpr int kShare = (ShellBox::kStageElems + 255) / 256;
  T stage[kShare];
  auto fetch_stage = [&](int z) {
    const T* plane = u + std::int64_t(z) * a.plane;
#pragma unroll
    for (int k = 0; k < kShare; ++k) {
      const int e = int(threadIdx.x) + k * 256;
      const int gx = B.lo[0] - R + e % UW, gy = y0 - R + e / UW;
      stage[k] = z < m1 && e < (H + 2 * R) * UW && gy < a.n[1] + R && gx < a.n[0] + R
                     ? plane[std::int64_t(gy) * a.pitch + gx]
                     : T(0);
    }
  };
  Ahead next = fetch(m0);
  fetch_stage(m0);
  for (int z = m0, buf = 0; z < m1; ++z, buf ^= 1) {
    const Ahead cur = next;
#pragma unroll
    for (int k = 0; k < kShare; ++k) {
      const int e = int(threadIdx.x) + k * 256;
      if (e < (H + 2 * R) * UW) us[buf][e] = stage[k];
    }
    next = fetch(z + 1);
    fetch_stage(z + 1);
    const std::int64_t off = std::int64_t(z) * a.plane + std::int64_t(y) * a.pitch + x;
    const std::int64_t lidx = lidx0 + std::int64_t(z - L.lo[2]) * lx * ly;
    const T psi_in = cur.psi_in, zeta = cur.zeta, c2_here = cur.c2, u_prev = cur.u_prev;
#pragma unroll
    for (int j = 0; j < 2 * R; ++j) w[j] = w[j + 1];
    w[2 * R] = cur.u_new;
    __syncthreads();
    const T* row = &us[buf][(ty + R) * UW + tx + R];  // this point in the staged plane
    T pnew = T(0);
    if (in_layer) {
      pnew = fma(b_x, psi_in, a_x * first_derivative<T, R>(a.d1, row));
      ps[ty * UW + tx + R] = pnew;
    }
    __syncthreads();
    if (!active) continue;
    const T lap = star_as_interior<T, R>(
        a.lap, w[R], [&](int r) { return (row[-r] + row[r]) + (row[-r * UW] + row[r * UW]); },
        [&](int r) { return w[R - r]; }, [&](int r) { return w[R + r]; });
    T extra = T(0);
    if (in_layer) {
      const T* p = &ps[ty * UW + tx + R];
      T dpsi = T(0), d2u = a.d2[0] * row[0];
#pragma unroll
      for (int r = 1; r <= R; ++r) {
        dpsi += a.d1[r] * (p[r] - p[-r]);
        d2u += a.d2[r] * (row[r] + row[-r]);
      }
      const T zt = fma(b_x, zeta, a_x * (d2u + dpsi));
      L.psi_out[lidx] = pnew;
      L.zeta[lidx] = zt;
      extra = dpsi + zt;
    }
    out[off] = fma(c2_here, in_layer ? lap + extra : lap, T(2) * w[R] - u_prev);
  }
}

// The whole leapfrog step on the shell, each point once, with its CPML terms:
//   psi_a  = b psi_a + a D1_a u                   (at the point and its 2R neighbours along
//                                                  a, from psi_in: no wait for neighbours)
//   zeta_a = b zeta_a + a (D2_a u + D1_a psi_a)
//   u+     = 2u - u- + c2 (Lap u + sum_a (D1_a psi_a + zeta_a)), into `out` (u-'s buffer,
//            or another: ShellArgs::u_prev)
// for every layer a the point lies in. One launch per kind of box (each kind its own
// register budget). The interior never runs this: it keeps the plain fused update, so the
// layers cost extra only where they are (an earlier pass that gave every tile the layer path
// was measured at 5.6x a rigid step). Reads u and its ghosts.
// Blocks of 256 per SM the register budget aims at (ptxas -v, sm_90: spill-free): the march
// kernel keeps the next point's operands in registers and gets 3 in fp32, the kernels that
// gather windows 2 (fp64 edges 1: a march beside gathered windows needs ~170 registers).
template <class T, ShellKind K>
constexpr int shell_min_blocks() {
  if constexpr (sizeof(T) == 8) return K == ShellKind::march_cross ? 1 : 2;
  return K == ShellKind::xslab ? 4 : K == ShellKind::march ? 3 : 2;
}

template <class T, int R, ShellKind K>
__global__ void __launch_bounds__(256, shell_min_blocks<T, K>())
    wave_shell_update(const T* __restrict__ u, T* out, const T* __restrict__ c2,
                      const __grid_constant__ ShellArgs<T, R> a) {
  int bi = a.boxes - 1;
  while (bi > 0 && int(blockIdx.x) < a.box[bi].first_block) --bi;
  const ShellBox& B = a.box[bi];
  const int local = int(blockIdx.x) - B.first_block;
  const int tx = local % B.tiles_x, tc = local / B.tiles_x % B.tiles_c,
            tm = local / B.tiles_x / B.tiles_c;
  const int m0 = B.lo[B.march] + tm * B.mlen, m1 = min(m0 + B.mlen, B.lo[B.march] + B.n[B.march]);
  const int C = 3 - B.march;
  if constexpr (K == ShellKind::xslab) {
    shell_xslab<T, R>(u, out, c2, a, B, B.lo[C] + tc * B.tile_c, m0, m1);
  } else {
    const int cx = int(threadIdx.x) % B.tile_x, cc = int(threadIdx.x) / B.tile_x;
    const int x = B.lo[0] + tx * B.tile_x + cx, xc = B.lo[C] + tc * B.tile_c + cc;
    if (cc >= B.tile_c || x >= B.lo[0] + B.n[0] || xc >= B.lo[C] + B.n[C]) return;
    if constexpr (K == ShellKind::march || K == ShellKind::march_cross) {
      constexpr bool cross = K == ShellKind::march_cross;
      if (B.march == 1)
        shell_column<T, R, 1, cross>(u, out, c2, a, B, x, xc, m0, m1);
      else
        shell_column<T, R, 2, cross>(u, out, c2, a, B, x, xc, m0, m1);
    } else {
      for (int z = m0; z < m1; ++z)
        shell_gather<T, R>(u, out, c2, a, x, xc, z);  // gather boxes march z
    }
  }
}

// ---- the model ---------------------------------------------------------------------------------

// c2 = (v dt / h)^2 in place over the interior, v from c2 itself or, given a table, per z
// plane: in double, one rounding to T, the values the host loop it replaces computed.
template <class T>
__global__ void wave_velocity_to_c2(T* c2, const T* __restrict__ planes, double dt_over_h, int nx,
                                    std::int64_t pitch, std::int64_t plane) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y, z = blockIdx.z;
  if (x >= nx) return;
  T* p = c2 + z * plane + y * pitch + x;
  const double c = double(planes ? planes[z] : *p) * dt_over_h;
  *p = T(__dmul_rn(c, c));
}

// ---- sources and receivers -----------------------------------------------------------------

// Injection as a gather: one thread per distinct grid point touched by any source, summing
// its taps (weight * amplitude of their source) in a fixed order: deterministic, no atomics.
template <class T>
__global__ void wave_inject(T* out, const std::int64_t* __restrict__ node_off,
                            const int* __restrict__ first, const int* __restrict__ src,
                            const T* __restrict__ w, const T* __restrict__ amps, int nodes) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= nodes) return;
  T add = T(0);
  for (int e = first[i]; e < first[i + 1]; ++e) add = fma(w[e], amps[src[e]], add);
  out[node_off[i]] += add;
}

// One thread per receiver: 8 taps (unused ones have weight 0 on a valid point).
template <class T>
__global__ void wave_record(const T* __restrict__ u, const std::int64_t* __restrict__ off,
                            const T* __restrict__ w, int receivers, T* __restrict__ row) {
  const int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= receivers) return;
  T v = T(0);
#pragma unroll
  for (int k = 0; k < 8; ++k) v = fma(w[8 * r + k], u[off[8 * r + k]], v);
  row[r] = v;
}

}  // namespace strata::cuda::kernels

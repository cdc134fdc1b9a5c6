// Device code of the multigrid passes: the epilogues that fuse a smoothing step or a
// residual into the 2.5D stencil pass, and the grid-transfer, dense-solve and conversion
// kernels. Fields of one level share a layout, so one offset indexes all of them.
#pragma once

#include <cstdint>

#include "backend/multigrid.hpp"
#include "cuda/kernels/smoother.hpp"

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
  __device__ __forceinline__ T operator()(T s, T u, Aux fv, std::int64_t) const { return jacobi_point(s, u, fv, w); }
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
    return chebyshev_point(s, u, a.prev, a.f, alpha, beta);
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

// fc = R (f - A u) in one pass, for the vertex-centred (Dirichlet) hierarchy, where the
// restriction is full weighting: coarse X gathers fine 2X, 2X+1, 2X+2 with weights 1/4,
// 1/2, 1/4 per axis (fine 2X+2 = n on an even axis is the boundary: residual 0). The
// residual never goes to memory: u and f are read once and the coarse field written,
// 2 1/8 values per fine point instead of 3 for the residual pass and 1 1/8 for the
// restriction. The block owns CX x CY coarse columns over `zc` coarse planes and streams
// the fine planes: u through a ring of three planes (with a halo of one), f one plane,
// the residual of a plane in shared memory, then the x-y restriction per thread and the
// z weights into a register accumulator. The operator is the 7-point star c0, c1.
// u and f point at the first fine point coarse 0 gathers (a distributed box may start one
// past it: TransferView::fw_shift), and `in` says, in those coordinates, which u points are
// there to read and where the residual counts (and f is read); elsewhere both are 0.
struct FwBounds {
  int u_lo[3], u_hi[3];  // u readable on [u_lo, u_hi] per axis (ghosts included)
  int r_lo[3], r_hi[3];  // the residual counts, and f is read, on [r_lo, r_hi)
};
template <class T, int CX, int CY>
__global__ void __launch_bounds__(CX * CY, sizeof(T) == 4 ? 3 : 4) residual_restrict_fw_kernel(const T* __restrict__ u,
                                                                       const T* __restrict__ f, Geometry gf,
                                                                       T* __restrict__ fc, Geometry gc,
                                                                       T c0, T c1, int zc, FwBounds in) {
  constexpr int RX = 2 * CX + 1, RY = 2 * CY + 1;  // residual region of the tile
  constexpr int UX = RX + 2, UY = RY + 2;          // u region: one more on each side
  constexpr int N = CX * CY;
  __shared__ T su[3][UY][UX];
  __shared__ T sf[RY][RX];
  __shared__ T sr[RY][RX];
  const int t = threadIdx.x + CX * threadIdx.y;
  const int X0 = blockIdx.x * CX, Y0 = blockIdx.y * CY, Z0 = blockIdx.z * zc;
  const int Z1 = min(Z0 + zc, gc.nz);
  const int i0 = 2 * X0, j0 = 2 * Y0;  // fine origin of the residual region

  // Plane loads go through registers one plane ahead: the loads of the next u and f planes
  // are issued before the current residual is computed and land in shared memory after
  // it, so their latency hides behind the arithmetic (loading straight into shared memory
  // ran at about 45% of the copy's bandwidth). Points outside the readable layers (one
  // process: the ghost layer, which holds the homogeneous boundary, 0) read 0 and never
  // reach a residual that counts.
  constexpr int KU = (UX * UY + N - 1) / N, KF = (RX * RY + N - 1) / N;
  T ru[KU], rf[KF];
  auto fetch = [&](int pu, int pf) {
    const bool uz = pu >= in.u_lo[2] && pu <= in.u_hi[2], fz = pf >= in.r_lo[2] && pf < in.r_hi[2];
    const T* pu_base = u + pu * gf.plane;  // 32-bit offsets within a plane
    const T* pf_base = f + pf * gf.plane;
#pragma unroll
    for (int q = 0; q < KU; ++q) {
      const int e = t + q * N, a = e % UX, b = e / UX;
      const int i = i0 - 1 + a, j = j0 - 1 + b;
      const bool ok = e < UX * UY && uz && i >= in.u_lo[0] && i <= in.u_hi[0] && j >= in.u_lo[1] && j <= in.u_hi[1];
      ru[q] = ok ? pu_base[j * int(gf.pitch) + i] : T(0);
    }
#pragma unroll
    for (int q = 0; q < KF; ++q) {
      const int e = t + q * N, a = e % RX, b = e / RX;
      const int i = i0 + a, j = j0 + b;
      const bool ok = e < RX * RY && fz && i >= in.r_lo[0] && i < in.r_hi[0] && j >= in.r_lo[1] && j < in.r_hi[1];
      rf[q] = ok ? pf_base[j * int(gf.pitch) + i] : T(0);
    }
  };
  auto store = [&](int pu) {
    T* dst = &su[(pu + 3) % 3][0][0];
#pragma unroll
    for (int q = 0; q < KU; ++q)
      if (t + q * N < UX * UY) dst[t + q * N] = ru[q];
#pragma unroll
    for (int q = 0; q < KF; ++q)
      if (t + q * N < RX * RY) (&sf[0][0])[t + q * N] = rf[q];
  };

  fetch(2 * Z0 - 1, 2 * Z0);
  store(2 * Z0 - 1);  // (its f plane is fetched again below)
  fetch(2 * Z0, 2 * Z0);
  store(2 * Z0);
  fetch(2 * Z0 + 1, 2 * Z0);
  T acc = 0;
  const int X = X0 + threadIdx.x, Y = Y0 + threadIdx.y;
  for (int k = 2 * Z0; k <= 2 * Z1; ++k) {
    store(k + 1);  // u plane k + 1 and f plane k
    __syncthreads();
    if (k < 2 * Z1) fetch(k + 2, k + 1);
    const T (*um)[UX] = su[(k + 2) % 3], (*uc)[UX] = su[k % 3], (*up)[UX] = su[(k + 1) % 3];
    for (int e = t; e < RX * RY; e += N) {
      const int a = e % RX, b = e / RX;
      const int x = a + 1, y = b + 1;
      const T s = c0 * uc[y][x] + c1 * (((uc[y][x - 1] + uc[y][x + 1]) + (uc[y - 1][x] + uc[y + 1][x])) +
                                        (um[y][x] + up[y][x]));
      const bool counts = k >= in.r_lo[2] && k < in.r_hi[2] && i0 + a >= in.r_lo[0] && i0 + a < in.r_hi[0] &&
                          j0 + b >= in.r_lo[1] && j0 + b < in.r_hi[1];
      sr[b][a] = counts ? sf[b][a] - s : T(0);
    }
    __syncthreads();
    const int a = 2 * threadIdx.x, b = 2 * threadIdx.y;
    auto row = [&](int bb) { return T(0.25) * (sr[bb][a] + sr[bb][a + 2]) + T(0.5) * sr[bb][a + 1]; };
    const T q = T(0.25) * (row(b) + row(b + 2)) + T(0.5) * row(b + 1);
    if (k & 1) {
      acc += T(0.5) * q;  // the centre plane of coarse (k - 1) / 2
    } else {
      if (k > 2 * Z0 && X < gc.nx && Y < gc.ny) fc[(k / 2 - 1) * gc.plane + Y * gc.pitch + X] = acc + T(0.25) * q;
      acc = T(0.25) * q;  // the first plane of coarse k / 2
    }
  }
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

// The ghost rule of a coarse Dirichlet level (backend/multigrid.hpp): the faces to fill,
// and the factors of every face.
template <class T>
struct GhostFaces {
  int count = 0;
  int axis[6] = {}, side[6] = {};  // side 0: the ghost before index 0, 1: the one at n
  T lo[3] = {}, hi[3] = {};
};

// One face per block row (blockIdx.y), over its ghost layer including the edges and
// corners: ghost = (product of the factors of the axes it lies outside) * the interior
// point next to it. Faces sharing an edge write the same value there.
template <class T>
__global__ void extrapolate_ghosts_kernel(const __grid_constant__ GhostFaces<T> g, T* __restrict__ u, Geometry geo) {
  // The face's axis is known at run time only: the coordinates are picked by selection, not by
  // indexing an array (an indexed array, or an indexed struct parameter that is not
  // __grid_constant__, lives in each thread's local memory: 88-120 bytes of stack here before).
  const int f = blockIdx.y, a = g.axis[f];
  const int b = (a + 1) % 3, c = (a + 2) % 3;
  auto ext = [&](int k) { return k == 0 ? geo.nx : k == 1 ? geo.ny : geo.nz; };
  const int eb = ext(b), ec = ext(c);
  const int e = blockIdx.x * blockDim.x + threadIdx.x;
  if (e >= (eb + 2) * (ec + 2)) return;
  const int pa = g.side[f] ? ext(a) : -1, pb = e % (eb + 2) - 1, pc = e / (eb + 2) - 1;
  const int p[3] = {a == 0 ? pa : b == 0 ? pb : pc, a == 1 ? pa : b == 1 ? pb : pc,
                    a == 2 ? pa : b == 2 ? pb : pc};
  T factor = 1;
  int s[3];
#pragma unroll
  for (int k = 0; k < 3; ++k) {
    s[k] = min(max(p[k], 0), ext(k) - 1);
    if (p[k] < 0) factor *= g.lo[k];
    if (p[k] >= ext(k)) factor *= g.hi[k];
  }
  u[p[2] * geo.plane + p[1] * geo.pitch + p[0]] = factor * u[s[2] * geo.plane + s[1] * geo.pitch + s[0]];
}

template <class D, class S>
__global__ void convert_kernel(const S* __restrict__ src, Geometry gs, D* __restrict__ dst, Geometry gd) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y, z = blockIdx.z;
  if (x < gs.nx) dst[z * gd.plane + y * gd.pitch + x] = D(src[z * gs.plane + y * gs.pitch + x]);
}

}  // namespace strata::cuda::kernels

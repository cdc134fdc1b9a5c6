// Device code of the wave scheme's adjoint (cuda/wave/adjoint.cu) in gather form: the CPML
// layers' three transposed statements, each one thread per point of a layer's box or of
// the points within the stencil's reach of it. The bulk of the adjoint step is the forward
// leapfrog update itself (see adjoint.cu), so only the layers need kernels of their own.
// Small, plain kernels: their work is proportional to the absorbing shell.
#pragma once

#include <cstdint>

namespace strata::cuda::kernels {

// One absorbing layer's box (lo inclusive, hi exclusive) and the derivative weights along
// its axis, d1[0] unused.
struct AdjointLayer {
  int lo[3] = {}, hi[3] = {};
  int axis = 0;
  int radius = 1;
  double d1[5] = {}, d2[5] = {};
  std::int64_t pitch = 0, plane = 0;  // of the wave fields (ghosts included)
  __host__ __device__ int width(int a) const { return hi[a] - lo[a]; }
  __host__ __device__ std::int64_t points() const {
    return std::int64_t(width(0)) * width(1) * width(2);
  }
  // The dense box's stride along `axis`.
  __host__ __device__ std::int64_t box_stride() const {
    return axis == 0 ? 1 : axis == 1 ? std::int64_t(width(0)) : std::int64_t(width(0)) * width(1);
  }
};

// v[a] for a runtime axis without indexing a local array: an indexed array (and a kernel's
// struct parameter indexed at run time, unless __grid_constant__) lives in local memory, each
// thread's copy written out: 144-152 bytes a thread in these kernels, about 200 MB of DRAM
// writes per 512^3 layer pass (Nsight Compute, H200), 7x their stores.
__device__ __forceinline__ int pick(const int (&v)[3], int a) {
  return a == 0 ? v[0] : a == 1 ? v[1] : v[2];
}
__device__ __forceinline__ void put(int (&v)[3], int a, int x) {
  v[0] = a == 0 ? x : v[0];
  v[1] = a == 1 ? x : v[1];
  v[2] = a == 2 ? x : v[2];
}

// A box index's point. I, the index type, is 32-bit unsigned wherever the box (or the
// correction's reach) has fewer than 2^32 points, which the launches check (adjoint.cu):
// three 64-bit divisions per point are long subroutines on the GPU, 32-bit ones a few
// instructions. The point, and so every sum, is the same whatever I.
template <class I>
__device__ __forceinline__ void box_point(const AdjointLayer& L, I li, int (&p)[3]) {
  const I wx = I(L.width(0)), wy = I(L.width(1));
  const I row = li / wx;
  p[0] = L.lo[0] + int(li - row * wx);
  p[1] = L.lo[1] + int(row % wy);
  p[2] = L.lo[2] + int(row / wy);
}

// zeta' = b zeta + a (...), and h's share of zeta' (h = q in the adjoint's variables):
// zn = zeta_bar' + q; t = a zn; zeta_bar = b zn.
template <class T, class I>
__global__ void adjoint_layer_zeta(const T* __restrict__ q, const __grid_constant__ AdjointLayer L,
                                   const T* __restrict__ a, const T* __restrict__ b,
                                   T* __restrict__ zeta, T* __restrict__ t) {
  const I n = I(L.points());
  for (I li = I(blockIdx.x) * I(blockDim.x) + I(threadIdx.x); li < n;
       li += I(gridDim.x) * I(blockDim.x)) {
    int p[3];
    box_point(L, li, p);
    const int i = pick(p, L.axis) - L.lo[L.axis];
    const double zn =
        double(zeta[li]) + double(q[p[2] * L.plane + p[1] * L.pitch + std::int64_t(p[0])]);
    t[li] = T(double(a[i]) * zn);
    zeta[li] = T(double(b[i]) * zn);
  }
}

// psi' = b psi + a D1 u, and the D1 of psi' that h and zeta' read (psi is 0 outside the box):
// pn = psi_bar' + sum_r d1_r ((q + t)[k - r] - (q + t)[k + r]) over box points k +- r;
// s = a pn; psi_bar = b pn.
// R is the layer's radius (L.radius), fixed at compile time so that the loop over the
// neighbours unrolls and every load is issued at once (a run-time loop kept them one after
// another: 88 us a 512^2 x 16 layer on the H200, Nsight Compute); the same sums, in the same
// order.
template <class T, class I, int R>
__global__ void adjoint_layer_psi(const T* __restrict__ q, const __grid_constant__ AdjointLayer L,
                                  const T* __restrict__ a, const T* __restrict__ b,
                                  T* __restrict__ psi, const T* __restrict__ t, T* __restrict__ s) {
  const I n = I(L.points());
  const std::int64_t sb = L.box_stride();
  const std::int64_t sq = L.axis == 0 ? 1 : L.axis == 1 ? L.pitch : L.plane;
  for (I li = I(blockIdx.x) * I(blockDim.x) + I(threadIdx.x); li < n;
       li += I(gridDim.x) * I(blockDim.x)) {
    int p[3];
    box_point(L, li, p);
    const int k = pick(p, L.axis), i = k - L.lo[L.axis];
    const std::int64_t off = p[2] * L.plane + p[1] * L.pitch + p[0], l = std::int64_t(li);
    double pn = double(psi[li]);
#pragma unroll
    for (int r = 1; r <= R; ++r) {
      if (k - r >= L.lo[L.axis]) pn += L.d1[r] * (double(q[off - r * sq]) + double(t[l - r * sb]));
      if (k + r < L.hi[L.axis]) pn -= L.d1[r] * (double(q[off + r * sq]) + double(t[l + r * sb]));
    }
    s[li] = T(double(a[i]) * pn);
    psi[li] = T(double(b[i]) * pn);
  }
}

// The layer's share of the new q at every point within the stencil's reach of its box along
// its axis (clipped to the grid: beyond a pml face the ghosts are 0 and take nothing):
// q_new += c2 * (D2 t + d2_0 t - D1 s), t and s 0 outside the box.
// R as in adjoint_layer_psi (137 us a layer's reach with a run-time loop).
template <class T, class I, int R>
__global__ void adjoint_layer_correct(T* __restrict__ q_new, const T* __restrict__ c2,
                                      const __grid_constant__ AdjointLayer L, int reach_lo,
                                      int reach_hi, const T* __restrict__ t,
                                      const T* __restrict__ s) {
  int w[3] = {L.width(0), L.width(1), L.width(2)};
  put(w, L.axis, reach_hi - reach_lo);
  const I n = I(w[0]) * I(w[1]) * I(w[2]);
  const std::int64_t sb = L.box_stride();
  for (I j = I(blockIdx.x) * I(blockDim.x) + I(threadIdx.x); j < n;
       j += I(gridDim.x) * I(blockDim.x)) {
    const I row = j / I(w[0]);
    int p[3] = {int(j - row * I(w[0])), int(row % I(w[1])), int(row / I(w[1]))};
#pragma unroll
    for (int a = 0; a < 3; ++a) p[a] += a == L.axis ? reach_lo : L.lo[a];
    const int k = pick(p, L.axis);
    int bp[3] = {p[0], p[1], p[2]};
    put(bp, L.axis, L.lo[L.axis]);  // the box's point on this row at the layer's first index
    const std::int64_t row0 =
        (std::int64_t(bp[2] - L.lo[2]) * L.width(1) + (bp[1] - L.lo[1])) * L.width(0) +
        (bp[0] - L.lo[0]);
    auto at = [&](const T* v, int kk) {
      return kk >= L.lo[L.axis] && kk < L.hi[L.axis] ? double(v[row0 + (kk - L.lo[L.axis]) * sb])
                                                     : 0.0;
    };
    double corr = L.d2[0] * at(t, k);
#pragma unroll
    for (int r = 1; r <= R; ++r)
      corr += L.d2[r] * (at(t, k - r) + at(t, k + r)) + L.d1[r] * (at(s, k - r) - at(s, k + r));
    const std::int64_t off = p[2] * L.plane + p[1] * L.pitch + p[0];
    q_new[off] = T(double(q_new[off]) + double(c2[off]) * corr);
  }
}

}  // namespace strata::cuda::kernels

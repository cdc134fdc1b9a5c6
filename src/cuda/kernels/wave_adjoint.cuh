// Device code of the wave scheme's adjoint (cuda/wave/adjoint.cu) in gather form: the CPML
// layers' three transposed statements, one kernel a layer. The bulk of the adjoint step is
// the forward leapfrog update itself (see adjoint.cu), so only the layers need a kernel of
// their own; its work is proportional to the absorbing shell.
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

// The lines of one layer adjoint_layer walks (made on the host, cuda/wave/adjoint.cu): a line is
// the layer's reach [reach_lo, reach_hi) along its axis (its box, and R points either side
// within the grid) at one point of the other two axes, line_axis and outer_axis; the threads
// take the lines in order along line_axis (x for y and z layers: consecutive threads touch
// consecutive addresses).
constexpr int kLayerThreads = 256;  // adjoint_layer's block
struct LayerLines {
  int reach_lo = 0, reach_hi = 0;
  int line_axis = 0, outer_axis = 0;
  std::int64_t lines = 0;  // the box's width along line_axis x along outer_axis
};

// One absorbing layer's three transposed statements in one pass, a thread a line:
//   zeta' = b zeta + a (...), and h's share of zeta' (h = q in the adjoint's variables):
//     zn = zeta_bar' + q; t = a zn; zeta_bar = b zn                       (the box's points)
//   psi' = b psi + a D1 u, and the D1 of psi' that h and zeta' read (psi is 0 outside the box):
//     pn = psi_bar' + sum_r d1_r ((q + t)[k - r] - (q + t)[k + r]) over box points k +- r;
//     s = a pn; psi_bar = b pn                                            (the box's points)
//   the layer's share of the new q (beyond a pml face the ghosts are 0 and take nothing):
//     q_new += c2 * (D2 t + d2_0 t - D1 s), t and s 0 outside the box     (the reach's points)
// Every statement reads only its own line, so a thread streams along it, each statement R
// points behind the one it reads: at step m, t at m, s at m - R, q_new at m - 2R, with the t,
// q + t and s they read in registers (windows of 3R + 1, 2R + 1 and 2R + 1 values, R the
// layer's radius at compile time). q_new must already hold the bulk update (the kernel runs
// after it). t and s are rounded to T as kept, and each sum is formed in double in the order
// of the statements above: the sums of three kernels that passed t and s through memory.
// Those took 0.84 ms for five 512^2 x 16 layers (H200, f32, Nsight Compute), more than the
// adjoint step's bulk update (0.70 ms), and their time added to the bulk's.
// The windows hold doubles (t and s as rounded to T, then widened: the same values, so the
// same sums), each value widened once as it enters: kept in T and widened at each use, a step
// took some 43 conversions to or from double, whose rate on sm_90 is 16 a cycle an SM (a
// quarter of double FMA's). The coefficients a and b come as doubles for the same reason.
// Measured (Nsight Compute, H200, f32 order 8, a 512^2 x 16 layer): 97 -> 84 us (1.27 ->
// 1.49 TB/s), loads two steps ahead made no difference alone. What holds it now is the
// instructions a step issues (SM throughput 57%, the FP64 pipe 13%, DRAM 31%, 15 warps an SM
// at 126 registers): among them the windows' shifts, a move per value per step.
template <class T, int R>
__global__ void __launch_bounds__(kLayerThreads, 2)
    adjoint_layer(const T* __restrict__ q, T* __restrict__ q_new, const T* __restrict__ c2,
                  const __grid_constant__ AdjointLayer L, const __grid_constant__ LayerLines ll,
                  const double* __restrict__ a, const double* __restrict__ b, T* __restrict__ psi,
                  T* __restrict__ zeta) {
  const int ax = L.axis, lo = pick(L.lo, ax), hi = pick(L.hi, ax);
  const std::int64_t sq = ax == 0 ? 1 : ax == 1 ? L.pitch : L.plane;  // the axis's stride in q
  const std::int64_t sb = L.box_stride();
  const std::int64_t wl = pick(L.hi, ll.line_axis) - pick(L.lo, ll.line_axis);
  for (std::int64_t line = std::int64_t(blockIdx.x) * kLayerThreads + threadIdx.x; line < ll.lines;
       line += std::int64_t(gridDim.x) * kLayerThreads) {
    const std::int64_t v = line / wl;
    int p[3] = {0, 0, 0};
    put(p, ax, lo);
    put(p, ll.line_axis, pick(L.lo, ll.line_axis) + int(line - v * wl));
    put(p, ll.outer_axis, pick(L.lo, ll.outer_axis) + int(v));
    // The line's point at k along the axis: offset0 + k sq in the fields, box0 + (k - lo) sb
    // in the layer's arrays.
    const std::int64_t offset0 = p[2] * L.plane + p[1] * L.pitch + p[0] - std::int64_t(lo) * sq;
    const std::int64_t box0 =
        (std::int64_t(p[2] - L.lo[2]) * L.width(1) + (p[1] - L.lo[1])) * L.width(0) +
        (p[0] - L.lo[0]);
    // t at m - 3R.., q + t at m - 2R.., s at m - 3R..
    double tw[3 * R + 1], uw[2 * R + 1], sw[2 * R + 1];
#pragma unroll
    for (int j = 0; j <= 3 * R; ++j) tw[j] = 0.0;
#pragma unroll
    for (int j = 0; j <= 2 * R; ++j) uw[j] = sw[j] = 0.0;
    // Each step's loads two steps ahead (q and zeta at m, psi at m - R, q_new and c2 at
    // m - 2R), issued before the step's stores: a thread waits on one step's loads while the
    // next two steps' are in flight. No address is both loaded ahead and stored before the
    // load: every array point of the line is loaded once, by the step that first needs it,
    // and stored once, later, by a step no earlier than that one (the stores of step m lie
    // behind what steps m + 1 and m + 2 load).
    struct Ahead {
      T q, zeta, psi, q_new, c2;
    };
    const int end = ll.reach_hi + 2 * R;
    auto load = [&](int m) {
      Ahead v{};
      if (m >= lo && m < hi)
        v.q = q[offset0 + std::int64_t(m) * sq], v.zeta = zeta[box0 + std::int64_t(m - lo) * sb];
      if (m - R >= lo && m - R < hi) v.psi = psi[box0 + std::int64_t(m - R - lo) * sb];
      const int kc = m - 2 * R;
      if (kc >= ll.reach_lo && kc < ll.reach_hi) {
        const std::int64_t off = offset0 + std::int64_t(kc) * sq;
        v.q_new = q_new[off], v.c2 = c2[off];
      }
      return v;
    };
    Ahead next = load(ll.reach_lo), after = load(ll.reach_lo + 1);  // m + 1, m + 2
    for (int m = ll.reach_lo; m < end; ++m) {
      const Ahead now = next;
      next = after;
      if (m + 2 < end) after = load(m + 2);
#pragma unroll
      for (int j = 0; j < 3 * R; ++j) tw[j] = tw[j + 1];
#pragma unroll
      for (int j = 0; j < 2 * R; ++j) uw[j] = uw[j + 1], sw[j] = sw[j + 1];
      tw[3 * R] = uw[2 * R] = sw[2 * R] = 0.0;
      if (m >= lo && m < hi) {  // zeta and t at m
        const std::int64_t li = box0 + std::int64_t(m - lo) * sb;
        const double qm = double(now.q);
        const double zn = double(now.zeta) + qm;
        const double tm = double(T(a[m - lo] * zn));
        tw[3 * R] = tm;
        uw[2 * R] = qm + tm;
        zeta[li] = T(b[m - lo] * zn);
      }
      const int k = m - R;
      if (k >= lo && k < hi) {  // psi and s at k: q + t at k +- r in uw[R +- r]
        const std::int64_t li = box0 + std::int64_t(k - lo) * sb;
        double pn = double(now.psi);
#pragma unroll
        for (int r = 1; r <= R; ++r) {
          if (k - r >= lo) pn += L.d1[r] * uw[R - r];
          if (k + r < hi) pn -= L.d1[r] * uw[R + r];
        }
        sw[2 * R] = double(T(a[k - lo] * pn));
        psi[li] = T(b[k - lo] * pn);
      }
      const int kc = m - 2 * R;
      if (kc >= ll.reach_lo && kc < ll.reach_hi) {  // q_new at kc: t and s at kc +- r in [R +- r]
        double corr = L.d2[0] * tw[R];
#pragma unroll
        for (int r = 1; r <= R; ++r)
          corr += L.d2[r] * (tw[R - r] + tw[R + r]) + L.d1[r] * (sw[R - r] - sw[R + r]);
        const std::int64_t off = offset0 + std::int64_t(kc) * sq;
        q_new[off] = T(double(now.q_new) + double(now.c2) * corr);
      }
    }
  }
}

// adjoint_layer for an x layer whose reach is at most a warp wide: a warp a row, lane l at
// reach_lo + l, the neighbours' t, q and s by shuffles. (adjoint_layer's thread a row reads
// 32 rows at once, one value of each: on the H200's 512^3 x layers that fetched 5-7 times the
// bytes, 420-540 us a layer against 91 for a y or z layer.) The same statements as
// adjoint_layer's, and its sums but q_new's, whose terms are grouped by side.
template <class T, int R>
__global__ void __launch_bounds__(kLayerThreads)
    adjoint_layer_rows(const T* __restrict__ q, T* __restrict__ q_new, const T* __restrict__ c2,
                       const __grid_constant__ AdjointLayer L,
                       const __grid_constant__ LayerLines ll, const double* __restrict__ a,
                       const double* __restrict__ b, T* __restrict__ psi, T* __restrict__ zeta) {
  constexpr unsigned all = 0xffffffffu;
  const int lane = int(threadIdx.x) % 32;
  const int lo = L.lo[0], hi = L.hi[0], k = ll.reach_lo + lane;
  const bool in_reach = k < ll.reach_hi, in_box = k >= lo && k < hi;
  const std::int64_t wy = L.width(1);
  const std::int64_t warps = std::int64_t(gridDim.x) * (kLayerThreads / 32);
  double av = 0.0, bv = 0.0;  // the lane's coefficients, every row's
  if (in_box) av = a[k - lo], bv = b[k - lo];
  for (std::int64_t row = std::int64_t(blockIdx.x) * (kLayerThreads / 32) + threadIdx.x / 32;
       row < ll.lines; row += warps) {  // the whole warp takes the row
    const std::int64_t z = row / wy, y = row - z * wy;
    const std::int64_t off = (L.lo[2] + z) * L.plane + (L.lo[1] + y) * L.pitch + k;
    const std::int64_t li = row * L.width(0) + (k - lo);
    T zv = T(0), qv = T(0), pv = T(0), nv = T(0), cv = T(0);
    if (in_box) zv = zeta[li], qv = q[off], pv = psi[li];
    if (in_reach) nv = q_new[off], cv = c2[off];
    T t = T(0);
    if (in_box) {  // zeta and t
      const double zn = double(zv) + double(qv);
      t = T(av * zn);
      zeta[li] = T(bv * zn);
    }
    // Each lane converts its own values to double once and the warp shuffles doubles: a float
    // shuffled and then converted costs a shuffle (32 lanes a cycle an SM) and a conversion (16),
    // a double two shuffles. Converting after the shuffles held this kernel at 145 us an H200
    // x layer (512^3 f32, order 8), the SM 69% busy and DRAM 23%.
    const double u = double(qv) + double(t);  // psi's sums read (q + t) at k +- r
    double pn = double(pv);
#pragma unroll
    for (int r = 1; r <= R; ++r) {
      const double u_lo = __shfl_up_sync(all, u, r), u_hi = __shfl_down_sync(all, u, r);
      if (in_box && k - r >= lo) pn += L.d1[r] * u_lo;
      if (in_box && k + r < hi) pn -= L.d1[r] * u_hi;
    }
    T sv = T(0);
    if (in_box) {
      sv = T(av * pn);
      psi[li] = T(bv * pn);
    }
    // The share of q_new, its terms grouped by side: k - r gives d2_r t + d1_r s, k + r gives
    // d2_r t - d1_r s (t and s 0 outside the box: lanes past the reach hold 0, and a lane r
    // from the warp's edge takes 0 for the side beyond it, which lies outside the box).
    const double td = double(t), sd = double(sv);
    double corr = L.d2[0] * td;
#pragma unroll
    for (int r = 1; r <= R; ++r) {
      const double w_lo = __shfl_up_sync(all, L.d2[r] * td + L.d1[r] * sd, r);
      const double w_hi = __shfl_down_sync(all, L.d2[r] * td - L.d1[r] * sd, r);
      corr += (lane >= r ? w_lo : 0.0) + (lane + r < 32 ? w_hi : 0.0);
    }
    if (in_reach) q_new[off] = T(double(nv) + double(cv) * corr);
  }
}

}  // namespace strata::cuda::kernels

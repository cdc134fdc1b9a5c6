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

// One absorbing layer's three transposed statements in one pass, a thread a line (the
// statements' reference; the launcher takes adjoint_layer_tiles below, the same bits, and this
// walk only for a reach longer than a tile holds):
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
      Ahead at{};
      if (m >= lo && m < hi)
        at.q = q[offset0 + std::int64_t(m) * sq], at.zeta = zeta[box0 + std::int64_t(m - lo) * sb];
      if (m - R >= lo && m - R < hi) at.psi = psi[box0 + std::int64_t(m - R - lo) * sb];
      const int kc = m - 2 * R;
      if (kc >= ll.reach_lo && kc < ll.reach_hi) {
        const std::int64_t off = offset0 + std::int64_t(kc) * sq;
        at.q_new = q_new[off], at.c2 = c2[off];
      }
      return at;
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

// adjoint_layer's statements a tile at a time, a thread a point: the tile is `lines` lines of
// the layer (consecutive in adjoint_layer's order) over the whole reach, lines x (len | 1) at
// most kTilePoints (len the reach's length; the launcher's choice, tile_lines below), each
// thread taking points kLayerThreads apart. Three phases, each over every point
// of the tile at once, parted by barriers: (1) every load of the tile issued (q, zeta, psi at
// the box's points; q_new and c2 at every point), zeta and t at the box's points, t and
// q + t into shared memory; (2) psi and s at the box's points, s into shared memory; (3) the
// share of q_new at every point. The same values and sums as adjoint_layer, in the same order
// (so the same bits), without its serial walk: a walk issued a step's loads and sums in turn,
// its windows shifted a value a step, and the SM issued its instructions at 57% of peak with
// DRAM at 31% (84 us a 512^2 x 16 f32 layer, H200). Consecutive threads take consecutive
// lines (x for y and z layers), or along the reach where the axis is x (`along`: its points
// are consecutive in memory), so a warp's loads are contiguous either way. In shared memory
// a line's points are consecutive (stride `pitch_s`, odd: its doubles fall on other banks).
constexpr int kTilePoints = 4 * kLayerThreads;
// A tile's lines for a reach of `len` points: 0 where one line does not fit (adjoint_layer then).
inline int tile_lines(int len, std::int64_t lines) {
  const std::int64_t fit = kTilePoints / (len | 1);
  return int(fit < lines ? fit : lines);
}
template <class T, int R>
__global__ void __launch_bounds__(kLayerThreads, sizeof(T) == 4 ? 3 : 2)
    adjoint_layer_tiles(const T* __restrict__ q, T* __restrict__ q_new, const T* __restrict__ c2,
                        const __grid_constant__ AdjointLayer L,
                        const __grid_constant__ LayerLines ll, const double* __restrict__ a,
                        const double* __restrict__ b, T* __restrict__ psi, T* __restrict__ zeta,
                        int lines) {
  constexpr int kPer = kTilePoints / kLayerThreads;  // a thread's points in a tile, at most
  __shared__ double t_s[kTilePoints], u_s[kTilePoints], s_s[kTilePoints];  // lines x pitch_s
  const int ax = L.axis, lo = pick(L.lo, ax), hi = pick(L.hi, ax);
  const int len = ll.reach_hi - ll.reach_lo, pitch_s = len | 1;
  const bool along = ax == 0;
  const int wl = pick(L.hi, ll.line_axis) - pick(L.lo, ll.line_axis);
  const std::int64_t tiles = (ll.lines + lines - 1) / lines;
  // A thread's points without a division each: point j = threadIdx.x + i kLayerThreads of the
  // tile is (fast, slow) = (j % n_fast, j / n_fast), the fast one the line (or, `along`, the
  // point along it); from one point to the next both advance by what kLayerThreads gives.
  const int n_fast = along ? len : lines;
  const int fast0 = int(threadIdx.x) % n_fast, slow0 = int(threadIdx.x) / n_fast;
  const int fast_step = kLayerThreads % n_fast, slow_step = kLayerThreads / n_fast;
  for (std::int64_t tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
    const std::int64_t line0 = tile * lines;
    // The tile's first line as (outer, across): its lines' own by a wrap, seldom a division.
    const std::int64_t outer0 = line0 / wl;
    const int across0 = int(line0 - outer0 * wl);
    struct Point {
      std::int64_t off = 0, li = 0;
      int k = 0, at = -1;  // along the axis; in shared memory (-1: no point)
      bool box = false;
      T q = T(0), zeta = T(0), psi = T(0), q_new = T(0), c2 = T(0);
    };
    Point pt[kPer];
    int fast = fast0, slow = slow0;
#pragma unroll
    for (int i = 0; i < kPer; ++i) {  // (1) the loads, all of them
      const int line_in = along ? slow : fast, kl = along ? fast : slow;
      fast += fast_step, slow += slow_step;
      if (fast >= n_fast) fast -= n_fast, ++slow;
      if (kl >= len || line_in >= lines) continue;  // past the tile
      const std::int64_t line = line0 + line_in;
      if (line >= ll.lines) continue;
      Point& P = pt[i];
      P.k = ll.reach_lo + kl;
      P.at = line_in * pitch_s + kl;
      int across = across0 + line_in;
      std::int64_t outer = outer0;
      if (across >= wl) {
        const int wraps = across / wl;
        outer += wraps, across -= wraps * wl;
      }
      int p[3] = {0, 0, 0};
      put(p, ax, P.k);
      put(p, ll.line_axis, pick(L.lo, ll.line_axis) + across);
      put(p, ll.outer_axis, pick(L.lo, ll.outer_axis) + int(outer));
      P.off = p[2] * L.plane + p[1] * L.pitch + p[0];
      P.box = P.k >= lo && P.k < hi;
      if (P.box) {
        P.li = (std::int64_t(p[2] - L.lo[2]) * L.width(1) + (p[1] - L.lo[1])) * L.width(0) +
               (p[0] - L.lo[0]);
        P.q = q[P.off], P.zeta = zeta[P.li], P.psi = psi[P.li];
      }
      P.q_new = q_new[P.off], P.c2 = c2[P.off];
    }
#pragma unroll
    for (int i = 0; i < kPer; ++i) {  // zeta and t at the box's points; t, q + t, s = 0 elsewhere
      const Point& P = pt[i];
      if (P.at < 0) continue;
      double t = 0.0, u = 0.0;
      if (P.box) {
        const double qm = double(P.q);
        const double zn = double(P.zeta) + qm;
        t = double(T(a[P.k - lo] * zn));
        u = qm + t;
        zeta[P.li] = T(b[P.k - lo] * zn);
      }
      t_s[P.at] = t, u_s[P.at] = u, s_s[P.at] = 0.0;
    }
    __syncthreads();
#pragma unroll
    for (int i = 0; i < kPer; ++i) {  // (2) psi and s at the box's points
      const Point& P = pt[i];
      if (P.at < 0 || !P.box) continue;
      double pn = double(P.psi);
#pragma unroll
      for (int r = 1; r <= R; ++r) {
        if (P.k - r >= lo) pn += L.d1[r] * u_s[P.at - r];
        if (P.k + r < hi) pn -= L.d1[r] * u_s[P.at + r];
      }
      s_s[P.at] = double(T(a[P.k - lo] * pn));
      psi[P.li] = T(b[P.k - lo] * pn);
    }
    __syncthreads();
#pragma unroll
    for (int i = 0; i < kPer; ++i) {  // (3) q_new at every point: t and s 0 outside the box
      const Point& P = pt[i];
      if (P.at < 0) continue;
      auto t_at = [&](int r) {
        const int k = P.k + r;
        return k >= lo && k < hi ? t_s[P.at + r] : 0.0;
      };
      auto s_at = [&](int r) {
        const int k = P.k + r;
        return k >= lo && k < hi ? s_s[P.at + r] : 0.0;
      };
      double corr = L.d2[0] * t_at(0);
#pragma unroll
      for (int r = 1; r <= R; ++r)
        corr += L.d2[r] * (t_at(-r) + t_at(r)) + L.d1[r] * (s_at(-r) - s_at(r));
      q_new[P.off] = T(double(P.q_new) + double(P.c2) * corr);
    }
    __syncthreads();  // before the next tile's phase (1) writes shared memory
  }
}

}  // namespace strata::cuda::kernels

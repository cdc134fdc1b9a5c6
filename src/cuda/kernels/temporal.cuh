// Temporal blocking: K steps of a stencil (u <- A u, or u <- u + c A u) in one trip
// through memory. A block owns a TX x TY column of output points and streams it in z over a
// window H = K R wider on each side in x and y; every thread owns one window column x and RY
// consecutive rows, and keeps, per level k = 0..K-1 (level 0 the input, level k after k
// steps), its column's latest planes in registers (a queue). Each z-step loads one input
// plane (prefetched a step ahead), then every level computes one plane, D planes behind the
// level below it (D = R for stars, whose in-plane neighbours are read on plane z only; R + 1
// for the 27-point stencils, which read the in-plane neighbours of planes z - 1 .. z + 1),
// and level K is stored. Neighbours along z come from the queue, in-plane ones from a
// ring of M planes per level in shared memory, or from the thread's own rows: one barrier
// per z-step keeps every ring read behind its write (planes are read >= 1 step after they
// were written and overwritten >= 1 step after their last read). The windows of
// neighbouring blocks overlap: the points each block computes beyond its tile are the
// redundant work that buys the K-fold cut in memory traffic.
//
// Boundaries, at every level as fill_ghosts makes them before every single step. Along x
// and y the window simply runs on past a domain face and every window point takes the same
// arithmetic, so that interior and face blocks read alike (no index tables, no tests per
// read):
// - dirichlet: a ghost point is loaded as the value and keeps it at every level;
// - neumann: a ghost point is loaded from its mirror (strata::ghost_source) and computed
//   like any other point, which gives its mirror's bits: the mirror's neighbours are its
//   own, mirrored, and the operators add each pair of taps a mirror swaps in one
//   (commutative) addition (Op::mirror_symmetric; box27's ordered sum is not, so it is not
//   fused with neumann faces);
// - periodic: the window runs on into the ghost layers, which the caller filled K R wide:
//   a point there is computed by the same arithmetic, on the same values, as the point it
//   wraps to, so it holds the same bits.
// Along z the planes beyond a face are not computed: the few planes within R of a z face
// read through the ghost rule (the mirrored plane, from the queue or the ring). Each
// point's arithmetic is the single-pass kernel's (stencil_25d.cuh with StarOp, Sym27Op or
// Box27Op): the same terms added in the same order with the same fused multiply-adds, so
// K fused steps give the bits of K single passes.
//
// TemporalThread is one thread's state and its z-step: the CUDA kernel runs it with a
// barrier between steps, and tests run every thread of a block on the host, step by step
// in alternating orders (tests/core/test_temporal_emulation.cpp), so the tiling, the
// queues, the rings and the boundary rules are checked on any machine.
#pragma once

#include <cstddef>
#include <cstdint>

#include "base/ghost_index.hpp"
#include "base/host_device.hpp"
#include "strata/boundary.hpp"

namespace strata::cuda::kernels {

// What a step stores from the stencil value s at a point whose value was u.
template <class T>
struct StepStore {
  STRATA_HOST_DEVICE T operator()(T s, T) const { return s; }
};
template <class T>
struct StepRelax {  // u + c s, as RelaxEpilogue (steps.cuh) writes it
  T c;
  STRATA_HOST_DEVICE T operator()(T s, T u) const { return u + c * s; }
};

// One step's value at (x, y, z) from the level below, read by `at(x, y, z)`, with the
// centre value it read; each in its single-pass kernel's order (stencil_ops.cuh), so that
// the bits agree.
template <class T, int R>
struct StarPoint {  // StarOp: z - R .. z - 1, then the in-plane sum, then z + 1 .. z + R
  static constexpr int radius = R;
  static constexpr bool off_centre = false;  // in-plane neighbours of plane z only
  static constexpr bool mirror_symmetric = true;
  T c[R + 1];  // c[0] centre, c[r] the six at distance r
  template <class At>
  STRATA_HOST_DEVICE T operator()(At&& at, int x, int y, int z, T& centre) const {
    T acc = T(0);
    STRATA_UNROLL
    for (int r = R; r >= 1; --r) acc = STRATA_FMA(c[r], at(x, y, z - r), acc);
    const T u = at(x, y, z);
    T in_plane = c[0] * u;
    STRATA_UNROLL
    for (int r = 1; r <= R; ++r)
      in_plane = STRATA_FMA(c[r], (at(x - r, y, z) + at(x + r, y, z)) + (at(x, y - r, z) + at(x, y + r, z)), in_plane);
    acc += in_plane;
    STRATA_UNROLL
    for (int r = 1; r <= R; ++r) acc = STRATA_FMA(c[r], at(x, y, z + r), acc);
    centre = u;
    return acc;
  }
};

template <class T>
struct Sym27Point {  // Sym27Op: per plane the centre C, faces F and corners E of its 3x3
  static constexpr int radius = 1;
  static constexpr bool off_centre = true;  // in-plane neighbours of planes z - 1 .. z + 1
  static constexpr bool mirror_symmetric = true;
  T c[4];  // centre, faces, edges, corners
  template <class At>
  STRATA_HOST_DEVICE void sums(At& at, int x, int y, int z, T& C, T& F, T& E) const {
    C = at(x, y, z);
    F = (at(x - 1, y, z) + at(x + 1, y, z)) + (at(x, y - 1, z) + at(x, y + 1, z));
    E = (at(x - 1, y - 1, z) + at(x + 1, y - 1, z)) + (at(x - 1, y + 1, z) + at(x + 1, y + 1, z));
  }
  template <class At>
  STRATA_HOST_DEVICE T operator()(At&& at, int x, int y, int z, T& centre) const {
    T C, F, E, acc = T(0);
    sums(at, x, y, z - 1, C, F, E);
    acc += STRATA_FMA(c[3], E, STRATA_FMA(c[2], F, c[1] * C));  // L1 of plane z - 1
    sums(at, x, y, z, C, F, E);
    centre = C;
    acc += STRATA_FMA(c[2], E, STRATA_FMA(c[1], F, c[0] * C));  // L0
    sums(at, x, y, z + 1, C, F, E);
    acc += STRATA_FMA(c[3], E, STRATA_FMA(c[2], F, c[1] * C));  // L1 of plane z + 1
    return acc;
  }
};

template <class T>
struct Box27Point {  // Box27Op: planes z-1, z, z+1; rows y-1..y+1; x-1..x+1, one sum
  static constexpr int radius = 1;
  static constexpr bool off_centre = true;
  static constexpr bool mirror_symmetric = false;  // one ordered sum of 27 taps
  T k[27];  // k[(dz+1)*9 + (dy+1)*3 + (dx+1)]
  template <class At>
  STRATA_HOST_DEVICE T operator()(At&& at, int x, int y, int z, T& centre) const {
    T acc = T(0);
    STRATA_UNROLL
    for (int dz = -1; dz <= 1; ++dz)
      STRATA_UNROLL
      for (int dy = -1; dy <= 1; ++dy)
        STRATA_UNROLL
        for (int dx = -1; dx <= 1; ++dx)
          acc = STRATA_FMA(k[(dz + 1) * 9 + (dy + 1) * 3 + (dx + 1)], at(x + dx, y + dy, z + dz), acc);
    centre = at(x, y, z);
    return acc;
  }
};

template <class T, class Op, class Epi>
struct TemporalArgs {
  const T* in;   // interior origin (0,0,0) of the input (its ghosts K R wide for periodic)
  T* out;        // interior origin of the output
  std::int64_t in_pitch, in_plane, out_pitch, out_plane;
  int nx, ny, nz;
  int tz;        // output planes per block along z (the grid's z blocks split nz)
  Op op;         // the point arithmetic (StarPoint, Sym27Point, Box27Point)
  BoundaryKind kind;
  T value;       // dirichlet
  Epi epi;
};

// A block: PX x TYT threads over a window of PX x PY = PX x (TYT RY) points.
template <class T, class Op, int K, int PX, int TYT, int RY>
struct TemporalShape {
  static constexpr int R = Op::radius;
  static constexpr bool off = Op::off_centre;
  static constexpr int D = off ? R + 1 : R;          // a level's lag behind the level below
  static constexpr int Q = R + D + 1;                 // a column's queue: planes z - R .. z + D
  static constexpr int M = off ? R + D + 1 : D + 1;  // a level's ring: planes z (- R) .. z + D
  static constexpr int H = K * R;                     // the window's halo in x and y
  static constexpr int HZ = K * D;                    // the stored plane's lag behind the loaded one
  static constexpr int PY = TYT * RY;
  static constexpr int TX = PX - 2 * H, TY = PY - 2 * H;  // output tile
  static constexpr int threads = PX * TYT;
  // Each ring plane has `margin` readable cells before and after it, so that the window's
  // edge points read (garbage) without a test.
  static constexpr int margin = R * PX + R + 1;
  static constexpr int stride = PX * PY + 2 * margin;
  static constexpr int planes = K * M;
  static constexpr std::size_t smem_values = std::size_t(planes) * stride;
  static constexpr std::size_t smem_bytes = smem_values * sizeof(T);
};

template <class T, class Op, class Epi, int K, int PX, int TYT, int RY>
class TemporalThread {
 public:
  using S = TemporalShape<T, Op, K, PX, TYT, RY>;
  static constexpr int R = S::R, D = S::D, Q = S::Q, M = S::M, H = S::H, HZ = S::HZ;
  static_assert(S::TX > 0 && S::TY > 0, "the window must be wider than its halo");
  static_assert(RY <= 32, "a row mask per thread");

  // Whether K fused steps of Op can keep boundary kind `kind` (neumann needs the mirror
  // symmetry that makes a ghost point's arithmetic give its mirror's bits).
  static constexpr bool supports(BoundaryKind kind) { return kind != BoundaryKind::neumann || Op::mirror_symmetric; }

  STRATA_HOST_DEVICE TemporalThread(const TemporalArgs<T, Op, Epi>& a, int bx, int by, int bz, int tid) : a_(a) {
    tx_ = tid % PX;
    ty_ = tid / PX;
    periodic_ = a.kind == BoundaryKind::periodic;
    x0_ = bx * S::TX, y0_ = by * S::TY, z0_ = bz * a.tz;
    x1_ = min_(x0_ + S::TX, a.nx), y1_ = min_(y0_ + S::TY, a.ny), z1_ = min_(z0_ + a.tz, a.nz);
    gx_ = x0_ - H + tx_;
    gy_ = y0_ - H + ty_ * RY;
    me_ = ty_ * RY * PX + tx_;
    out_at_ = std::int64_t(gy_) * a.out_pitch + gx_;
    face_ = !periodic_ && (x0_ - H < 0 || x0_ - H + PX > a.nx || y0_ - H < 0 || y0_ - H + S::PY > a.ny);
    const bool x_in = gx_ >= 0 && gx_ < a.nx;
    sx_ = x_in || periodic_ ? gx_ : ghost_source(a.kind, gx_, a.nx);
    in_at_ = std::int64_t(gy_) * a.in_pitch + sx_;
    xload_ = gx_ >= load_lo(x0_) && gx_ < load_hi(x1_, a.nx);
    store_ = ghost_ = 0;
    STRATA_UNROLL
    for (int v = 0; v < RY; ++v) {
      const int y = gy_ + v;
      if (xload_ && y >= load_lo(y0_) && y < load_hi(y1_, a.ny)) rowload_ |= 1u << v;
      if (gx_ >= x0_ && gx_ < x1_ && y >= y0_ && y < y1_) store_ |= 1u << v;
      if (a.kind == BoundaryKind::dirichlet && !(x_in && y >= 0 && y < a.ny)) ghost_ |= 1u << v;
    }
    STRATA_UNROLL
    for (int k = 0; k < K; ++k)
      STRATA_UNROLL
      for (int v = 0; v < RY; ++v)
        STRATA_UNROLL
        for (int j = 0; j < Q; ++j) q_[k][v][j] = T(0);
    if (face_)
      fetch<true>(z0_ - H, next_);
    else
      fetch<false>(z0_ - H, next_);
  }

  // z-steps of the block: level 0 loads from z0 - H (the lowest plane any level reads),
  // and the stored plane runs from z0 to z1, HZ behind the loaded one.
  STRATA_HOST_DEVICE int steps() const { return z1_ - z0_ + H + HZ; }

  // z-step i: level 0 takes plane z0 - H + i (prefetched), every level k one plane k D
  // behind it, level K stores. Blocks whose window crosses a face in x or y take the
  // ghost rules (their own instance of the step, so that the others carry no tests).
  STRATA_HOST_DEVICE void step(int i, T* smem) {
    if (face_)
      step<true>(i, smem);
    else
      step<false>(i, smem);
  }

 private:
  static STRATA_HOST_DEVICE int min_(int a, int b) { return a < b ? a : b; }
  static STRATA_HOST_DEVICE int max_(int a, int b) { return a > b ? a : b; }

  template <bool Face>
  STRATA_HOST_DEVICE void step(int i, T* smem) {
    const int p0 = z0_ - H + i;
    T cur[RY];
    STRATA_UNROLL
    for (int v = 0; v < RY; ++v) cur[v] = next_[v];
    fetch<Face>(p0 + 1, next_);  // in flight while this step computes
    if (p0 >= load_lo(z0_) && p0 < load_hi(z1_, a_.nz)) {
      T* ring = plane(smem, 0, p0);
      STRATA_UNROLL
      for (int v = 0; v < RY; ++v) ring[me_ + v * PX] = cur[v];
    }
    STRATA_UNROLL
    for (int v = 0; v < RY; ++v) push(q_[0][v], cur[v]);
    levels<1, Face>(p0, smem);
  }

  // The points of level 0 a block loads along an axis: K R beyond its tile, clipped to the
  // domain unless periodic (whose ghosts are loaded).
  STRATA_HOST_DEVICE int load_lo(int lo) const { return periodic_ ? lo - H : max_(0, lo - H); }
  STRATA_HOST_DEVICE int load_hi(int hi, int n) const { return periodic_ ? hi + H : min_(n, hi + H); }

  // The thread's rows of input plane p (0 where the block loads nothing). Inside the domain
  // (and in the periodic ghosts) the point itself; in face blocks, ghost points in x or y
  // hold what fill_ghosts would put there: the Dirichlet value, or the neumann mirror's value.
  template <bool Face>
  STRATA_HOST_DEVICE void fetch(int p, T (&dst)[RY]) const {
    const bool z_ok = p >= load_lo(z0_) && p < load_hi(z1_, a_.nz);
    if constexpr (!Face) {
      std::int64_t at = std::int64_t(p) * a_.in_plane + in_at_;
      STRATA_UNROLL
      for (int v = 0; v < RY; ++v, at += a_.in_pitch) dst[v] = z_ok && (rowload_ >> v & 1u) ? a_.in[at] : T(0);
    } else {
      const std::int64_t at = std::int64_t(p) * a_.in_plane + sx_;
      STRATA_UNROLL
      for (int v = 0; v < RY; ++v) {
        const int y = gy_ + v;
        const int sy = y >= 0 && y < a_.ny ? y : ghost_source(a_.kind, y, a_.ny);
        dst[v] = !z_ok ? T(0) : ghost_ >> v & 1u ? a_.value : a_.in[at + std::int64_t(sy) * a_.in_pitch];
      }
    }
  }

  static STRATA_HOST_DEVICE void push(T (&q)[Q], T value) {
    STRATA_UNROLL
    for (int j = 0; j + 1 < Q; ++j) q[j] = q[j + 1];
    q[Q - 1] = value;
  }
  static STRATA_HOST_DEVICE T pick(const T (&q)[Q], int j) {  // q[j] for a j known at run time
    T r = q[0];
    STRATA_UNROLL
    for (int jj = 1; jj < Q; ++jj) r = jj == j ? q[jj] : r;
    return r;
  }

  // Level k's ring plane holding plane z (origin at the window's (0, 0)).
  STRATA_HOST_DEVICE T* plane(T* smem, int k, int z) const {
    const int slot = (z - (z0_ - 2 * HZ - 2 * M)) % M;  // the argument is never negative
    return smem + (std::size_t(k) * M + slot) * S::stride + S::margin;
  }

  template <int k, bool Face>
  STRATA_HOST_DEVICE void levels(int p0, T* smem) {
    if constexpr (k <= K) {
      const int z = p0 - k * D;
      const int lo = k == K ? z0_ : z0_ - (K - k) * R, hi = k == K ? z1_ : z1_ + (K - k) * R;
      const bool active = z >= lo && z < hi && (periodic_ || (z >= 0 && z < a_.nz));
      T val[RY];
      if (active) {
        // Planes near a z face take the ghost rule along z: a few planes per block.
        if (!periodic_ && (z - R < 0 || z + R >= a_.nz))
          level<k, Face, true>(z, smem, val);
        else
          level<k, Face, false>(z, smem, val);
      }
      if constexpr (k < K) {
        if (active) {
          T* ring = plane(smem, k, z);
          STRATA_UNROLL
          for (int v = 0; v < RY; ++v) ring[me_ + v * PX] = val[v];
        }
        STRATA_UNROLL
        for (int v = 0; v < RY; ++v) push(q_[k][v], active ? val[v] : T(0));
        levels<k + 1, Face>(p0, smem);
      } else if (active && store_ != 0) {
        std::int64_t at = std::int64_t(z) * a_.out_plane + out_at_;
        STRATA_UNROLL
        for (int v = 0; v < RY; ++v, at += a_.out_pitch)
          if (store_ >> v & 1u) a_.out[at] = val[v];
      }
    }
  }

  // Level k's plane z, from level k - 1. Every window point takes the same arithmetic:
  // inside the domain that is the step; a neumann ghost point computes its mirror's value
  // bit for bit (its neighbours are its mirror's, mirrored, and the operator adds each pair
  // of mirrored taps with one commutative addition); a dirichlet ghost point keeps the
  // value. Points within K R of the window's edge read past it (the ring planes' margins)
  // and are wrong, but no stored point depends on them.
  template <int k, bool Face, bool ZFace>
  STRATA_HOST_DEVICE void level(int z, T* smem, T (&val)[RY]) const {
    const T(&q)[RY][Q] = q_[k - 1];
    const T* planes[2 * R + 1];  // level k - 1's ring planes z - R .. z + R (those in the ring)
    STRATA_UNROLL
    for (int d = -R; d <= R; ++d) planes[d + R] = plane(smem, k - 1, z + d);
    STRATA_UNROLL
    for (int v = 0; v < RY; ++v) {
      auto at = [&](int dx, int dy, int dz) -> T {
        const bool own_row = dx == 0 && v + dy >= 0 && v + dy < RY;
        if constexpr (ZFace) {
          const int zp = z + dz;
          if (zp < 0 || zp >= a_.nz) {
            if (a_.kind == BoundaryKind::dirichlet) return a_.value;
            const int m = ghost_source(a_.kind, zp, a_.nz);
            if (own_row) return pick(q[v + dy], R + m - z);
            return plane(smem, k - 1, m)[me_ + (v + dy) * PX + dx];
          }
        }
        if (own_row) return q[v + dy][R + dz];
        return planes[dz + R][me_ + (v + dy) * PX + dx];
      };
      T centre;
      const T s = a_.op(at, 0, 0, 0, centre);
      val[v] = a_.epi(s, centre);
      if constexpr (Face) val[v] = ghost_ >> v & 1u ? a_.value : val[v];
    }
  }

  const TemporalArgs<T, Op, Epi>& a_;
  int tx_, ty_, x0_, y0_, z0_, x1_, y1_, z1_, gx_, gy_, me_;
  int sx_;                       // the column the thread loads: gx, or its mirror (neumann)
  std::int64_t in_at_, out_at_;  // the thread's first row in plane 0 of the input, the output
  bool periodic_, face_, xload_;
  unsigned rowload_ = 0;         // bit v: row v is loaded (x included)
  unsigned store_;               // bit v: row v is an output point
  unsigned ghost_;               // bit v: row v is a dirichlet ghost point
  T q_[K][RY][Q];                // level k's column: planes z - R .. z + D of the level above
  T next_[RY];                   // the prefetched input plane
};

#if defined(__CUDACC__)
template <class T, class Op, class Epi, int K, int PX, int TYT, int RY>
__global__ void __launch_bounds__(PX * TYT, 1) temporal_steps(const __grid_constant__ TemporalArgs<T, Op, Epi> a) {
  extern __shared__ __align__(16) unsigned char temporal_smem[];
  T* smem = reinterpret_cast<T*>(temporal_smem);
  TemporalThread<T, Op, Epi, K, PX, TYT, RY> t(a, int(blockIdx.x), int(blockIdx.y), int(blockIdx.z), int(threadIdx.x));
  const int steps = t.steps();
  for (int i = 0; i < steps; ++i) {
    t.step(i, smem);
    __syncthreads();
  }
}
#endif

}  // namespace strata::cuda::kernels

// Temporal blocking: K steps of a stencil (u <- A u, or u <- u + c A u) in one trip
// through memory. A block owns a TX x TY column of output points and streams it in z; for
// every level k = 0..K-1 (level 0 the input, level k after k steps) it keeps a ring of the
// 2R+1 latest planes of a window R (K-k) points wider than its tile on each side, and each
// z-step loads one input plane, then computes one plane per level, the level-k plane R
// planes behind the level-(k-1) one (it needs k-1's planes z-R..z+R), and stores level K.
// The windows overlap between neighbouring blocks: the ring of points each block computes
// beyond its tile is redundant work that buys the K-fold cut in memory traffic.
//
// Boundaries, at every level as fill_ghosts makes them before every single step:
// - dirichlet: a read outside the domain is the value;
// - neumann: a read outside is of the mirrored point (strata::ghost_source per axis), which
//   lies in the block's own window: the window is clipped to the domain and never computed
//   outside it;
// - periodic: the window runs on into the ghost layers, which the caller filled K R wide:
//   a point there is computed by the same arithmetic, on the same values, as the point it
//   wraps to, so it holds the same bits.
// Each point's arithmetic is the 2.5D kernel's (stencil_25d.cuh with StarOp, Sym27Op or
// Box27Op): the same terms added in the same order, so K fused steps give the bits of K
// single passes.
//
// temporal_block is written for one block as phases over its points split by `sync()`:
// the CUDA kernel runs it with its threads and __syncthreads, and tests run it on the host
// with one "thread" and no barrier (tests/core/test_temporal_emulation.cpp), so the tiling,
// the rings and the boundary rules are checked on any machine.
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
  T c[R + 1];  // c[0] centre, c[r] the six at distance r
  template <class At>
  STRATA_HOST_DEVICE T operator()(At&& at, int x, int y, int z, T& centre) const {
    T acc = T(0);
    STRATA_UNROLL
    for (int r = R; r >= 1; --r) acc += c[r] * at(x, y, z - r);
    const T u = at(x, y, z);
    T in_plane = c[0] * u;
    STRATA_UNROLL
    for (int r = 1; r <= R; ++r)
      in_plane += c[r] * ((at(x - r, y, z) + at(x + r, y, z)) + (at(x, y - r, z) + at(x, y + r, z)));
    acc += in_plane;
    STRATA_UNROLL
    for (int r = 1; r <= R; ++r) acc += c[r] * at(x, y, z + r);
    centre = u;
    return acc;
  }
};

template <class T>
struct Sym27Point {  // Sym27Op: per plane the centre C, faces F and corners E of its 3x3
  static constexpr int radius = 1;
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
  T k[27];  // k[(dz+1)*9 + (dy+1)*3 + (dx+1)]
  template <class At>
  STRATA_HOST_DEVICE T operator()(At&& at, int x, int y, int z, T& centre) const {
    T acc = T(0);
    STRATA_UNROLL
    for (int dz = -1; dz <= 1; ++dz)
      STRATA_UNROLL
      for (int dy = -1; dy <= 1; ++dy)
        STRATA_UNROLL
        for (int dx = -1; dx <= 1; ++dx) acc += k[(dz + 1) * 9 + (dy + 1) * 3 + (dx + 1)] * at(x + dx, y + dy, z + dz);
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

STRATA_HOST_DEVICE inline int ring_slot(int z, int m) {
  const int s = z % m;
  return s < 0 ? s + m : s;
}

// Shared memory of a block: K rings of 2R+1 planes of (TX + 2H) x (TY + 2H) values.
template <class T, int R, int K, int TX, int TY>
struct TemporalShape {
  static constexpr int H = K * R;
  static constexpr int PX = TX + 2 * H, PY = TY + 2 * H, M = 2 * R + 1;
  static constexpr std::size_t smem_values = std::size_t(K) * M * PX * PY;
  static constexpr std::size_t smem_bytes = smem_values * sizeof(T);
};

template <class T, class Op, int K, int TX, int TY, class Epi, class Sync>
STRATA_HOST_DEVICE void temporal_block(const TemporalArgs<T, Op, Epi>& a, int bx, int by, int bz, int tid,
                                       int nthreads, T* smem, Sync&& sync) {
  constexpr int R = Op::radius;
  using S = TemporalShape<T, R, K, TX, TY>;
  constexpr int H = S::H, PX = S::PX, PY = S::PY, M = S::M;
  const bool periodic = a.kind == BoundaryKind::periodic;
  const int x0 = bx * TX, y0 = by * TY, z0 = bz * a.tz;
  const int x1 = x0 + TX < a.nx ? x0 + TX : a.nx, y1 = y0 + TY < a.ny ? y0 + TY : a.ny;
  const int z1 = z0 + a.tz < a.nz ? z0 + a.tz : a.nz;
  const int wx = x0 - H, wy = y0 - H;  // window origin

  auto cell = [&](int k, int x, int y, int z) -> T& {
    return smem[((std::size_t(k) * M + ring_slot(z, M)) * PY + (y - wy)) * PX + (x - wx)];
  };
  // A level-k value as the single-step path sees it, ghost rule included.
  auto read = [&](int k, int x, int y, int z) -> T {
    const bool inside = x >= 0 && x < a.nx && y >= 0 && y < a.ny && z >= 0 && z < a.nz;
    if (inside || periodic) return cell(k, x, y, z);
    if (a.kind == BoundaryKind::dirichlet) return a.value;
    return cell(k, ghost_source(a.kind, x, a.nx), ghost_source(a.kind, y, a.ny), ghost_source(a.kind, z, a.nz));
  };
  // The points of level k a block holds: R (K - k) beyond its tile, clipped to the domain
  // unless periodic (whose ghosts are computed).
  struct Span {
    int lo, hi;
  };
  auto span = [&](int lo, int hi, int k, int n) -> Span {
    Span s{lo - R * (K - k), hi + R * (K - k)};
    if (!periodic) {
      s.lo = s.lo < 0 ? 0 : s.lo;
      s.hi = s.hi > n ? n : s.hi;
    }
    return s;
  };

  // One step at (x, y, z) of plane z from the level whose planes z - R .. z + R are
  // `planes`: a point whose neighbourhood lies inside the domain (every point, periodic)
  // reads them directly, one near a face through the ghost rule.
  const T* planes[2 * R + 1] = {};  // set by point_planes before step_at reads them
  auto step_at = [&](int ks, int x, int y, int z, T& u) -> T {
    const bool near_face =
        !periodic && (x < R || x >= a.nx - R || y < R || y >= a.ny - R || z < R || z >= a.nz - R);
    if (near_face) return a.op([&](int xx, int yy, int zz) { return read(ks, xx, yy, zz); }, x, y, z, u);
    const std::ptrdiff_t c = std::ptrdiff_t(y - wy) * PX + (x - wx);
    return a.op([&](int xx, int yy, int zz) { return planes[zz - z + R][c + std::ptrdiff_t(yy - y) * PX + (xx - x)]; },
                x, y, z, u);
  };
  auto point_planes = [&](int ks, int z) {
    STRATA_UNROLL
    for (int j = 0; j <= 2 * R; ++j) planes[j] = smem + (std::size_t(ks) * M + ring_slot(z - R + j, M)) * PY * PX;
  };

  // z-step i loads level-0 plane z0 - H + i (when the level-0 span holds it); level k then
  // works on the plane k R behind it, level K stores the plane H behind it.
  const int steps = (z1 + H) - (z0 - H);
  for (int i = 0; i < steps; ++i) {
    const int zin = z0 - H + i;
    for (int k = 0; k <= K; ++k) {
      const int z = zin - k * R;
      if (k == K) {  // the output plane, straight to memory
        if (z >= z0 && z < z1) {
          point_planes(K - 1, z);
          const int w = x1 - x0, n = w * (y1 - y0);
          for (int p = tid; p < n; p += nthreads) {
            const int x = x0 + p % w, y = y0 + p / w;
            T u;
            const T s = step_at(K - 1, x, y, z, u);
            a.out[std::int64_t(z) * a.out_plane + std::int64_t(y) * a.out_pitch + x] = a.epi(s, u);
          }
        }
        continue;
      }
      const Span zs = span(z0, z1, k, a.nz);
      if (z >= zs.lo && z < zs.hi) {
        const Span xs = span(x0, x1, k, a.nx), ys = span(y0, y1, k, a.ny);
        const int w = xs.hi - xs.lo, n = w * (ys.hi - ys.lo);
        if (k > 0) point_planes(k - 1, z);
        for (int p = tid; p < n; p += nthreads) {
          const int x = xs.lo + p % w, y = ys.lo + p / w;
          if (k == 0) {
            cell(0, x, y, z) = a.in[std::int64_t(z) * a.in_plane + std::int64_t(y) * a.in_pitch + x];
          } else {
            T u;
            const T s = step_at(k - 1, x, y, z, u);
            cell(k, x, y, z) = a.epi(s, u);
          }
        }
      }
      sync();  // level k's plane is visible before level k + 1 reads it
    }
    sync();  // every level is done with this step's planes before the rings move on
  }
}

struct NoSync {  // the host emulation: one "thread" runs every phase in order
  STRATA_HOST_DEVICE void operator()() const {}
};
#if defined(__CUDACC__)
struct BlockSync {
  __device__ void operator()() const { __syncthreads(); }
};

template <class T, class Op, int K, int TX, int TY, int THREADS, class Epi>
__global__ void __launch_bounds__(THREADS, 1) temporal_steps(TemporalArgs<T, Op, Epi> a) {
  extern __shared__ __align__(16) unsigned char temporal_smem[];
  temporal_block<T, Op, K, TX, TY>(a, int(blockIdx.x), int(blockIdx.y), int(blockIdx.z), int(threadIdx.x), THREADS,
                                  reinterpret_cast<T*>(temporal_smem), BlockSync{});
}
#endif

}  // namespace strata::cuda::kernels

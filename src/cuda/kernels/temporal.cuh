// Temporal blocking: K steps of a stencil (u <- A u, or u <- u + c A u) in one trip
// through memory. A block owns a TX x TY column of output points and streams it in z over a
// window H = K R wider on each side in x and y; every thread owns one window column x and RY
// consecutive rows, and keeps, per level k = 0..K-1 (level 0 the input, level k after k
// steps), its column's latest planes in registers (a queue). Each z-step loads one input
// plane (prefetched a step ahead into registers, or for the 7-point stencil copied Q - 1
// steps ahead into level 0's ring in shared memory, by one bulk tensor copy or per thread),
// then every level computes one plane, D planes behind the
// level below it (D = R for stars, whose in-plane neighbours are read on plane z only; R + 1
// for the 27-point stencils, which read the in-plane neighbours of planes z - 1 .. z + 1),
// and level K is stored. Neighbours along z come from the queue, in-plane ones from a
// ring of Q planes per level in shared memory, or from the thread's own rows: one barrier
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
// - periodic: a point past the face is loaded from the point it wraps to and computed by
//   the same arithmetic, on the same values, so it holds the same bits.
// Along z, periodic planes past a face are loaded from the ghost planes (which the caller
// filled K R deep) and computed like any other; for the other kinds nothing stored reads a
// plane past a face: the few steps that compute a plane within R of a z face read through
// the ghost rule (the mirrored plane, from the queue or the ring) in their own instance of
// the step. Each
// point's arithmetic is the single-pass kernel's (stencil_25d.cuh with StarOp, Sym27Op or
// Box27Op): the same terms added in the same order with the same fused multiply-adds, so
// K fused steps give the bits of K single passes.
//
// TemporalThread is one thread's state and its z-step: the CUDA kernel runs it with a
// barrier between steps, and tests run every thread of a block on the host, step by step
// in alternating orders (tests/core/test_temporal_emulation.cpp), so the tiling, the
// queues, the rings and the boundary rules are checked on any machine.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>

#include "base/ghost_index.hpp"
#include "base/host_device.hpp"
#include "strata/boundary.hpp"

#if defined(__CUDACC__)
#include "cuda/kernels/async_copy.cuh"
#endif

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
// An update that also reads an operand field at the point (the multigrid smoothers,
// smoother.hpp) has `T operand(at)`, the field's value at offset `at` of the output's layout
// (which the field shares), and `template <int k> T step(s, u, prev, operand)`: k the level
// it computes, prev the value of level k - 2 at the point (the iterate before u; k >= 2).
template <class Epi>
concept PointOperands = requires { Epi::point_operands; };

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

// Whether the rows a window reaches, H beyond the ny rows of a plane of `pitch`, have
// offsets within the plane that fit an int: a thread keeps its rows' offsets in 32 bits (64
// bits cost the 7-point f32 K = 3 pass two registers it does not have: ptxas spilled).
inline constexpr bool in_plane_offsets(std::int64_t pitch, int ny, int H) {
  return (std::int64_t(ny) + 2 * H + 1) * pitch < (std::int64_t(1) << 31);
}

template <class T, class Op, class Epi>
struct TemporalArgs {
  // A CUtensorMap of the input's allocation (staged passes), which the bulk copy reads where
  // the kernel parameter holds it: aligned as CUDA 13 declares it (128 bytes; at 64 the
  // copy was an illegal instruction).
  alignas(128) unsigned char map[128];
  const T* in;   // interior origin (0,0,0) of the input (its ghosts K R wide for periodic)
  T* out;        // interior origin of the output
  std::int64_t in_pitch, in_plane, out_pitch, out_plane;
  int nx, ny, nz;
  int tz;        // output planes per block along z (the grid's z blocks split nz)
  Op op;         // the point arithmetic (StarPoint, Sym27Point, Box27Point)
  BoundaryKind kind;
  T value;       // dirichlet
  Epi epi;
  // Staged passes: whether `map` takes the bulk copies (without it every block copies per
  // thread), and the interior origin's coordinates in it.
  bool bulk;
  int map_x, map_y, map_z;
};

// Whether the steps of Op run Q at a time (below): the code grows Q-fold, which pays for the
// 7-point stencil's queue of 3 (1.40x the memcpy-bound rate at K = 3 in f32, from 1.16x
// rolled); the 27-point stencils' (Q = 4) ran 2.5x slower unrolled at K = 2, and the longer
// ones took ptxas over 18 minutes.
template <class Op>
inline constexpr bool temporal_unrolled = 2 * Op::radius + (Op::off_centre ? 2 : 1) <= 3;

// A block: PX x TYT threads over a window of PX x PY = PX x (TYT RY) points.
template <class T, class Op, int K, int PX, int TYT, int RY>
struct TemporalShape {
  static constexpr int R = Op::radius;
  static constexpr bool off = Op::off_centre;
  static constexpr int D = off ? R + 1 : R;  // a level's lag behind the level below
  static constexpr int Q = R + D + 1;         // planes a level keeps: z - R .. z + D of the level it feeds
  static constexpr int H = K * R;             // the window's halo in x and y
  static constexpr int HZ = K * D;            // the stored plane's lag behind the loaded one
  static constexpr int PY = TYT * RY;
  static constexpr int TX = PX - 2 * H, TY = PY - 2 * H;  // output tile
  static constexpr int threads = PX * TYT;
  // Staged passes (the unrolled stencils, below) copy the input planes straight into level
  // 0's ring, Q - 1 steps ahead: its plane z is read at the steps of z and z + D, so that the
  // ring keeps S0 = Q + 1 slots (the copy into a slot lands while the plane before it is
  // still read). The other levels keep Q planes, as many as their queues.
  static constexpr bool staged = temporal_unrolled<Op>;
  static constexpr int S0 = staged ? Q + 1 : Q;
  static_assert(!staged || (!off && (S0 & (S0 - 1)) == 0), "staged: a star whose level-0 slots are a power of two");
  // A bulk copy (below) starts on a 16-byte boundary in x and lands on a 128-byte one, so
  // that staged rings keep rows of PX + A points (A = 16 bytes of points: the window's first
  // column sits `shift` < A points into its row) and planes on 128-byte boundaries.
  static constexpr int A = staged ? int(16 / sizeof(T)) : 0;
  static constexpr int row = PX + A;
  static constexpr int align = staged ? int(128 / sizeof(T)) : 1;
  static constexpr int round_up(int v) { return (v + align - 1) / align * align; }
  // Each ring plane has `margin` readable cells before and after it, so that the window's
  // edge points read (garbage) without a test.
  static constexpr int margin = round_up(R * row + R + 1 + A);
  static constexpr int stride = round_up(row * PY + 2 * margin);
  static constexpr int planes = S0 + (K - 1) * Q;
  // One mbarrier per level-0 slot (bulk copies) after the planes.
  static constexpr std::size_t bars_at = std::size_t(planes) * stride;
  static constexpr std::size_t smem_values = bars_at + (staged ? S0 * 8 / sizeof(T) : 0);
  static constexpr std::size_t smem_bytes = smem_values * sizeof(T);
};


// Staged passes (TemporalShape::staged) copy the input planes Q - 1 steps ahead into level
// 0's ring slots, asynchronously (no registers held while they travel). Loaded into
// registers one step ahead, the 7-point f32 K = 3 pass waited on the loads at the top of
// every step (19 % of its stall samples at 512^3): a step of all 24 warps is shorter than
// the loads' latency when every SM loads at once after a barrier. Two ways:
// - bulk: one thread copies the whole window plane with one bulk tensor copy (TMA), which
//   completes on the slot's mbarrier. Blocks whose window lies inside the domain in x and y,
//   and dirichlet face blocks (their ghost points take the value whatever was loaded). The
//   threads spend no instruction on addresses, loads or level 0's ring: a thread's step of
//   the 7-point f32 K = 3 pass, bound by issue, went from 281 to 239 instructions (SASS)
//   and the pass from 709 to 757 Gpts/s at 512^3 on the H100;
// - per thread (cp.async): each thread copies its rows, by the ghost rules in face blocks
//   (neumann and periodic), or everywhere where the input has no tensor map.
template <class T>
STRATA_HOST_DEVICE inline void stage_copy(T* to, const T* from) {
#if defined(__CUDA_ARCH__)
  const unsigned at = unsigned(__cvta_generic_to_shared(to));
  asm volatile("cp.async.ca.shared.global [%0], [%1], %2;\n" ::"r"(at), "l"(from), "n"(int(sizeof(T))) : "memory");
#else
  *to = *from;
#endif
}
STRATA_HOST_DEVICE inline void stage_commit() {
#if defined(__CUDA_ARCH__)
  asm volatile("cp.async.commit_group;\n" ::: "memory");
#endif
}
template <int Pending>  // wait until at most Pending of the thread's latest groups are in flight
STRATA_HOST_DEVICE inline void stage_wait() {
#if defined(__CUDA_ARCH__)
  asm volatile("cp.async.wait_group %0;\n" ::"n"(Pending) : "memory");
#endif
}
// The bulk copies' completion: plane n of a block lands in slot n mod S0 and completes that
// slot's mbarrier phase n / S0.
STRATA_HOST_DEVICE inline void bulk_wait([[maybe_unused]] std::uint64_t* bar, [[maybe_unused]] unsigned parity) {
#if defined(__CUDA_ARCH__)
  mbar_wait(bar, parity);
#endif
}
// Orders the thread's shared-memory writes before later bulk copies into the same place
// (the dirichlet values written over a face block's loaded ghost points).
STRATA_HOST_DEVICE inline void bulk_fence() {
#if defined(__CUDA_ARCH__)
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
#endif
}

// Planes live in slots: plane z of every level in ring slot (z - (z0 - H)) mod Q, so that a
// plane is written over the one Q below it, which nothing reads any more. Level 0 loads plane
// z0 - H + i at z-step i and level k computes the plane k D below, so that the slot of every
// plane a step touches depends on i mod Q alone. Unrolled, the kernel runs the steps Q at a
// time, each with its phase i mod Q known to the compiler, and keeps the queues in the same
// slots: every queue register and ring address is fixed (no moves to shift the queues, no
// address arithmetic; staged passes find level 0's slot, mod S0, at run time). Rolled
// (phase `rolled`, for the longer queues), a step finds its ring slots at run time and each
// queue is kept in order, oldest first, shifted by one plane per step. Every level computes a plane at every step, whether or not a stored point needs it
// (the first and last planes of a block are garbage that nothing stored reads), so that
// steps carry no tests.
template <class T, class Op, class Epi, int K, int PX, int TYT, int RY, bool Unroll = temporal_unrolled<Op>>
class TemporalThread {
 public:
  using S = TemporalShape<T, Op, K, PX, TYT, RY>;
  static constexpr int R = S::R, D = S::D, Q = S::Q, H = S::H, HZ = S::HZ;
  static constexpr int phases = Q;
  static constexpr int rolled = -1;  // the phase of a rolled step
  static constexpr bool unroll = Unroll;
  static_assert(S::TX > 0 && S::TY > 0, "the window must be wider than its halo");
  static_assert(RY <= 32, "a row mask per thread");
  // The value two levels below at the point is still in that level's queue for the stars
  // (2 D <= Q - 1), not for the 27-point stencils.
  static_assert(!PointOperands<Epi> || (2 * D <= Q - 1 && K >= 2), "updates with operands take the stars, K >= 2");

  // Whether K fused steps of Op can keep boundary kind `kind` (neumann needs the mirror
  // symmetry that makes a ghost point's arithmetic give its mirror's bits).
  static constexpr bool supports(BoundaryKind kind) { return kind != BoundaryKind::neumann || Op::mirror_symmetric; }

  // Thread tid of block (bx, by, bz): output tile bx, by, planes bz tz .. (bz + 1) tz - 1.
  STRATA_HOST_DEVICE TemporalThread(const TemporalArgs<T, Op, Epi>& a, int bx, int by, int bz, int tid) : a_(a) {
    const int tx = tid % PX, ty = tid / PX;
    periodic_ = a.kind == BoundaryKind::periodic;
    const int x0 = bx * S::TX, y0 = by * S::TY;
    z0_ = bz * a.tz, z1_ = min_(z0_ + a.tz, a.nz);
    const int x1 = min_(x0 + S::TX, a.nx), y1 = min_(y0 + S::TY, a.ny);
    gy_ = y0 - H + ty * RY;
    const int gx = x0 - H + tx;
    // Staged: the window's first column `shift` points into its ring row, where a bulk copy
    // that starts on the 16-byte boundary at or before it puts it (the same for per-thread
    // copies, so that the layout is one).
    const int shift = S::A ? ((a.map_x + x0 - H) % S::A + S::A) % S::A : 0;
    me_ = ty * RY * S::row + tx + shift;
    out_at_ = gy_ * int(a.out_pitch) + gx;
    // A window that crosses a face in x or y loads the ghost rule's value there (the
    // dirichlet value, the neumann mirror, the periodic image); one inside the domain loads
    // every point it holds.
    const bool face = x0 - H < 0 || x0 - H + PX > a.nx || y0 - H < 0 || y0 - H + S::PY > a.ny;
    rules_ = face ? Rules::xy : Rules::none;
    bulk_ = S::staged && a.bulk && (!face || a.kind == BoundaryKind::dirichlet);
    wx_ = x0 - H;
    const bool x_in = gx >= 0 && gx < a.nx;
    sx_ = x_in ? gx : ghost_source(a.kind, gx, a.nx);
    rows_in_ = gy_ >= 0 && gy_ + RY <= a.ny;
    in_at_ = gy_ * int(a.in_pitch) + sx_;
    store_ = ghost_ = 0;
    STRATA_UNROLL
    for (int v = 0; v < RY; ++v) {
      const int y = gy_ + v;
      if (gx >= x0 && gx < x1 && y >= y0 && y < y1) store_ |= 1u << v;
      if (a.kind == BoundaryKind::dirichlet && !(x_in && y >= 0 && y < a.ny)) ghost_ |= 1u << v;
    }
    STRATA_UNROLL
    for (int k = 0; k < K; ++k)
      STRATA_UNROLL
      for (int v = 0; v < RY; ++v)
        STRATA_UNROLL
        for (int j = 0; j < Q; ++j) q_[k][v][j] = T(0);
    tid_ = tid;
    STRATA_UNROLL
    for (int v = 0; v < RY; ++v) next_[v] = T(0);
  }

  // Before start: the bulk copies' mbarriers, which a barrier then shows to every thread and
  // to the copies.
  STRATA_HOST_DEVICE void init([[maybe_unused]] T* smem) const {
#if defined(__CUDA_ARCH__)
    if (S::staged && bulk_ && tid_ == 0) {
      for (int j = 0; j < S::S0; ++j) mbar_init(bars(smem) + j, 1);
      mbar_fence_init();
    }
#endif
  }
  // Before step 0: the first input plane into registers, or the first Q - 1 into level 0's
  // ring.
  STRATA_HOST_DEVICE void start(T* smem) {
    if (rules_ == Rules::none)
      start<false>(smem);
    else
      start<true>(smem);
  }

  // z-steps of the block: level 0 loads from z0 - H (the lowest plane any level reads),
  // and the stored plane runs from z0 to z1, HZ behind the loaded one.
  STRATA_HOST_DEVICE int steps() const { return z1_ - z0_ + H + HZ; }

  // z-step i, of phase Ph = i mod Q (or rolled): level 0 takes plane z0 - H + i
  // (prefetched), every level k one plane k D behind it, level K stores. A step takes one of
  // three instances, so that most carry no tests: windows inside the domain in x and y,
  // windows that cross a face in x or y (which load by the ghost rules), and, for the few
  // steps that compute a plane within R of a z face (not periodic), both rules and z's.
  template <int Ph>
  STRATA_HOST_DEVICE void step(int i, T* smem) {
    const int top = z0_ - H + i;  // the plane level 0 loads; level K computes top - K D
    if (!periodic_ && (top - K * D - R < 0 || top + R >= a_.nz))
      step<Ph, Rules::xyz>(i, smem);
    else if (rules_ == Rules::none)
      step<Ph, Rules::none>(i, smem);
    else
      step<Ph, Rules::xy>(i, smem);
  }
  // The same, with the phase found at run time (the host emulation).
  STRATA_HOST_DEVICE void step(int i, T* smem) {
    if constexpr (Unroll)
      step_at<0>(i, smem);
    else
      step<rolled>(i, smem);
  }

 private:
  enum class Rules { none, xy, xyz };  // the ghost rules a step's planes meet

  // A row mask as the compiler must read it afresh at each use: otherwise ptxas keeps each
  // row's bit in a register of its own across the loop (four more live registers, which
  // spilled the 7-point f32 K = 3 pass's queues).
  static STRATA_HOST_DEVICE unsigned opaque(unsigned mask) {
#if defined(__CUDA_ARCH__)
    asm volatile("" : "+r"(mask));
#endif
    return mask;
  }
  static STRATA_HOST_DEVICE int min_(int a, int b) { return a < b ? a : b; }
  static STRATA_HOST_DEVICE int max_(int a, int b) { return a > b ? a : b; }
  static constexpr STRATA_HOST_DEVICE int mod_q(int j) { return (j % Q + Q) % Q; }
  // The ring slot, at step i of phase Ph, of the plane `back` planes below the one level 0
  // loads; known to the compiler when the phase is.
  template <int Ph>
  static STRATA_HOST_DEVICE int slot(int i, int back) {
    if constexpr (Ph == rolled)
      return mod_q(i - back);
    else
      return mod_q(Ph - back);
  }
  // The offset from the ring base of level k's plane `back` below the one level 0 loads at
  // step i (phase Ph): level 0's slots of a staged pass come first, S0 of them, found at run
  // time; then Q per level.
  template <int Ph>
  static STRATA_HOST_DEVICE int ring_at(int k, int i, int back) {
    if (S::staged && k == 0) return ((i - back) & (S::S0 - 1)) * S::stride;
    return ((S::staged ? S::S0 - Q : 0) + k * Q + slot<Ph>(i, back)) * S::stride;
  }
  // Level k's queue register for the plane `back` below the loaded one.
  template <int Ph, int k>
  static constexpr STRATA_HOST_DEVICE int reg(int back) {
    return Ph == rolled ? Q - 1 - (back - k * D) : mod_q(Ph - back);
  }
  // Level k's new plane into its queue.
  template <int Ph, int k>
  STRATA_HOST_DEVICE void keep(const T (&val)[RY]) {
    STRATA_UNROLL
    for (int v = 0; v < RY; ++v) {
      if constexpr (Ph == rolled) {
        STRATA_UNROLL
        for (int j = 0; j + 1 < Q; ++j) q_[k][v][j] = q_[k][v][j + 1];
      }
      q_[k][v][reg<Ph, k>(k * D)] = val[v];
    }
  }

  template <int Ph>
  STRATA_HOST_DEVICE void step_at(int i, T* smem) {
    if constexpr (Ph < Q) {
      if (i % Q == Ph)
        step<Ph>(i, smem);
      else
        step_at<Ph + 1>(i, smem);
    }
  }

  template <int Ph, Rules G>
  STRATA_HOST_DEVICE void step(int i, T* smem) {
    constexpr bool Face = G != Rules::none;
    T* ring = smem + S::margin + me_;  // the thread's first row in ring plane 0
    if constexpr (S::staged) {  // plane i from its slot; plane i + Q - 1 into the one plane i - 2 left
      if (bulk_)
        bulk_wait(bars(smem) + (i & (S::S0 - 1)), unsigned(i / S::S0) & 1u);
      else
        stage_wait<Q - 2>();
      const T* at = ring + ring_at<Ph>(0, i, 0);
      STRATA_UNROLL
      for (int v = 0; v < RY; ++v) next_[v] = at[v * S::row];
    }
    if constexpr (Face) {  // a dirichlet ghost point takes the value (here, where the load is used, not behind it)
      const unsigned ghost = opaque(ghost_);
      STRATA_UNROLL
      for (int v = 0; v < RY; ++v) next_[v] = ghost >> v & 1u ? a_.value : next_[v];
      if constexpr (S::staged) {  // and keeps it in level 0's ring, which the steps after read
        if (ghost != 0) {
          T* at = ring + ring_at<Ph>(0, i, 0);
          STRATA_UNROLL
          for (int v = 0; v < RY; ++v) at[v * S::row] = next_[v];
          bulk_fence();
        }
      }
    }
    keep<Ph, 0>(next_);
    if constexpr (S::staged) {
      if (bulk_)
        bulk_plane(i + Q - 1, smem);
      else
        stage_plane<Face>(z0_ - H + i + Q - 1, ring + ring_at<Ph>(0, i, 1 - Q));
    } else {
      fetch<Face>(z0_ - H + i + 1, next_);  // in flight while this step computes
      const int s = ring_at<Ph>(0, i, 0);
      STRATA_UNROLL
      for (int v = 0; v < RY; ++v) ring[s + v * S::row] = q_[0][v][reg<Ph, 0>(0)];
    }
    levels<Ph, 1, G>(i, ring);
  }

  // The planes of level 0 a block loads: K R beyond its own along z, clipped to the domain
  // unless periodic (whose ghost planes are loaded).
  STRATA_HOST_DEVICE int load_lo(int lo) const { return periodic_ ? lo - H : max_(0, lo - H); }
  STRATA_HOST_DEVICE int load_hi(int hi, int n) const { return periodic_ ? hi + H : min_(n, hi + H); }

  // The thread's rows of input plane p. Inside the domain the point itself; in face blocks,
  // points beyond a face in x or y hold what fill_ghosts would put there: the neumann
  // mirror's value, the periodic image's (a dirichlet ghost loads its mirror and the step
  // that uses it takes the value instead). A plane the block does not load
  // (past a face that is not periodic, or beyond the planes it needs) is replaced by the
  // nearest one it does: no point that is stored reads it. No branch, so that the loads
  // issue at the top of the step, a whole step before their use (behind one, the compiler
  // placed them after half of the step's work, and the next step waited for them: 17 % of
  // the stall samples of 7-point f32 K = 3 at 512^3).
  template <bool Face, class Load>
  STRATA_HOST_DEVICE void rows(int p, Load&& load) const {
    p = min_(max_(p, load_lo(z0_)), load_hi(z1_, a_.nz) - 1);
    const T* plane = a_.in + std::int64_t(p) * a_.in_plane;
    if (!Face || rows_in_) {  // the thread's rows lie inside in y (in face blocks its column may be a ghost's)
      const T* row = plane + in_at_;
      STRATA_UNROLL
      for (int v = 0; v < RY; ++v, row += a_.in_pitch) load(v, row);
    } else {  // warps at a y face's rows (a dirichlet ghost loads its mirror: see step)
      STRATA_UNROLL
      for (int v = 0; v < RY; ++v) load(v, plane + (ghost_source(a_.kind, gy_ + v, a_.ny) * int(a_.in_pitch) + sx_));
    }
  }
  template <bool Face>
  STRATA_HOST_DEVICE void fetch(int p, T (&dst)[RY]) const {
    rows<Face>(p, [&](int v, const T* from) { dst[v] = *from; });
  }
  // Staged, per thread: the thread's rows of input plane p on their way into level 0's ring
  // plane at `to` (the thread's first row there).
  template <bool Face>
  STRATA_HOST_DEVICE void stage_plane(int p, T* to) const {
    rows<Face>(p, [&](int v, const T* from) { stage_copy(to + v * S::row, from); });
    stage_commit();
  }
  STRATA_HOST_DEVICE std::uint64_t* bars(T* smem) const { return reinterpret_cast<std::uint64_t*>(smem + S::bars_at); }
  // Staged, bulk: thread 0 copies the window of the block's input plane n (z0 - H + n,
  // clamped as rows() clamps) into its slot. The host emulation copies what the tensor copy
  // gives at points inside the domain, and NaN elsewhere (on the device, the allocation's
  // ghosts or zeros: values that only dirichlet ghost points receive, which take the value).
  STRATA_HOST_DEVICE void bulk_plane(int n, T* smem) const {
    if (tid_ != 0 || n >= steps()) return;
    const int p = min_(max_(z0_ - H + n, load_lo(z0_)), load_hi(z1_, a_.nz) - 1);
    T* to = smem + S::margin + ring_at<rolled>(0, n, 0);  // thread 0's row: the box's first
    const int x = wx_ - me_;                                // the box's first column
#if defined(__CUDA_ARCH__)
    std::uint64_t* bar = bars(smem) + (n & (S::S0 - 1));
    mbar_arrive_expect_tx(bar, unsigned(S::row * S::PY * sizeof(T)));
    tma_load_3d(to, reinterpret_cast<const CUtensorMap*>(a_.map), bar, a_.map_x + x, a_.map_y + gy_, a_.map_z + p);
#else  // (a box that does not start on 16 bytes, an illegal instruction on the device, gives NaN)
    const T* plane = a_.in + std::int64_t(p) * a_.in_plane;
    const bool aligned = (a_.map_x + x) * sizeof(T) % 16 == 0;
    for (int y = 0; y < S::PY; ++y)
      for (int c = 0; c < S::row; ++c) {
        const int gx = x + c, gy = gy_ + y;
        const bool in = aligned && gx >= 0 && gx < a_.nx && gy >= 0 && gy < a_.ny;
        to[y * S::row + c] = in ? plane[std::int64_t(gy) * a_.in_pitch + gx] : T(NAN);
      }
#endif
  }
  template <bool Face>
  STRATA_HOST_DEVICE void start(T* smem) {
    if constexpr (S::staged) {
      if (bulk_) {
        for (int j = 0; j + 1 < Q; ++j) bulk_plane(j, smem);
      } else {
        T* ring = smem + S::margin + me_;
        STRATA_UNROLL
        for (int j = 0; j + 1 < Q; ++j) stage_plane<Face>(z0_ - H + j, ring + ring_at<rolled>(0, j, 0));
      }
    } else {
      fetch<Face>(z0_ - H, next_);
    }
    fetch_operand<Face>(z0_ - H - D);
  }

  // The operand field's offset of plane z: z, or where the ghost rule takes it from
  // (periodic: the image; the other kinds: a plane past a face that nothing stored reads,
  // clamped into the field), and of row v's point in it: the point, or in face blocks the
  // one its ghost rule reads (a dirichlet ghost's value is replaced anyway).
  STRATA_HOST_DEVICE std::int64_t operand_plane(int z) const {
    return std::int64_t(z >= 0 && z < a_.nz ? z : ghost_source(a_.kind, z, a_.nz)) * a_.out_plane;
  }
  template <bool Face>
  STRATA_HOST_DEVICE std::int64_t operand_row(int v) const {
    if constexpr (Face) {
      const int y = gy_ + v;
      return std::int64_t(y >= 0 && y < a_.ny ? y : ghost_source(a_.kind, y, a_.ny)) * a_.out_pitch + sx_;
    } else {
      return out_at_ + std::int64_t(v) * a_.out_pitch;
    }
  }
  // Level 1's operand rows of plane z, into fnext_.
  template <bool Face>
  STRATA_HOST_DEVICE void fetch_operand(int z) {
    if constexpr (PointOperands<Epi>) {
      const std::int64_t p = operand_plane(z);
      STRATA_UNROLL
      for (int v = 0; v < RY; ++v) fnext_[v] = a_.epi.operand(p + operand_row<Face>(v));
    }
  }

  static STRATA_HOST_DEVICE T pick(const T (&q)[Q], int j) {  // q[j] for a j known at run time
    T r = q[0];
    STRATA_UNROLL
    for (int jj = 1; jj < Q; ++jj) r = jj == j ? q[jj] : r;
    return r;
  }

  // Level k's plane k D below the loaded one, from level k - 1, into level k's queue and
  // ring (every step, whether or not a stored point needs the plane: one the block does not
  // need is never read), or stored by level K.
  template <int Ph, int k, Rules G>
  STRATA_HOST_DEVICE void levels(int i, T* ring) {
    if constexpr (k <= K) {
      const int z = z0_ - H + i - k * D;
      T val[RY];
      if constexpr (k < K) {
        level<Ph, k, G>(i, z, ring, val);
        if constexpr (k == 1) fetch_operand<G != Rules::none>(z + 1);  // level 1's next plane
        keep<Ph, k>(val);
        const int s = ring_at<Ph>(k, i, k * D);
        STRATA_UNROLL
        for (int v = 0; v < RY; ++v) ring[s + v * S::row] = val[v];
        levels<Ph, k + 1, G>(i, ring);
      } else if (const unsigned store = opaque(store_); z >= z0_ && z < z1_ && store != 0) {
        level<Ph, k, G>(i, z, ring, val);
        T* out = a_.out + (std::int64_t(z) * a_.out_plane + out_at_);
        STRATA_UNROLL
        for (int v = 0; v < RY; ++v, out += a_.out_pitch)
          if (store >> v & 1u) *out = val[v];
      }
    }
  }

  // Level k's plane z, from level k - 1. Every window point takes the same arithmetic:
  // inside the domain that is the step; a neumann ghost point computes its mirror's value
  // bit for bit (its neighbours are its mirror's, mirrored, and the operator adds each pair
  // of mirrored taps with one commutative addition); a dirichlet ghost point keeps the
  // value. Points within K R of the window's edge read past it (the ring planes' margins)
  // and are wrong, but no stored point depends on them.
  //
  // Along z (not periodic) every read of a plane past a face goes through the ghost rule
  // (plane<ZFace>), so a level's planes past the faces are read by nothing: they are not
  // computed (the queue and ring keep zeros), and only the in-domain
  // planes within R of a face take the ghost rule's reads. At the faces of 512^3 (7-point
  // f32, K = 3), those few steps per block in the rule's code took 17 % of the kernel's time.
  template <int Ph, int k, Rules G>
  STRATA_HOST_DEVICE void level(int i, int z, const T* ring, T (&val)[RY]) const {
    constexpr bool Face = G != Rules::none;
    if constexpr (G == Rules::xyz) {
      if (z < 0 || z >= a_.nz) {
        STRATA_UNROLL
        for (int v = 0; v < RY; ++v) val[v] = T(0);
        return;
      }
      if (z - R < 0 || z + R >= a_.nz) return plane<Ph, k, Face, true>(i, z, ring, val);  // a few planes per block
    }
    plane<Ph, k, Face, false>(i, z, ring, val);
  }

  template <int Ph, int k, bool Face, bool ZFace>
  STRATA_HOST_DEVICE void plane(int i, int z, const T* ring, T (&val)[RY]) const {
    const T(&q)[RY][Q] = q_[k - 1];
    [[maybe_unused]] const unsigned ghost = opaque(ghost_);
    // The plane of the fields an update with operands reads: z, or where the ghost rule
    // takes it from (periodic: the image; other kinds: a plane past a face that nothing
    // stored reads, clamped into the field).
    [[maybe_unused]] std::int64_t plane_at = 0;
    if constexpr (PointOperands<Epi> && k >= 2) plane_at = operand_plane(z);
    STRATA_UNROLL
    for (int v = 0; v < RY; ++v) {
      auto at = [&](int dx, int dy, int dz) -> T {
        const bool own_row = dx == 0 && v + dy >= 0 && v + dy < RY;
        if constexpr (ZFace) {
          const int zp = z + dz;  // z itself is inside the domain
          if (dz != 0 && (zp < 0 || zp >= a_.nz)) {
            if (a_.kind == BoundaryKind::dirichlet) return a_.value;
            const int m = ghost_source(a_.kind, zp, a_.nz);
            const int back = k * D - (m - z);  // the mirror plane, as a plane below the loaded one
            if (own_row) return pick(q[v + dy], Ph == rolled ? Q - 1 - (back - (k - 1) * D) : mod_q(Ph - back));
            return ring[ring_at<rolled>(k - 1, i, back) + (v + dy) * S::row + dx];
          }
        }
        if (own_row) return q[v + dy][reg<Ph, k - 1>(k * D - dz)];
        return ring[ring_at<Ph>(k - 1, i, k * D - dz) + (v + dy) * S::row + dx];
      };
      T centre;
      const T s = a_.op(at, 0, 0, 0, centre);
      if constexpr (PointOperands<Epi>) {
        // Level 1's operand was loaded a step ahead; the later levels' planes are the ones
        // level 1 loaded k - 1 steps before (D = 1), still in the cache.
        T operand = fnext_[v];
        if constexpr (k >= 2) operand = a_.epi.operand(plane_at + operand_row<Face>(v));
        T prev = centre;
        if constexpr (k >= 2) prev = q_[k - 2][v][reg<Ph, k - 2>(k * D)];
        val[v] = a_.epi.template step<k>(s, centre, prev, operand);
      } else {
        val[v] = a_.epi(s, centre);
      }
      if constexpr (Face) val[v] = ghost >> v & 1u ? a_.value : val[v];
    }
  }

  const TemporalArgs<T, Op, Epi>& a_;
  int z0_, z1_, gy_, me_;
  int sx_;                       // the column the thread loads: its own, or the ghost rule's
  int in_at_, out_at_;  // the thread's first row in plane 0 of the input, the output (in_plane_offsets)
  bool periodic_;
  bool rows_in_;                 // every row of the thread lies inside the domain in y
  bool bulk_;                    // staged by bulk copies (thread 0's), not per thread
  int wx_;                       // the window's first column
  Rules rules_;
  unsigned store_;               // bit v: row v is an output point
  unsigned ghost_;               // bit v: row v is a dirichlet ghost point
  T q_[K][RY][Q];                // level k's column: its last Q planes (unrolled: each in its slot)
  int tid_;
  T next_[RY];                   // the prefetched input plane (staged: the thread's rows of the step's plane)
  T fnext_[PointOperands<Epi> ? RY : 1];  // level 1's operand rows, loaded a step ahead
};

#if defined(__CUDACC__)
// Steps i .. i + Q - 1 of a block (those below `steps`), each phase with its own code, a
// barrier after each.
template <class Thread, class T, int... Ph>
__device__ __forceinline__ void temporal_turn(Thread& t, T* smem, int i, int steps, std::integer_sequence<int, Ph...>) {
  const auto one = [&](auto phase) {
    if (i + phase.value >= steps) return false;
    t.template step<phase.value>(i + phase.value, smem);
    __syncthreads();
    return true;
  };
  static_cast<void>((one(std::integral_constant<int, Ph>{}) && ...));
}

template <class T, class Op, class Epi, int K, int PX, int TYT, int RY>
__global__ void __launch_bounds__(PX * TYT, 1) temporal_steps(const __grid_constant__ TemporalArgs<T, Op, Epi> a) {
  extern __shared__ __align__(128) unsigned char temporal_smem[];
  T* smem = reinterpret_cast<T*>(temporal_smem);
  using Thread = TemporalThread<T, Op, Epi, K, PX, TYT, RY>;
  Thread t(a, int(blockIdx.x), int(blockIdx.y), int(blockIdx.z), int(threadIdx.x));
  if constexpr (Thread::S::staged) {
    t.init(smem);
    __syncthreads();
  }
  t.start(smem);
  const int steps = t.steps();
  if constexpr (Thread::unroll) {
    for (int i = 0; i < steps; i += Thread::phases)
      temporal_turn(t, smem, i, steps, std::make_integer_sequence<int, Thread::phases>{});
  } else {
    for (int i = 0; i < steps; ++i) {
      t.template step<Thread::rolled>(i, smem);
      __syncthreads();
    }
  }
  if constexpr (Thread::S::staged) stage_wait<0>();  // planes staged past the last step land before the block ends
}
#endif

}  // namespace strata::cuda::kernels

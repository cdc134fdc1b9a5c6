// Device building blocks of the reductions, layered like CUB: thread accumulators (Ops) ->
// warp shuffle -> block (shared memory) -> grid finish (the last block to arrive reduces
// the per-block partials in a fixed order), plus the row walker that feeds them 16-byte
// loads. Any kernel can end with grid_finish (the fused vector ops do). Device code only.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstring>
#include <type_traits>

#include "cuda/rows/rows.hpp"

namespace strata::cuda::kernels {

inline constexpr int kWarp = 32;

// ======================================================================= thread level

// Knuth's TwoSum: s + e == a + b exactly, branch-free. The _rn intrinsics keep the
// compiler from contracting or reassociating it.
__device__ __forceinline__ void two_sum(double a, double b, double& s, double& e) {
  s = __dadd_rn(a, b);
  const double bb = __dsub_rn(s, a);
  e = __dadd_rn(__dsub_rn(a, __dsub_rn(s, bb)), __dsub_rn(b, bb));
}

// Float data: values and products of floats are exact in double, so a plain double sum is
// already far inside the float pairwise bound (error ~ elements-per-thread * 2^-53).
struct PlainSum {
  double s;
};
// Double data: a running TwoSum; c collects the rounding error of every addition.
struct CompSum {
  double s, c;
};

__device__ __forceinline__ void sum_add(PlainSum& a, double v) { a.s += v; }
__device__ __forceinline__ void sum_add(CompSum& a, double v) {
  double s, e;
  two_sum(a.s, v, s, e);
  a.s = s;
  a.c += e;
}
__device__ __forceinline__ PlainSum sum_merge(const PlainSum& a, const PlainSum& b) {
  return {a.s + b.s};
}
__device__ __forceinline__ CompSum sum_merge(const CompSum& a, const CompSum& b) {
  double s, e;
  two_sum(a.s, b.s, s, e);
  return {s, (a.c + b.c) + e};
}
__device__ __forceinline__ double sum_total(const PlainSum& a) { return a.s; }
// Once s is inf or NaN the compensation is inf - inf garbage: report s itself.
__device__ __forceinline__ double sum_total(const CompSum& a) {
  return isfinite(a.s) ? a.s + a.c : a.s;
}

template <class T>
using SumAcc = std::conditional_t<std::is_same_v<T, float>, PlainSum, CompSum>;

// Adds a*b. Float data: the product is exact in double. Double data: the product is
// rounded once and its exact rounding error (an FMA) joins the compensation, so a dot is
// as accurate as a sum of exact terms.
__device__ __forceinline__ void sum_add_product(PlainSum& acc, float a, float b) {
  acc.s += double(a) * double(b);
}
__device__ __forceinline__ void sum_add_product(CompSum& acc, double a, double b) {
  const double p = __dmul_rn(a, b);
  sum_add(acc, p);
  acc.c += __fma_rn(a, b, -p);
}

// An Op is the thread level of one reduction: its accumulator (Acc: trivial, a multiple of
// 4 bytes, at most kMaxPartialBytes), identity, add (one element; b is the second input
// for two-input ops, pos its linear index), merge (associative up to rounding, applied in a
// fixed order) and finish (writes the answer into ReduceOut).

template <class T>
struct SumOp {
  using Acc = SumAcc<T>;
  static constexpr int kInputs = 1;
  __device__ static Acc identity() { return Acc{}; }
  __device__ static void add(Acc& acc, T a, T, std::size_t) { sum_add(acc, double(a)); }
  __device__ static Acc merge(const Acc& x, const Acc& y) { return sum_merge(x, y); }
  __device__ static void finish(const Acc& acc, ReduceOut& out) { out.value = sum_total(acc); }
};

template <class T>
struct DotOp {
  using Acc = SumAcc<T>;
  static constexpr int kInputs = 2;
  __device__ static Acc identity() { return Acc{}; }
  __device__ static void add(Acc& acc, T a, T b, std::size_t) { sum_add_product(acc, a, b); }
  __device__ static Acc merge(const Acc& x, const Acc& y) { return sum_merge(x, y); }
  __device__ static void finish(const Acc& acc, ReduceOut& out) { out.value = sum_total(acc); }
};

template <class T>
struct SumSquaresOp {
  using Acc = SumAcc<T>;
  static constexpr int kInputs = 1;
  __device__ static Acc identity() { return Acc{}; }
  __device__ static void add(Acc& acc, T a, T, std::size_t) { sum_add_product(acc, a, a); }
  __device__ static Acc merge(const Acc& x, const Acc& y) { return sum_merge(x, y); }
  __device__ static void finish(const Acc& acc, ReduceOut& out) { out.value = sum_total(acc); }
};

// NaN sticks in the extremes: once m is NaN, v > m and v < m are false for every v.
template <class T>
__device__ __forceinline__ T take_max(T m, T v) {
  return (v > m || isnan(v)) ? v : m;
}
template <class T>
__device__ __forceinline__ T take_min(T m, T v) {
  return (v < m || isnan(v)) ? v : m;
}

template <class T>
struct MaxAbsOp {
  struct Acc {
    T m;
  };
  static constexpr int kInputs = 1;
  __device__ static Acc identity() { return {T(0)}; }
  __device__ static void add(Acc& acc, T a, T, std::size_t) { acc.m = take_max(acc.m, fabs(a)); }
  __device__ static Acc merge(const Acc& x, const Acc& y) { return {take_max(x.m, y.m)}; }
  __device__ static void finish(const Acc& acc, ReduceOut& out) { out.hi = acc.m; }
};

template <class T>
struct MinMaxOp {
  struct Acc {
    T lo, hi;
  };
  static constexpr int kInputs = 1;
  __device__ static Acc identity() { return {T(INFINITY), T(-INFINITY)}; }
  __device__ static void add(Acc& acc, T a, T, std::size_t) {
    acc.lo = take_min(acc.lo, a);
    acc.hi = take_max(acc.hi, a);
  }
  __device__ static Acc merge(const Acc& x, const Acc& y) {
    return {take_min(x.lo, y.lo), take_max(x.hi, y.hi)};
  }
  __device__ static void finish(const Acc& acc, ReduceOut& out) {
    out.lo = acc.lo;
    out.hi = acc.hi;
  }
};

// Count of non-finite values and the lowest linear index among them (min is
// order-independent, so the answer is exact whatever the combination order).
template <class T>
struct FiniteOp {
  struct Acc {
    unsigned long long count, first;
    double value;
  };
  static constexpr int kInputs = 1;
  __device__ static Acc identity() { return {0ull, ~0ull, 0.0}; }
  __device__ static void add(Acc& acc, T a, T, std::size_t pos) {
    if (!isfinite(a)) {
      ++acc.count;
      if (pos < acc.first) acc.first = pos, acc.value = a;
    }
  }
  __device__ static Acc merge(const Acc& x, const Acc& y) {
    const Acc& lo = y.first < x.first ? y : x;
    return {x.count + y.count, lo.first, lo.value};
  }
  __device__ static void finish(const Acc& acc, ReduceOut& out) {
    out.count = acc.count;
    out.first = acc.first;
    out.first_value = acc.value;
  }
};

// ========================================================================= warp level

// Shuffles any trivially copyable accumulator as 32-bit words.
template <class A>
__device__ __forceinline__ A shfl_down(const A& v, unsigned offset) {
  static_assert(sizeof(A) % sizeof(int) == 0, "accumulators are whole 32-bit words");
  constexpr int kWords = sizeof(A) / sizeof(int);
  int w[kWords];
  memcpy(w, &v, sizeof(A));
#pragma unroll
  for (int i = 0; i < kWords; ++i) w[i] = __shfl_down_sync(0xffffffffu, w[i], offset);
  A r;
  memcpy(&r, w, sizeof(A));
  return r;
}

// Tree over the first kLanes lanes (a power of two); the result is valid in lane 0 and
// depends only on those lanes, always combined in the same order.
template <class Op, int kLanes>
__device__ __forceinline__ typename Op::Acc warp_reduce(typename Op::Acc v) {
#pragma unroll
  for (int offset = kLanes / 2; offset > 0; offset /= 2) v = Op::merge(v, shfl_down(v, offset));
  return v;
}

// ======================================================================== block level

template <class Acc, int kBlock>
struct BlockScratch {
  Acc warp[kBlock / kWarp];
  unsigned last;  // grid_finish: this block drew the last ticket
};

// Every thread of the block must call it; the result is valid in thread 0.
template <class Op, int kBlock>
__device__ __forceinline__ typename Op::Acc block_reduce(
    typename Op::Acc v, BlockScratch<typename Op::Acc, kBlock>& sm) {
  constexpr int kWarps = kBlock / kWarp;
  static_assert(kBlock % kWarp == 0 && kWarps <= kWarp && (kWarps & (kWarps - 1)) == 0,
                "block size: a power-of-two number of warps, at most 32");
  const int lane = threadIdx.x % kWarp, warp = threadIdx.x / kWarp;
  v = warp_reduce<Op, kWarp>(v);
  if (lane == 0) sm.warp[warp] = v;
  __syncthreads();
  if (warp == 0) v = warp_reduce<Op, kWarps>(sm.warp[lane < kWarps ? lane : 0]);
  return v;
}

// ========================================================================= grid level

// Reads an accumulator another block wrote, from L2 (bypassing this SM's L1).
template <class A>
__device__ __forceinline__ A load_cg(const A* p) {
  constexpr int kWords = sizeof(A) / sizeof(int);
  int w[kWords];
#pragma unroll
  for (int i = 0; i < kWords; ++i) w[i] = __ldcg(reinterpret_cast<const int*>(p) + i);
  A r;
  memcpy(&r, w, sizeof(A));
  return r;
}

// Every block publishes its partial and draws a ticket; the block that draws the last one
// merges all partials (thread t takes t, t+kBlock, ... in order, then the block tree), so
// the result depends only on the grid size, never on which block finished last. It writes
// ReduceOut and re-arms the ticket for the next launch. One pass over the data, no second
// launch, no floating-point atomics. Every thread of every block must call it.
template <class Op, int kBlock>
__device__ void grid_finish(typename Op::Acc v, const GridScratch& g,
                            BlockScratch<typename Op::Acc, kBlock>& sm) {
  using Acc = typename Op::Acc;
  v = block_reduce<Op, kBlock>(v, sm);
  if (threadIdx.x == 0) {
    static_cast<Acc*>(g.partials)[blockIdx.x] = v;
    __threadfence();  // release: the partial is visible device-wide before the ticket moves
    const unsigned ticket = atomicAdd(g.ticket, 1u);
    sm.last = ticket == gridDim.x - 1;
    __threadfence();  // acquire: the partial reads below come after every other release
  }
  __syncthreads();  // also orders warp 0's reads of sm.warp before their reuse below
  if (!sm.last) return;
  Acc acc = Op::identity();
  for (unsigned i = threadIdx.x; i < gridDim.x; i += kBlock)
    acc = Op::merge(acc, load_cg(static_cast<const Acc*>(g.partials) + i));
  acc = block_reduce<Op, kBlock>(acc, sm);
  if (threadIdx.x == 0) {
    ReduceOut out{};
    Op::finish(acc, out);
    *g.out = out;
    *g.ticket = 0;  // the next launch on this workspace starts from zero (stream order)
  }
}

// ========================================================================= data access

// V consecutive values of one row; 16-byte aligned when V > 1, so it moves as one access.
template <class T, int V>
struct alignas(sizeof(T) * V) Vec {
  T v[V];
};

template <class T, int V>
using Native =
    std::conditional_t<V == 1, T, std::conditional_t<std::is_same_v<T, float>, float4, double2>>;

// Read-only load through the non-coherent path: reduction inputs never change in a kernel.
template <class T, int V>
__device__ __forceinline__ Vec<T, V> load_ro(const T* p) {
  static_assert(V == 1 || sizeof(T) * V == 16, "scalar or 16-byte vectors");
  const Native<T, V> q = __ldg(reinterpret_cast<const Native<T, V>*>(p));
  Vec<T, V> r;
  memcpy(&r, &q, sizeof r);
  return r;
}

// Coherent load and store, for operands a kernel also writes (element-wise updates).
template <class T, int V>
__device__ __forceinline__ Vec<T, V> load_rw(const T* p) {
  const Native<T, V> q = *reinterpret_cast<const Native<T, V>*>(p);
  Vec<T, V> r;
  memcpy(&r, &q, sizeof r);
  return r;
}
template <class T, int V>
__device__ __forceinline__ void store(T* p, const Vec<T, V>& v) {
  Native<T, V> q;
  memcpy(&q, &v, sizeof q);
  *reinterpret_cast<Native<T, V>*>(p) = q;
}

template <class T>
__device__ __forceinline__ T* row_ptr(const Strided<T>& a, std::size_t y, std::size_t z) {
  return a.origin + std::ptrdiff_t(z) * a.plane + std::ptrdiff_t(y) * a.pitch;
}

// q = a / b, r = a % b, with the cheap 32-bit division whenever both fit.
__device__ __forceinline__ void divmod(std::size_t a, std::size_t b, std::size_t& q,
                                       std::size_t& r) {
  if (b == 1) {
    q = a, r = 0;
  } else if (((a | b) >> 32) == 0) {
    const unsigned q32 = unsigned(a) / unsigned(b);
    q = q32, r = a - std::size_t(q32) * b;
  } else {
    q = a / b, r = a - q * b;
  }
}

// ========================================================================= agent level

// Walks the rows in chunks of 32*V*U elements, one warp per chunk, grid-stride over chunks
// (a chunk never spans two rows). Lane l of a chunk at x0 handles the vectors at
// x0 + (u*32 + l)*V, u < U: each of the U loads is one coalesced warp access (512 bytes
// with 16-byte vectors), and all U are issued before any is used. F supplies the per-row
// pointers and the per-vector work:
//   Ptrs row(y, z); Item load(ptrs, x); Item load_part(ptrs, x, n);
//   void consume(ptrs, x, pos_of_row, item, n)   // n <= V valid values from x
template <int V, int U, class F>
__device__ __forceinline__ void walk_rows(const RowShape& s, F& f) {
  constexpr std::size_t kChunk = std::size_t(kWarp) * V * U;
  constexpr std::size_t kStride = std::size_t(kWarp) * V;  // between a lane's vectors
  const std::size_t per_row = (s.nx + kChunk - 1) / kChunk;
  const std::size_t rows = s.ny * s.nz;
  const std::size_t chunks = per_row * rows;
  const std::size_t warps = std::size_t(gridDim.x) * (blockDim.x / kWarp);
  const std::size_t lane_x = std::size_t(threadIdx.x % kWarp) * V;
  for (std::size_t c = std::size_t(blockIdx.x) * (blockDim.x / kWarp) + threadIdx.x / kWarp;
       c < chunks; c += warps) {
    std::size_t row, cx, y, z;
    if (rows == 1)
      row = 0, cx = c;  // a flat array: no division at all
    else
      divmod(c, per_row, row, cx);
    divmod(row, s.ny, z, y);
    const auto ptrs = f.row(y, z);
    const std::size_t x0 = cx * kChunk + lane_x, pos = row * s.nx;
    if ((cx + 1) * kChunk <= s.nx) {
      // Whole chunk inside the row: U unpredicated vector loads in flight per lane.
      typename F::Item item[U];
#pragma unroll
      for (int u = 0; u < U; ++u) item[u] = f.load(ptrs, x0 + u * kStride);
#pragma unroll
      for (int u = 0; u < U; ++u) f.consume(ptrs, x0 + u * kStride, pos, item[u], V);
    } else {
      // Row tail: whole vectors where they fit, the last partial one element by element
      // (a flat array must not be read past its end).
      typename F::Item item[U] = {};
      int valid[U];
#pragma unroll
      for (int u = 0; u < U; ++u) {
        const std::size_t x = x0 + u * kStride;
        valid[u] = x >= s.nx ? 0 : (s.nx - x >= std::size_t(V) ? V : int(s.nx - x));
        if (valid[u] == V)
          item[u] = f.load(ptrs, x);
        else if (valid[u] > 0)
          item[u] = f.load_part(ptrs, x, valid[u]);
      }
#pragma unroll
      for (int u = 0; u < U; ++u)
        if (valid[u] > 0) f.consume(ptrs, x0 + u * kStride, pos, item[u], valid[u]);
    }
  }
}

// The walker's F for a reduction Op over one or two read-only operands.
template <class Op, class T, int V>
struct ReduceRows {
  struct Ptrs {
    const T* a;
    const T* b;
  };
  struct Item {
    Vec<T, V> a, b;
  };
  Strided<const T> a, b;
  typename Op::Acc acc;

  __device__ Ptrs row(std::size_t y, std::size_t z) const {
    return {row_ptr(a, y, z), Op::kInputs == 2 ? row_ptr(b, y, z) : nullptr};
  }
  __device__ Item load(const Ptrs& p, std::size_t x) const {
    Item it;
    it.a = load_ro<T, V>(p.a + x);
    if constexpr (Op::kInputs == 2)
      it.b = load_ro<T, V>(p.b + x);
    else
      it.b = it.a;
    return it;
  }
  __device__ Item load_part(const Ptrs& p, std::size_t x, int n) const {
    Item it{};
#pragma unroll
    for (int e = 0; e < V; ++e)
      if (e < n) {
        it.a.v[e] = __ldg(p.a + x + e);
        if constexpr (Op::kInputs == 2) it.b.v[e] = __ldg(p.b + x + e);
      }
    if constexpr (Op::kInputs == 1) it.b = it.a;
    return it;
  }
  __device__ void consume(const Ptrs&, std::size_t x, std::size_t pos, const Item& it, int n) {
#pragma unroll
    for (int e = 0; e < V; ++e)
      if (e < n) Op::add(acc, it.a.v[e], it.b.v[e], pos + x + e);
  }
};

// One pass: walk the rows accumulating per thread, then the grid finish.
template <class Op, class T, int V, int U, int kBlock>
__global__ void __launch_bounds__(kBlock)
    reduce_rows(RowShape s, Strided<const T> a, Strided<const T> b, GridScratch g) {
  __shared__ BlockScratch<typename Op::Acc, kBlock> sm;
  ReduceRows<Op, T, V> f{a, b, Op::identity()};
  walk_rows<V, U>(s, f);
  grid_finish<Op, kBlock>(f.acc, g, sm);
}

}  // namespace strata::cuda::kernels

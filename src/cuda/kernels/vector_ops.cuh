// Device code of the element-wise vector operations: the per-element maths written once
// (one small struct per operation), one walker functor that loads, applies and stores whole
// 16-byte vectors, and one kernel that can end in the reductions' grid finish (fused norms).
#pragma once

#include "cuda/kernels/reduce.cuh"

namespace strata::cuda::kernels {

// One rounding for a*x + y, whatever the compiler's contraction flags.
__device__ __forceinline__ float madd(float a, float x, float y) { return __fmaf_rn(a, x, y); }
__device__ __forceinline__ double madd(double a, double x, double y) { return __fma_rn(a, x, y); }

// Per-element maths: out = m(x, y). kReadsX / kReadsY say which operands are loaded.
template <class T>
struct FillMath {
  static constexpr bool kReadsX = false, kReadsY = false;
  T value;
  __device__ T operator()(T, T) const { return value; }
};
template <class T>
struct CopyMath {
  static constexpr bool kReadsX = true, kReadsY = false;
  __device__ T operator()(T x, T) const { return x; }
};
template <class T>
struct ScaleMath {
  static constexpr bool kReadsX = false, kReadsY = true;
  T a;
  __device__ T operator()(T, T y) const { return a * y; }
};
template <class T>
struct AxpyMath {
  static constexpr bool kReadsX = true, kReadsY = true;
  T a;
  __device__ T operator()(T x, T y) const { return madd(a, x, y); }
};
template <class T>
struct AxpbyMath {
  static constexpr bool kReadsX = true, kReadsY = true;
  T a, b;
  __device__ T operator()(T x, T y) const { return madd(a, x, b * y); }
};
template <class T>
struct SubMath {  // the residual r = b - y: x is b
  static constexpr bool kReadsX = true, kReadsY = true;
  __device__ T operator()(T x, T y) const { return x - y; }
};

// The walker's F for out = M(x, y). Loads are coherent (out may alias x or y: each element
// is read and then written by the same thread). With kNorm it also accumulates the squares
// of the stored values for the grid finish.
template <class M, class T, int V, bool kNorm>
struct UpdateRows {
  using Op = SumSquaresOp<T>;
  static constexpr bool kReduces = kNorm;
  struct Ptrs {
    const T* x;
    const T* y;
    T* out;
  };
  struct Item {
    Vec<T, V> x, y;
  };
  M m;
  Strided<const T> x, y;
  Strided<T> out;
  typename Op::Acc acc;

  __device__ Ptrs row(std::size_t yy, std::size_t z) const {
    return {M::kReadsX ? row_ptr(x, yy, z) : nullptr, M::kReadsY ? row_ptr(y, yy, z) : nullptr,
            row_ptr(out, yy, z)};
  }
  __device__ Item load(const Ptrs& p, std::size_t i) const {
    Item it{};
    if constexpr (M::kReadsX) it.x = load_rw<T, V>(p.x + i);
    if constexpr (M::kReadsY) it.y = load_rw<T, V>(p.y + i);
    return it;
  }
  __device__ Item load_part(const Ptrs& p, std::size_t i, int n) const {
    Item it{};
#pragma unroll
    for (int e = 0; e < V; ++e)
      if (e < n) {
        if constexpr (M::kReadsX) it.x.v[e] = p.x[i + e];
        if constexpr (M::kReadsY) it.y.v[e] = p.y[i + e];
      }
    return it;
  }
  __device__ void consume(const Ptrs& p, std::size_t i, std::size_t, const Item& it, int n) {
    Vec<T, V> r;
#pragma unroll
    for (int e = 0; e < V; ++e) r.v[e] = m(it.x.v[e], it.y.v[e]);
    if (n == V) {
      store<T, V>(p.out + i, r);
    } else {
#pragma unroll
      for (int e = 0; e < V; ++e)
        if (e < n) p.out[i + e] = r.v[e];  // never past nx: ghosts and padding stay as they are
    }
    if constexpr (kNorm) {
#pragma unroll
      for (int e = 0; e < V; ++e)
        if (e < n) Op::add(acc, r.v[e], r.v[e], 0);
    }
  }
};

// One pass over the rows; the fused forms finish with the sum of squares in g.
template <class F, int V, int U, int kBlock>
__global__ void __launch_bounds__(kBlock)
    update_rows(RowShape s, F f, [[maybe_unused]] GridScratch g) {
  f.acc = F::Op::identity();
  walk_rows<V, U>(s, f);
  if constexpr (F::kReduces) {
    __shared__ BlockScratch<typename F::Op::Acc, kBlock> sm;
    grid_finish<typename F::Op, kBlock>(f.acc, g, sm);
  }
}

}  // namespace strata::cuda::kernels

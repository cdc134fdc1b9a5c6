// The CUDA side of the row seam (backend/rows.hpp): the vector-operation launchers (each one
// per-element maths struct run by kernels::update_rows; the fused *_sum_squares forms end in
// the reductions' grid finish) and the seam's reductions over reduce.cu's reduce().
// Host code only; the device code is in kernels/vector_ops.cuh.
#include "cuda/check.hpp"
#include "cuda/kernels/vector_ops.cuh"
#include "cuda/rows/rows.hpp"
#include "cuda/tuning/rows_policy.hpp"

namespace strata::cuda {

namespace {

constexpr int kBlock = RowPolicy::kBlock;
constexpr int kUnroll = RowPolicy::kUnroll;

template <class M, bool kNorm, class T, int V>
void launch_v(const RowShape& s, M m, Strided<const T> x, Strided<const T> y, Strided<T> out,
            const GridScratch& g, cudaStream_t stream) {
  using F = kernels::UpdateRows<M, T, V, kNorm>;
  const auto kernel = kernels::update_rows<F, V, kUnroll, kBlock>;
  const int blocks = grid_blocks(reinterpret_cast<const void*>(kernel), kBlock,
                                 chunk_count(s, std::size_t(kernels::kWarp) * V * kUnroll));
  kernel<<<blocks, kBlock, 0, stream>>>(s, F{m, x, y, out, {}}, g);
  STRATA_CUDA_CHECK_LAUNCH();
}

// 16-byte vectors when the rows of every operand the maths touches allow them.
template <class M, bool kNorm = false, class T>
void launch(const RowShape& s, M m, Strided<const T> x, Strided<const T> y, Strided<T> out,
            void* stream, const GridScratch& g = {}) {
  constexpr int kVec = 16 / sizeof(T);
  const bool vec = (!M::kReadsX || vector_aligned(x.origin, x.pitch, x.plane, sizeof(T))) &&
                   (!M::kReadsY || vector_aligned(y.origin, y.pitch, y.plane, sizeof(T))) &&
                   vector_aligned(out.origin, out.pitch, out.plane, sizeof(T));
  const auto st = static_cast<cudaStream_t>(stream);
  if (vec)
    launch_v<M, kNorm, T, kVec>(s, m, x, y, out, g, st);
  else
    launch_v<M, kNorm, T, 1>(s, m, x, y, out, g, st);
}

Workspace& checked(Workspace& ws) {
  int device = 0;
  STRATA_CUDA_CHECK(cudaGetDevice(&device));
  require(ws.device() == device, "vector op: the workspace belongs to another device");
  return ws;
}

}  // namespace

template <class T>
void fill(Tag, const RowShape& s, Strided<T> y, T value, void* stream) {
  launch(s, kernels::FillMath<T>{value}, Strided<const T>{}, Strided<const T>{}, y, stream);
}

template <class T>
void copy(Tag, const RowShape& s, Strided<const T> x, Strided<T> y, void* stream) {
  launch(s, kernels::CopyMath<T>{}, x, Strided<const T>{}, y, stream);
}

template <class T>
void scale(Tag, const RowShape& s, T a, Strided<T> y, void* stream) {
  launch(s, kernels::ScaleMath<T>{a}, Strided<const T>{}, as_const(y), y, stream);
}

template <class T>
void axpy(Tag, const RowShape& s, T a, Strided<const T> x, Strided<T> y, void* stream) {
  launch(s, kernels::AxpyMath<T>{a}, x, as_const(y), y, stream);
}

template <class T>
void axpby(Tag, const RowShape& s, T a, Strided<const T> x, T b, Strided<T> y, void* stream) {
  launch(s, kernels::AxpbyMath<T>{a, b}, x, as_const(y), y, stream);
}

template <class T>
void enqueue_axpby_sum_squares(const RowShape& s, T a, Strided<const T> x, T b, Strided<T> y,
                               Workspace& ws, void* stream) {
  launch<kernels::AxpbyMath<T>, true>(s, kernels::AxpbyMath<T>{a, b}, x, as_const(y), y, stream,
                                      checked(ws).scratch());
}

template <class T>
double axpby_sum_squares(Tag, const RowShape& s, T a, Strided<const T> x, T b, Strided<T> y,
                         void* stream) {
  Workspace& ws = default_workspace();
  std::lock_guard<std::mutex> lock(ws.mutex());
  enqueue_axpby_sum_squares(s, a, x, b, y, ws, stream);
  return ws.fetch(stream).value;
}

template <class T>
void enqueue_sub_sum_squares(const RowShape& s, Strided<const T> b, Strided<const T> y,
                             Strided<T> r, Workspace& ws, void* stream) {
  launch<kernels::SubMath<T>, true>(s, kernels::SubMath<T>{}, b, y, r, stream,
                                    checked(ws).scratch());
}

template <class T>
double sub_sum_squares(Tag, const RowShape& s, Strided<const T> b, Strided<const T> y, Strided<T> r,
                       void* stream) {
  Workspace& ws = default_workspace();
  std::lock_guard<std::mutex> lock(ws.mutex());
  enqueue_sub_sum_squares(s, b, y, r, ws, stream);
  return ws.fetch(stream).value;
}

// ---- the seam's reductions (backend/rows.hpp): one synchronous reduce() each ------------

template <class T>
double sum(Tag, const RowShape& s, Strided<const T> a, void* stream) {
  return reduce(ReduceKind::sum, s, a, a, stream).value;
}
template <class T>
double dot(Tag, const RowShape& s, Strided<const T> a, Strided<const T> b, void* stream) {
  return reduce(ReduceKind::dot, s, a, b, stream).value;
}
template <class T>
double sum_squares(Tag, const RowShape& s, Strided<const T> a, void* stream) {
  return reduce(ReduceKind::sum_squares, s, a, a, stream).value;
}
template <class T>
T max_abs(Tag, const RowShape& s, Strided<const T> a, void* stream) {
  return T(reduce(ReduceKind::max_abs, s, a, a, stream).hi);
}
template <class T>
T min_value(Tag, const RowShape& s, Strided<const T> a, void* stream) {
  return T(reduce(ReduceKind::min_max, s, a, a, stream).lo);
}
template <class T>
T max_value(Tag, const RowShape& s, Strided<const T> a, void* stream) {
  return T(reduce(ReduceKind::min_max, s, a, a, stream).hi);
}
template <class T>
FiniteReport<T> check_finite(Tag, const RowShape& s, Strided<const T> a, void* stream) {
  const ReduceOut out = reduce(ReduceKind::finite, s, a, a, stream);
  FiniteReport<T> r;
  r.all_finite = out.count == 0;
  r.count = std::size_t(out.count);
  if (!r.all_finite) r.index = std::size_t(out.first), r.value = T(out.first_value);
  return r;
}

#define STRATA_INSTANTIATE(T)                                                                  \
  template void enqueue_axpby_sum_squares(const RowShape&, T, Strided<const T>, T, Strided<T>, \
                                          Workspace&, void*);                                  \
  template void enqueue_sub_sum_squares(const RowShape&, Strided<const T>, Strided<const T>,    \
                                        Strided<T>, Workspace&, void*);
STRATA_INSTANTIATE(float)
STRATA_INSTANTIATE(double)
#undef STRATA_INSTANTIATE

#include "backend/rows_instances.inc"

}  // namespace strata::cuda

// What the Poisson solvers do with a vector, spelled alike for a one-process Field and a
// DistField, so that the methods (solve.cpp, vcycle.cpp, krylov.cpp) and the cycle
// (multigrid.hpp) are written once. Element-wise operations and stencil passes act on each
// rank's box; reductions are dist::sum, dot and norm2 (found by argument-dependent lookup):
// combined in rank order, the same on every rank for a given rank count.
#pragma once

#include <type_traits>
#include <utility>

#include "dispatch/multigrid.hpp"
#include "strata/apply.hpp"
#include "strata/dist.hpp"
#include "strata/reduce.hpp"
#include "strata/vector_ops.hpp"

namespace strata::poisson {

template <class T>
Field<T>& local(Field<T>& v) { return v; }
template <class T>
const Field<T>& local(const Field<T>& v) { return v; }
template <class T>
Field<T>& local(dist::DistField<T>& v) { return v.local(); }
template <class T>
const Field<T>& local(const dist::DistField<T>& v) { return v.local(); }

// The precision of a vector type.
template <class V>
using scalar_of = std::remove_cvref_t<decltype(*local(std::declval<V&>()).data())>;

template <class T>
Extent global_extent(const Field<T>& v) { return v.extent(); }
template <class T>
Extent global_extent(const dist::DistField<T>& v) { return v.global(); }

// A zero vector of precision P shaped like v (the same boxes), `ghost` layers wide.
template <class P, class T>
Field<P> like(const Field<T>& v, int ghost = 1) { return Field<P>(v.extent(), ghost, v.memory()); }
template <class P, class T>
dist::DistField<P> like(const dist::DistField<T>& v, int ghost = 1) {
  return dist::DistField<P>(v.global(), v.grid(), ghost, v.local().memory());
}

template <class T>
void copy_interior(const dist::DistField<T>& src, dist::DistField<T>& dst, Stream s) {
  copy_interior(src.local(), dst.local(), s);
}
template <class T>
void fill(dist::DistField<T>& v, T value, Stream s) { fill(v.local(), value, s); }
template <class T>
void axpy(T a, const dist::DistField<T>& x, dist::DistField<T>& y, Stream s) { axpy(a, x.local(), y.local(), s); }
template <class T>
void axpby(T a, const dist::DistField<T>& x, T b, dist::DistField<T>& y, Stream s) {
  axpby(a, x.local(), b, y.local(), s);
}
template <class D, class S>
void convert(const dist::DistField<S>& src, dist::DistField<D>& dst, Stream s) {
  convert(src.local(), dst.local(), s);
}
template <class T>
void fill_ghosts(dist::DistField<T>& v, const Boundary& bc, int width, Stream s) { v.fill_ghosts(bc, width, s); }
// Stencil passes on each box; the caller has filled u's ghosts.
template <class T>
void residual(const Stencil& a, const dist::DistField<T>& u, const dist::DistField<T>& f, dist::DistField<T>& r,
              Stream s) {
  residual(a, u.local(), f.local(), r.local(), s);
}
template <class T>
void apply_interior(const Stencil& a, const dist::DistField<T>& in, dist::DistField<T>& out, Stream s) {
  apply_interior(a, in.local(), out.local(), s);
}

// The ghosts of a vector of the error equation (homogeneous bc) before a stencil pass.
// Dirichlet ghosts on the global faces are zero and never written (the vectors are made
// zero-filled and every operation writes interiors only): one process fills nothing, several
// only exchange the neighbours' values.
template <class T>
void error_ghosts(Field<T>& v, const Boundary& hb, Stream s) {
  if (hb.kind != BoundaryKind::dirichlet) fill_ghosts(v, hb, 1, s);
}
template <class T>
void error_ghosts(dist::DistField<T>& v, const Boundary& hb, Stream s) {
  if (hb.kind == BoundaryKind::dirichlet) v.exchange_ghosts(false, 1, s);
  else v.fill_ghosts(hb, 1, s);
}

}  // namespace strata::poisson

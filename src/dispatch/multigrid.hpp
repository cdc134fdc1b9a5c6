// The multigrid passes as the Poisson solvers call them: one call, the backend that owns
// the fields (src/dispatch/multigrid.cpp picks it). What each pass computes:
// backend/multigrid_passes.inc.
#pragma once

#include "backend/multigrid.hpp"
#include "strata/apply.hpp"

namespace strata::poisson {

template <class T>
void jacobi(const Stencil& a, double omega, const Field<T>& u, const Field<T>& f, Field<T>& out,
            Stream stream);
template <class T>
void chebyshev(const Stencil& a, double alpha, double beta, const Field<T>& u, const Field<T>& f,
               Field<T>& prev_out, Stream stream);
template <class T>
bool smooth_fused(const Stencil& a, std::span<const SmoothingStep> steps, const Boundary& bc, const Field<T>& u,
                  const Field<T>& f, Field<T>& out, Stream stream, const Region& over = {});
template <class T>
void residual(const Stencil& a, const Field<T>& u, const Field<T>& f, Field<T>& r, Stream stream);
template <class T>
bool residual_restrict(const Stencil& a, const Field<T>& u, const Field<T>& f, Field<T>& r,
                       const TransferView<T>& t, Field<T>& fc, Stream stream);
template <class T>
void restrict_to(const TransferView<T>& t, const Field<T>& r, Field<T>& fc, Stream stream);
template <class T>
void prolong_add(const TransferView<T>& t, const Field<T>& ec, Field<T>& u, Stream stream);
template <class T>
void dense_correct(const T* m, const Field<T>& r, Field<T>& u, Stream stream);
template <class T>
void extrapolate_ghosts(const GhostRule& g, Field<T>& u, Stream stream);
template <class D, class S>
void convert(const Field<S>& src, Field<D>& dst, Stream stream);

}  // namespace strata::poisson

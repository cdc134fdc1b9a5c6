// CUDA implementations of the multigrid backend interface (backend/multigrid.hpp); host
// declarations only, no CUDA headers.
#pragma once

#include "backend/multigrid.hpp"

namespace strata::cuda {

template <class T>
void jacobi(const Stencil& a, double omega, const Field<T>& u, const Field<T>& f, Field<T>& out,
            void* stream);
template <class T>
void chebyshev(const Stencil& a, double alpha, double beta, const Field<T>& u, const Field<T>& f,
               Field<T>& prev_out, void* stream);
template <class T>
void residual(const Stencil& a, const Field<T>& u, const Field<T>& f, Field<T>& r, void* stream);
template <class T>
bool residual_restrict(const Stencil& a, const Field<T>& u, const Field<T>& f, Field<T>& r,
                       const poisson::TransferView<T>& t, Field<T>& fc, void* stream);
template <class T>
void restrict_to(const poisson::TransferView<T>& t, const Field<T>& r, Field<T>& fc, void* stream);
template <class T>
void prolong_add(const poisson::TransferView<T>& t, const Field<T>& ec, Field<T>& u, void* stream);
template <class T>
void dense_correct(const T* m, const Field<T>& r, Field<T>& u, void* stream);
template <class T>
void extrapolate_ghosts(const poisson::GhostRule& g, Field<T>& u, void* stream);
template <class D, class S>
void convert(const Field<S>& src, Field<D>& dst, void* stream);

}  // namespace strata::cuda

// The CUDA multigrid passes in a build without CUDA (backend/multigrid.hpp): each refuses
// with the message every device request gets, so the dispatch needs no #if.
#include "backend/multigrid.hpp"

#include "nocuda/refuse.hpp"

namespace strata::cuda {

namespace {
using nocuda::refuse;
}  // namespace

template <class T>
void jacobi(const Stencil&, double, const Field<T>&, const Field<T>&, Field<T>&, void*) { refuse(); }
template <class T>
void chebyshev(const Stencil&, double, double, const Field<T>&, const Field<T>&, Field<T>&, void*) { refuse(); }
template <class T>
bool smooth_fused(const Stencil&, std::span<const poisson::SmoothingStep>, const Boundary&, const Field<T>&,
                  const Field<T>&, Field<T>&, void*, const Region&) {
  refuse();
}
template <class T>
void residual(const Stencil&, const Field<T>&, const Field<T>&, Field<T>&, void*) { refuse(); }
template <class T>
bool residual_restrict(const Stencil&, const Field<T>&, const Field<T>&, Field<T>&, const poisson::TransferView<T>&,
                       Field<T>&, void*) { refuse(); }
template <class T>
void restrict_to(const poisson::TransferView<T>&, const Field<T>&, Field<T>&, void*) { refuse(); }
template <class T>
void prolong_add(const poisson::TransferView<T>&, const Field<T>&, Field<T>&, void*) { refuse(); }
template <class T>
void dense_correct(const T*, const Field<T>&, Field<T>&, void*) { refuse(); }
template <class T>
void extrapolate_ghosts(const poisson::GhostRule&, Field<T>&, void*) { refuse(); }
template <class D, class S>
void convert(const Field<S>&, Field<D>&, void*) { refuse(); }

#include "backend/multigrid_instances.inc"

}  // namespace strata::cuda

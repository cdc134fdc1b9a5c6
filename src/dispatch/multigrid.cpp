// Dispatch of the multigrid backend interface to the backend owning the fields.
#include "backend/multigrid.hpp"

#include "cpu/multigrid.hpp"
#include "strata/error.hpp"
#if STRATA_HAVE_CUDA
#include "cuda/multigrid.hpp"
#define STRATA_ON_DEVICE(call) cuda::call
#else
#define STRATA_ON_DEVICE(call) ((void)s, throw Error("strata was built without CUDA: device fields are unavailable"))
#endif

namespace strata::poisson {

// One backend per call: the first field decides, the others must agree.
template <class... F>
bool on_host(const F&... fields) {
  const Memory m = std::get<0>(std::tie(fields...)).memory();
  require(((fields.memory() == m) && ...), "poisson: fields on different memories");
  return m == Memory::host;
}

template <class T>
void jacobi(const Stencil& a, double omega, const Field<T>& u, const Field<T>& f, Field<T>& out, Stream s) {
  if (on_host(u, f, out)) return cpu::jacobi(a, omega, u, f, out);
  STRATA_ON_DEVICE(jacobi(a, omega, u, f, out, s.handle));
}
template <class T>
void chebyshev(const Stencil& a, double alpha, double beta, const Field<T>& u, const Field<T>& f,
               Field<T>& prev_out, Stream s) {
  if (on_host(u, f, prev_out)) return cpu::chebyshev(a, alpha, beta, u, f, prev_out);
  STRATA_ON_DEVICE(chebyshev(a, alpha, beta, u, f, prev_out, s.handle));
}
template <class T>
void residual(const Stencil& a, const Field<T>& u, const Field<T>& f, Field<T>& r, Stream s) {
  if (on_host(u, f, r)) return cpu::residual(a, u, f, r);
  STRATA_ON_DEVICE(residual(a, u, f, r, s.handle));
}
template <class T>
bool residual_restrict(const Stencil& a, const Field<T>& u, const Field<T>& f, Field<T>& r,
                       const TransferView<T>& t, Field<T>& fc, Stream s) {
  if (on_host(u, f, r, fc)) {
    cpu::residual(a, u, f, r);
    cpu::restrict_to(t, r, fc);
    return false;
  }
#if STRATA_HAVE_CUDA
  return cuda::residual_restrict(a, u, f, r, t, fc, s.handle);
#else
  (void)s;
  throw Error("strata was built without CUDA: device fields are unavailable");
#endif
}
template <class T>
void restrict_to(const TransferView<T>& t, const Field<T>& r, Field<T>& fc, Stream s) {
  if (on_host(r, fc)) return cpu::restrict_to(t, r, fc);
  STRATA_ON_DEVICE(restrict_to(t, r, fc, s.handle));
}
template <class T>
void prolong_add(const TransferView<T>& t, const Field<T>& ec, Field<T>& u, Stream s) {
  if (on_host(ec, u)) return cpu::prolong_add(t, ec, u);
  STRATA_ON_DEVICE(prolong_add(t, ec, u, s.handle));
}
template <class T>
void dense_correct(const T* m, const Field<T>& r, Field<T>& u, Stream s) {
  if (on_host(r, u)) return cpu::dense_correct(m, r, u);
  STRATA_ON_DEVICE(dense_correct(m, r, u, s.handle));
}
template <class T>
void extrapolate_ghosts(const GhostRule& g, Field<T>& u, Stream s) {
  require(u.ghost() >= 1, "internal: extrapolate_ghosts needs a ghost layer");
  if (on_host(u)) return cpu::extrapolate_ghosts(g, u);
  STRATA_ON_DEVICE(extrapolate_ghosts(g, u, s.handle));
}
template <class D, class S>
void convert(const Field<S>& src, Field<D>& dst, Stream s) {
  require(src.extent() == dst.extent(), "poisson: convert between different extents");
  require(src.memory() == dst.memory(), "poisson: fields on different memories");
  if (src.memory() == Memory::host) return cpu::convert(src, dst);
  STRATA_ON_DEVICE(convert(src, dst, s.handle));
}

#define STRATA_INSTANTIATE(T)                                                                     \
  template void jacobi(const Stencil&, double, const Field<T>&, const Field<T>&, Field<T>&, Stream); \
  template void chebyshev(const Stencil&, double, double, const Field<T>&, const Field<T>&,       \
                          Field<T>&, Stream);                                                     \
  template void residual(const Stencil&, const Field<T>&, const Field<T>&, Field<T>&, Stream);    \
  template bool residual_restrict(const Stencil&, const Field<T>&, const Field<T>&, Field<T>&,    \
                                  const TransferView<T>&, Field<T>&, Stream);                     \
  template void restrict_to(const TransferView<T>&, const Field<T>&, Field<T>&, Stream);          \
  template void prolong_add(const TransferView<T>&, const Field<T>&, Field<T>&, Stream);          \
  template void dense_correct(const T*, const Field<T>&, Field<T>&, Stream);                      \
  template void extrapolate_ghosts(const GhostRule&, Field<T>&, Stream);
STRATA_INSTANTIATE(float)
STRATA_INSTANTIATE(double)
#undef STRATA_INSTANTIATE
template void convert(const Field<float>&, Field<double>&, Stream);
template void convert(const Field<double>&, Field<float>&, Stream);

}  // namespace strata::poisson

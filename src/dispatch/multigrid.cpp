// Dispatch of the multigrid passes to the backend owning the fields: host fields to the
// CPU, device fields to CUDA (whose stubs refuse them in a build without it).
#include "dispatch/multigrid.hpp"

#include <tuple>

#include "strata/error.hpp"

namespace strata::poisson {

namespace {

// One backend per call: the first field decides, the others must agree.
template <class... F>
bool on_host(const F&... fields) {
  const Memory m = std::get<0>(std::tie(fields...)).memory();
  require(((fields.memory() == m) && ...), "poisson: fields on different memories");
  return m == Memory::host;
}

}  // namespace

template <class T>
void jacobi(const Stencil& a, double omega, const Field<T>& u, const Field<T>& f, Field<T>& out, Stream s) {
  on_host(u, f, out) ? cpu::jacobi(a, omega, u, f, out, s.handle) : cuda::jacobi(a, omega, u, f, out, s.handle);
}
template <class T>
void chebyshev(const Stencil& a, double alpha, double beta, const Field<T>& u, const Field<T>& f,
               Field<T>& prev_out, Stream s) {
  on_host(u, f, prev_out) ? cpu::chebyshev(a, alpha, beta, u, f, prev_out, s.handle)
                          : cuda::chebyshev(a, alpha, beta, u, f, prev_out, s.handle);
}
template <class T>
bool smooth_fused(const Stencil& a, std::span<const SmoothingStep> steps, const Boundary& bc, const Field<T>& u,
                  const Field<T>& f, Field<T>& out, Stream s, const Region& over) {
  return on_host(u, f, out) ? cpu::smooth_fused(a, steps, bc, u, f, out, s.handle, over)
                            : cuda::smooth_fused(a, steps, bc, u, f, out, s.handle, over);
}
template <class T>
void residual(const Stencil& a, const Field<T>& u, const Field<T>& f, Field<T>& r, Stream s) {
  on_host(u, f, r) ? cpu::residual(a, u, f, r, s.handle) : cuda::residual(a, u, f, r, s.handle);
}
template <class T>
bool residual_restrict(const Stencil& a, const Field<T>& u, const Field<T>& f, Field<T>& r,
                       const TransferView<T>& t, Field<T>& fc, Stream s) {
  return on_host(u, f, r, fc) ? cpu::residual_restrict(a, u, f, r, t, fc, s.handle)
                              : cuda::residual_restrict(a, u, f, r, t, fc, s.handle);
}
template <class T>
void restrict_to(const TransferView<T>& t, const Field<T>& r, Field<T>& fc, Stream s) {
  on_host(r, fc) ? cpu::restrict_to(t, r, fc, s.handle) : cuda::restrict_to(t, r, fc, s.handle);
}
template <class T>
void prolong_add(const TransferView<T>& t, const Field<T>& ec, Field<T>& u, Stream s) {
  on_host(ec, u) ? cpu::prolong_add(t, ec, u, s.handle) : cuda::prolong_add(t, ec, u, s.handle);
}
template <class T>
void dense_correct(const T* m, const Field<T>& r, Field<T>& u, Stream s) {
  on_host(r, u) ? cpu::dense_correct(m, r, u, s.handle) : cuda::dense_correct(m, r, u, s.handle);
}
template <class T>
void extrapolate_ghosts(const GhostRule& g, Field<T>& u, Stream s) {
  require(u.ghost() >= 1, "internal: extrapolate_ghosts needs a ghost layer");
  on_host(u) ? cpu::extrapolate_ghosts(g, u, s.handle) : cuda::extrapolate_ghosts(g, u, s.handle);
}
template <class D, class S>
void convert(const Field<S>& src, Field<D>& dst, Stream s) {
  require(src.extent() == dst.extent(), "poisson: convert between different extents");
  require(src.memory() == dst.memory(), "poisson: fields on different memories");
  src.memory() == Memory::host ? cpu::convert(src, dst, s.handle) : cuda::convert(src, dst, s.handle);
}

#define STRATA_INSTANTIATE(T)                                                                     \
  template void jacobi(const Stencil&, double, const Field<T>&, const Field<T>&, Field<T>&, Stream); \
  template void chebyshev(const Stencil&, double, double, const Field<T>&, const Field<T>&,       \
                          Field<T>&, Stream);                                                     \
  template bool smooth_fused(const Stencil&, std::span<const SmoothingStep>, const Boundary&, const Field<T>&, \
                             const Field<T>&, Field<T>&, Stream, const Region&);                                            \
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

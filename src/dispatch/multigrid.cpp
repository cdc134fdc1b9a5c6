// Dispatch of the multigrid passes to the backend owning the fields (on_backend): host
// fields to the CPU, device fields to CUDA. The fields of one pass share a memory.
#include "dispatch/multigrid.hpp"

#include "dispatch/backend.hpp"
#include "strata/error.hpp"

namespace strata::poisson {

namespace {
constexpr const char* kCall = "poisson";  // the refusal of fields on different memories
}  // namespace

template <class T>
void jacobi(const Stencil& a, double omega, const Field<T>& u, const Field<T>& f, Field<T>& out,
            Stream s) {
  on_backend(common_memory(kCall, u, f, out),
             [&](auto tag) { jacobi(tag, a, omega, u, f, out, s.handle); });
}
template <class T>
void chebyshev(const Stencil& a, double alpha, double beta, const Field<T>& u, const Field<T>& f,
               Field<T>& prev_out, Stream s) {
  on_backend(common_memory(kCall, u, f, prev_out),
             [&](auto tag) { chebyshev(tag, a, alpha, beta, u, f, prev_out, s.handle); });
}
template <class T>
bool smooth_fused(const Stencil& a, std::span<const SmoothingStep> steps, const Boundary& bc,
                  const Field<T>& u, const Field<T>& f, Field<T>& out, Stream s,
                  const Region& over) {
  return on_backend(common_memory(kCall, u, f, out), [&](auto tag) {
    return smooth_fused(tag, a, steps, bc, u, f, out, s.handle, over);
  });
}
template <class T>
void residual(const Stencil& a, const Field<T>& u, const Field<T>& f, Field<T>& r, Stream s) {
  on_backend(common_memory(kCall, u, f, r), [&](auto tag) { residual(tag, a, u, f, r, s.handle); });
}
template <class T>
bool residual_restrict(const Stencil& a, const Field<T>& u, const Field<T>& f, Field<T>& r,
                       const TransferView<T>& t, Field<T>& fc, Stream s) {
  return on_backend(common_memory(kCall, u, f, r, fc),
                    [&](auto tag) { return residual_restrict(tag, a, u, f, r, t, fc, s.handle); });
}
template <class T>
void restrict_to(const TransferView<T>& t, const Field<T>& r, Field<T>& fc, Stream s) {
  on_backend(common_memory(kCall, r, fc), [&](auto tag) { restrict_to(tag, t, r, fc, s.handle); });
}
template <class T>
void prolong_add(const TransferView<T>& t, const Field<T>& ec, Field<T>& u, Stream s) {
  on_backend(common_memory(kCall, ec, u), [&](auto tag) { prolong_add(tag, t, ec, u, s.handle); });
}
template <class T>
void dense_correct(const T* m, const Field<T>& r, Field<T>& u, Stream s) {
  on_backend(common_memory(kCall, r, u), [&](auto tag) { dense_correct(tag, m, r, u, s.handle); });
}
template <class T>
void extrapolate_ghosts(const GhostRule& g, Field<T>& u, Stream s) {
  require(u.ghost() >= 1, "internal: extrapolate_ghosts needs a ghost layer");
  on_backend(u.memory(), [&](auto tag) { extrapolate_ghosts(tag, g, u, s.handle); });
}
template <class D, class S>
void convert(const Field<S>& src, Field<D>& dst, Stream s) {
  require(src.extent() == dst.extent(), "poisson: convert between different extents");
  on_backend(common_memory(kCall, src, dst), [&](auto tag) { convert(tag, src, dst, s.handle); });
}

#define STRATA_INSTANTIATE(T)                                                                     \
  template void jacobi(const Stencil&, double, const Field<T>&, const Field<T>&, Field<T>&,       \
                       Stream);                                                                   \
  template void chebyshev(const Stencil&, double, double, const Field<T>&, const Field<T>&,       \
                          Field<T>&, Stream);                                                     \
  template bool smooth_fused(const Stencil&, std::span<const SmoothingStep>, const Boundary&,     \
                             const Field<T>&, const Field<T>&, Field<T>&, Stream, const Region&); \
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

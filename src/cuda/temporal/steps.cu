// Launchers of the repeated steps: one relaxation step u + c (A u) is one 2.5D stencil pass
// with RelaxEpilogue, on each stencil's default tile (tuning/stencil_policy.hpp; radius 2 on
// one of its own, where the default spilled), so it moves the bytes of a plain pass (8 per
// point in fp32).
#include "backend/stencil.hpp"
#include "cuda/kernels/steps.cuh"
#include "cuda/stencil/impl.cuh"
#include "cuda/tuning/stencil_policy.hpp"

namespace strata::cuda {

namespace {

template <class Op, class Cfg, class T>
void relax_with(const Stencil& s, T c, const Field<T>& in, Field<T>& out, void* stream, Region region) {
  launch_25d<Op, Cfg, kernels::RelaxEpilogue<T>>(make_op(OpTag<Op>{}, &s), in.data(), in.layout(), out.origin(),
                                                 out.layout(), static_cast<cudaStream_t>(stream), 0,
                                                 kernels::RelaxEpilogue<T>{c}, region);
}

}  // namespace

template <class T>
void relax_interior(Tag, const Stencil& s, double c, const Field<T>& in, Field<T>& out,
                    void* stream, Region region) {
  using P = StencilPolicy<T>;
  using kernels::StarOp;
  const T cc = T(c);
  if (s.kind() == StencilKind::star) {
    switch (s.radius()) {
      case 1: return relax_with<StarOp<T, 1>, typename P::radius1>(s, cc, in, out, stream, region);
      case 2: return relax_with<StarOp<T, 2>, typename P::star2_relax>(s, cc, in, out, stream, region);
      case 3: return relax_with<StarOp<T, 3>, typename P::star34>(s, cc, in, out, stream, region);
      case 4: return relax_with<StarOp<T, 4>, typename P::star34>(s, cc, in, out, stream, region);
      default: break;
    }
  } else if (s.kind() == StencilKind::sym27) {
    return relax_with<kernels::Sym27Op<T>, typename P::radius1>(s, cc, in, out, stream, region);
  } else if (s.kind() == StencilKind::box27) {
    return relax_with<kernels::Box27Op<T>, typename P::radius1>(s, cc, in, out, stream, region);
  }
  throw Error("internal: no relaxation kernel for " + s.name());
}

template void relax_interior(Tag, const Stencil&, double, const Field<float>&, Field<float>&, void*,
                             Region);
template void relax_interior(Tag, const Stencil&, double, const Field<double>&, Field<double>&,
                             void*, Region);

}  // namespace strata::cuda

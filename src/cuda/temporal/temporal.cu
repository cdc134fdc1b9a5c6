// Repeated steps fused K = 2..4 per trip through memory (kernels/temporal.cuh) for the
// stars of radius 1..4, and K = 2 for the symmetric 27-point stencil, where the windows fit
// shared memory; fused_steps answers false for the rest (box27: its 27 coefficients leave no
// registers for the queues), and the caller takes single steps.
#include <span>

#include "backend/stencil.hpp"
#include "cuda/temporal/families.hpp"
#include "cuda/tuning/steps_policy.hpp"

namespace strata::cuda {

template <class T>
bool fused_steps(Tag, const Stencil& s, const StepOptions& o, int k, const Boundary& bc,
                 const Field<T>& in, Field<T>& out, void* stream) {
  const std::span<const double> c = s.coeffs();
  if (s.kind() == StencilKind::star) {
    switch (s.radius()) {
      case 1: return temporal::star<T, 1>(k, c, o, bc, in, out, stream);
      case 2: return temporal::star<T, 2>(k, c, o, bc, in, out, stream);
      case 3: return temporal::star<T, 3>(k, c, o, bc, in, out, stream);
      case 4: return temporal::star<T, 4>(k, c, o, bc, in, out, stream);
      default: return false;
    }
  }
  if (s.kind() == StencilKind::sym27) return temporal::sym27<T>(k, c, o, bc, in, out, stream);
  return false;
}

template <class T>
int auto_steps_per_pass(Tag, const Stencil& s) {
  return steps_per_pass(s.kind(), s.radius(), sizeof(T));
}

template int auto_steps_per_pass<float>(Tag, const Stencil&);
template int auto_steps_per_pass<double>(Tag, const Stencil&);
template bool fused_steps(Tag, const Stencil&, const StepOptions&, int, const Boundary&,
                          const Field<float>&, Field<float>&, void*);
template bool fused_steps(Tag, const Stencil&, const StepOptions&, int, const Boundary&,
                          const Field<double>&, Field<double>&, void*);

}  // namespace strata::cuda

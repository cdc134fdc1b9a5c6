// The CUDA side of the stencil seam (backend/stencil.hpp) in a build without CUDA: device
// fields cannot be made there, so these only keep every path ending in a clear message.
#include "backend/stencil.hpp"
#include "nocuda/refuse.hpp"

namespace strata::cuda {

using nocuda::refuse;

template <class T>
void fill_ghosts(Field<T>&, const Boundary&, int, void*) { refuse(); }
template <class T>
void apply_interior(const Stencil&, const Field<T>&, Field<T>&, void*, Region) { refuse(); }
template <class T>
void relax_interior(const Stencil&, double, const Field<T>&, Field<T>&, void*, Region) { refuse(); }
template <class T>
bool fused_steps(const Stencil&, const StepOptions&, int, const Boundary&, const Field<T>&, Field<T>&, void*) {
  refuse();
}

template <class T>
int auto_steps_per_pass(const Stencil&) {
  refuse();
}

template int auto_steps_per_pass<float>(const Stencil&);
template int auto_steps_per_pass<double>(const Stencil&);
template void fill_ghosts(Field<float>&, const Boundary&, int, void*);
template void fill_ghosts(Field<double>&, const Boundary&, int, void*);
template void apply_interior(const Stencil&, const Field<float>&, Field<float>&, void*, Region);
template void apply_interior(const Stencil&, const Field<double>&, Field<double>&, void*, Region);
template void relax_interior(const Stencil&, double, const Field<float>&, Field<float>&, void*, Region);
template void relax_interior(const Stencil&, double, const Field<double>&, Field<double>&, void*, Region);
template bool fused_steps(const Stencil&, const StepOptions&, int, const Boundary&, const Field<float>&, Field<float>&,
                          void*);
template bool fused_steps(const Stencil&, const StepOptions&, int, const Boundary&, const Field<double>&,
                          Field<double>&, void*);

}  // namespace strata::cuda

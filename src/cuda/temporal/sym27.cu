// Temporal-blocking passes of the symmetric 27-point stencil (families.hpp).
#include "cuda/temporal/families.hpp"
#include "cuda/temporal/launch.cuh"

namespace strata::cuda::temporal {

template <class T>
bool sym27(int k, std::span<const double> c, const StepOptions& o, const Boundary& bc, const Field<T>& in,
           Field<T>& out, void* stream) {
  kernels::Sym27Point<T> op{};
  for (int i = 0; i < 4; ++i) op.c[i] = T(c[i]);
  // Two steps only: its kernels take minutes each to compile, and three or four steps of
  // it spill (the three planes of in-plane sums per row).
  return pass<T, kernels::Sym27Point<T>, 2>(k, op, o, bc, in, out, stream);
}

template bool sym27(int, std::span<const double>, const StepOptions&, const Boundary&, const Field<float>&,
                    Field<float>&, void*);
template bool sym27(int, std::span<const double>, const StepOptions&, const Boundary&, const Field<double>&,
                    Field<double>&, void*);

}  // namespace strata::cuda::temporal

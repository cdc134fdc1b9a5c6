// Temporal-blocking passes of the radius-1 star (temporal_families.hpp).
#include "cuda/temporal_families.hpp"
#include "cuda/temporal_launch.cuh"

namespace strata::cuda::temporal {

template <class T>
bool star1(int k, std::span<const double> c, const StepOptions& o, const Boundary& bc, const Field<T>& in,
           Field<T>& out, void* stream) {
  kernels::StarPoint<T, 1> op{};
  for (int r = 0; r <= 1; ++r) op.c[r] = T(c[r]);
  return pass<T>(k, op, o, bc, in, out, stream);
}

template bool star1(int, std::span<const double>, const StepOptions&, const Boundary&, const Field<float>&,
                     Field<float>&, void*);
template bool star1(int, std::span<const double>, const StepOptions&, const Boundary&, const Field<double>&,
                     Field<double>&, void*);

}  // namespace strata::cuda::temporal

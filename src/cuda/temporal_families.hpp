// One entry per stencil family of the temporal-blocking passes (temporal.cu), each defined
// in its own translation unit (temporal_<family>.cu) so that the kernels compile in parallel.
#pragma once

#include <span>

#include "strata/boundary.hpp"
#include "strata/field.hpp"
#include "strata/steps.hpp"

namespace strata::cuda::temporal {

#define STRATA_TEMPORAL_FAMILY(name)                                                                     \
  template <class T>                                                                                    \
  bool name(int k, std::span<const double> c, const StepOptions& o, const Boundary& bc, const Field<T>& in, \
            Field<T>& out, void* stream);
STRATA_TEMPORAL_FAMILY(star1)
STRATA_TEMPORAL_FAMILY(star2)
STRATA_TEMPORAL_FAMILY(star3)
STRATA_TEMPORAL_FAMILY(star4)
STRATA_TEMPORAL_FAMILY(sym27)
#undef STRATA_TEMPORAL_FAMILY

}  // namespace strata::cuda::temporal

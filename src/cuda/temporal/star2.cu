// Temporal-blocking passes of the radius-2 star: one translation unit per radius, so that
// the kernels compile in parallel (launch.cuh).
#include "cuda/temporal/families.hpp"
#include "cuda/temporal/launch.cuh"

namespace strata {
STRATA_TEMPORAL_STAR(2)
}  // namespace strata

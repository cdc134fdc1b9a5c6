// Temporal-blocking passes of the radius-4 star: one translation unit per radius, so that
// the kernels compile in parallel (launch.cuh).
#include "cuda/temporal/families.hpp"
#include "cuda/temporal/launch.cuh"

namespace strata {
STRATA_TEMPORAL_STAR(4)
}  // namespace strata

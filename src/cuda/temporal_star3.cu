// Temporal-blocking passes of the radius-3 star: one translation unit per radius, so that
// the kernels compile in parallel (temporal_launch.cuh).
#include "cuda/temporal_families.hpp"
#include "cuda/temporal_launch.cuh"

namespace strata {
STRATA_TEMPORAL_STAR(3)
}  // namespace strata

// The halo seam: packing faces for the distributed layer's exchange and filling the ghosts
// of a box's global faces, declared once in halo_api.inc for strata::cpu (src/cpu/halo.cpp,
// ghosts.cpp) and strata::cuda (src/cuda/halo/halo.cu, ghosts.cu), each taking its backend's tag
// first (backend/tag.hpp); src/parallel reaches them through on_backend (dispatch/backend.hpp).
#pragma once

#include "base/region.hpp"
#include "strata/boundary.hpp"
#include "strata/field.hpp"

#define STRATA_SEAM_LIST "backend/halo_api.inc"
#include "backend/each_backend.inc"

// The stencil seam: the passes every backend implements for the public stencil API, declared
// once in stencil_api.inc for strata::cpu (src/cpu/stencil.cpp, ghosts.cpp) and strata::cuda
// (src/cuda/stencil/registry.cpp, halo/ghosts.cu, temporal/steps.cu, temporal/temporal.cu). Each
// takes its backend's tag first (backend/tag.hpp); src/dispatch/apply.cpp and steps.cpp validate
// and reach the backend through on_backend (dispatch/backend.hpp).
#pragma once

#include <array>

#include "base/region.hpp"
#include "strata/boundary.hpp"
#include "strata/field.hpp"
#include "strata/stencil.hpp"
#include "strata/steps.hpp"

#define STRATA_SEAM_LIST "backend/stencil_api.inc"
#include "backend/each_backend.inc"

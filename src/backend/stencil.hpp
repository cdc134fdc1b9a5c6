// The stencil seam: the two passes every backend implements for the public stencil API,
// declared once in stencil_api.inc for strata::cpu (src/cpu/stencil.cpp, ghosts.cpp) and
// strata::cuda (src/cuda/stencil_registry.cpp, ghosts.cu; src/nocuda/stencil.cpp refuses in
// a build without CUDA). src/dispatch/apply.cpp validates and picks the backend.
#pragma once

#include "base/region.hpp"
#include "strata/boundary.hpp"
#include "strata/field.hpp"
#include "strata/stencil.hpp"
#include "strata/steps.hpp"

namespace strata {

namespace cpu {
#include "backend/stencil_api.inc"
}  // namespace cpu

namespace cuda {
#include "backend/stencil_api.inc"
}  // namespace cuda

}  // namespace strata

// The halo seam: packing faces for the distributed layer's exchange and filling the ghosts
// of a box's global faces, declared once in halo_api.inc for strata::cpu (src/cpu/halo.cpp,
// ghosts.cpp) and strata::cuda (src/cuda/halo.cu, ghosts.cu; src/nocuda/halo.cpp refuses).
#pragma once

#include "base/region.hpp"
#include "strata/boundary.hpp"
#include "strata/field.hpp"

namespace strata {

namespace cpu {
#include "backend/halo_api.inc"
}  // namespace cpu

namespace cuda {
#include "backend/halo_api.inc"
}  // namespace cuda

}  // namespace strata

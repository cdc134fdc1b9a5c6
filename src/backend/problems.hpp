// The Poisson problems the CLI and tests generate, the seam strata/manufactured.hpp calls,
// declared once in problems_api.inc for strata::cpu (src/cpu/problems.cpp: host loops) and
// strata::cuda (src/cuda/poisson/problems.cu): separable products of per-axis tables (the
// manufactured right-hand sides and their exact solutions) and counter-based random fields,
// written and measured where the field lives, so a GPU run never builds a grid on the host.
// src/solvers/poisson/manufactured.cpp makes the tables and reaches the backend through
// on_backend.
#pragma once

#include <cstdint>

#include "strata/field.hpp"

#define STRATA_SEAM_LIST "backend/problems_api.inc"
#include "backend/each_backend.inc"

// strata: stencils, solvers and reductions on structured 3D grids, CPU and CUDA.
#pragma once

#include "strata/apply.hpp"
#include "strata/boundary.hpp"
#include "strata/device.hpp"
#include "strata/error.hpp"
#include "strata/field.hpp"
#include "strata/npy.hpp"
#include "strata/reduce.hpp"
#include "strata/stencil.hpp"
#include "strata/vector_ops.hpp"

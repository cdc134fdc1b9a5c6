// strata: stencils, solvers and reductions on structured 3D grids, CPU and CUDA. Includes
// every public header (lint.umbrella checks that it does).
#pragma once

#include "strata/apply.hpp"
#include "strata/boundary.hpp"
#include "strata/device.hpp"
#include "strata/dist.hpp"
#include "strata/dist_poisson.hpp"
#include "strata/error.hpp"
#include "strata/field.hpp"
#include "strata/manufactured.hpp"
#include "strata/npy.hpp"
#include "strata/poisson.hpp"
#include "strata/reduce.hpp"
#include "strata/steps.hpp"
#include "strata/stencil.hpp"
#include "strata/stream.hpp"
#include "strata/tuning.hpp"
#include "strata/vector_ops.hpp"
#include "strata/wave.hpp"

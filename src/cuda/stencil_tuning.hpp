// The GPU's side of tuning (src/cuda/stencil_tuning.cu): the device key and the timer of a
// stencil family's candidates, for the tuner in tuning/tuner.hpp.
#pragma once

#include "cuda/tuning/tuner.hpp"

namespace strata::cuda {

const tuning::DeviceOps& tuning_ops();

}  // namespace strata::cuda

// The one refusal of the CUDA seam's stubs in a build without CUDA. The dispatch layer
// refuses device memory first, so these calls end paths that should not be reachable with
// a clear message instead of a link error or an #if in the callers.
#pragma once

#include "strata/error.hpp"

namespace strata::nocuda {

[[noreturn]] inline void refuse() {
  throw Error("strata was built without CUDA: device fields are unavailable");
}

}  // namespace strata::nocuda

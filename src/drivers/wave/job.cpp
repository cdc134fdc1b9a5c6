// The GPU binding policy of wave runs (job.hpp).
#include "drivers/wave/job.hpp"

namespace strata::wave {

void bind_gpu(const std::string& device) {
  if (device == "cuda") dist::Job::get().bind_gpu();
}

}  // namespace strata::wave

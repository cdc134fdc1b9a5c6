// The job-wide policies every run shares, decided here once for the CLI and Python alike.
#pragma once

#include "strata/device.hpp"

namespace strata::drivers {

// A GPU run over the job's ranks takes this rank's GPU (dist::Job::bind_gpu: one rank per
// GPU, the host's local rank picks it); a one-process run uses the current device.
void bind_gpu(Device device, bool distributed);

}  // namespace strata::drivers

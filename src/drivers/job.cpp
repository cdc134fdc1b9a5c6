// The job-wide policies of drivers/job.hpp.
#include "drivers/job.hpp"

#include "strata/dist.hpp"

namespace strata::drivers {

void bind_gpu(Device device, bool distributed) {
  if (device == Device::cuda && distributed) dist::Job::get().bind_gpu();
}

}  // namespace strata::drivers

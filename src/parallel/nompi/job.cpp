// The job in a build without MPI: always one rank. Started by a launcher with several
// ranks, it refuses, rather than run N copies that each think they own the whole grid.
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "base/runtime.hpp"
#include "parallel/launcher.hpp"
#include "strata/dist.hpp"

namespace strata::dist {

Job& Job::start(int&, char**&, Gpus gpus, bool start_gpu) {
  Job& job = get();
  for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "MPI_LOCALNRANKS"})
    if (const char* n = std::getenv(v); n && std::strcmp(n, "1") != 0)
      throw Error(std::string("started by an MPI launcher with ") + n +
                  " ranks, but this strata was built without MPI: rebuild with MPI (cmake finds "
                  "Open MPI's development package, e.g. libopenmpi-dev) or run one process");
  if (gpus == Gpus::mine) job.narrow_gpus(0);
  if (start_gpu && job.narrowed_) runtime::start_device_early();
  return job;
}

void Job::barrier() const {}
std::vector<double> Job::gather_all(double v) const { return {v}; }
long long Job::sum(long long v) const { return v; }
void Job::broadcast(void*, std::size_t, int) const {}
std::vector<std::string> Job::gather_text(const std::string& text, int) const { return {text}; }
int Job::first_failed(bool failed) const { return failed ? 0 : -1; }

void Job::abort(int code) const {
  std::fflush(stdout);
  std::fflush(stderr);
  std::_Exit(code);
}

void Job::finish() { finished_ = true; }

}  // namespace strata::dist

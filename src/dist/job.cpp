// The job's parts that do not depend on MPI: the instance, the derived collectives (in
// rank order, so results do not depend on MPI's reduction order), the validation
// agreement and GPU binding. src/dist/mpi/job.cpp or src/dist/nompi/job.cpp has the rest.
#include <unistd.h>

#include "base/runtime.hpp"
#include "strata/device.hpp"
#include "strata/dist.hpp"

namespace strata::dist {

namespace {

std::string this_host() {
  char name[256] = {};
  gethostname(name, sizeof name - 1);
  return name;
}

}  // namespace

Job& Job::get() {
  static Job job = [] {
    Job j;
    j.host_ = this_host();
    return j;
  }();
  return job;
}

double Job::sum(double v) const {
  const std::vector<double> all = gather_all(v);
  double s = 0;
  for (double x : all) s += x;  // rank order: the same bits on every rank
  return s;
}

double Job::max(double v) const {
  double m = v;
  for (double x : gather_all(v)) m = (x > m || x != x) ? x : m;  // NaN wins
  return m;
}

void Job::agree(const std::string& why) const {
  const int first = first_failed(!why.empty());
  if (first < 0) return;
  std::string msg = why;
  std::size_t len = msg.size();
  broadcast(&len, sizeof len, first);
  msg.resize(len);
  broadcast(msg.data(), len, first);
  throw AgreedError(size_ > 1 && first != 0 ? "rank " + std::to_string(first) + ": " + msg : msg);
}

void Job::begin() {
  if (begun_) return;
  begun_ = true;
  if (first_failed(false) >= 0) throw PeerFailed();
}

int Job::bind_gpu() {
  const int count = int(cuda_devices().size());
  if (count == 0) throw Error("no GPU for rank " + std::to_string(rank_) + ": " + cuda_unavailable_reason());
  if (local_size_ > count)
    throw Error(std::to_string(local_size_) + " ranks on host " + host_ + " but only " + std::to_string(count) +
                " GPU" + (count == 1 ? "" : "s") + ": strata runs one rank per GPU (mpirun -np " +
                std::to_string(count) + "), or use --device cpu");
  runtime::set_device(local_rank_);
  return local_rank_;
}

}  // namespace strata::dist

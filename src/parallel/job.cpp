// The job's parts that do not depend on MPI: the instance, the derived collectives (in
// rank order, so results do not depend on MPI's reduction order), the validation
// agreement and GPU binding. src/parallel/mpi/job.cpp or src/parallel/nompi/job.cpp has the rest.
#include <unistd.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "base/runtime.hpp"
#include "parallel/transport.hpp"
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

void Job::join_gpu_start() { runtime::join_device_start(); }

namespace {

// The settings the ranks read later, inside collective calls (the GPU transport's), checked
// where a refusal is still said once for the job: "" or what is wrong.
std::string settings_problem() {
  try {
    transport::gpu_transport_setting();
    transport::ipc_slot_setting();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

void Job::agree(const std::string& mine) const {
  const std::string why = mine.empty() && size_ > 1 ? settings_problem() : mine;
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
  if (size_ > 1)
    if (const std::string problem = settings_problem(); !problem.empty()) throw Error(problem);
  begun_ = true;
  if (first_failed(false) >= 0) throw PeerFailed();
}

void Job::narrow_gpus(int index) {
  if (narrowed_) return;
  if (const char* keep = std::getenv("STRATA_VISIBLE_GPUS"); keep && std::string(keep) == "all") return;
  std::vector<std::string> entries;
  const int count = runtime::gpus_without_cuda(&entries);
  // Too few GPUs for this rank: leave every one visible, so that every rank of the host sees
  // the same count and bind_gpu says how many ranks the host can take.
  if (count <= index) return;
  const char* was = std::getenv("CUDA_VISIBLE_DEVICES");
  const std::string value = entries.empty() ? std::to_string(index) : entries[std::size_t(index)];
  visibility_ = "CUDA_VISIBLE_DEVICES=" + value + (was ? " (was " + std::string(was) + ")" : " (was unset)");
  ::setenv("CUDA_VISIBLE_DEVICES", value.c_str(), 1);
  narrowed_ = true;
}

void Job::bind_gpu() {
  const int count = cuda_device_count();
  if (count == 0)
    throw Error("no GPU for rank " + std::to_string(rank_) + (narrowed_ ? " (" + visibility_ + ")" : "") + ": " +
                cuda_unavailable_reason());
  // Narrowed, this rank sees its own GPU alone; otherwise it takes the local_rank-th.
  if (!narrowed_ && local_size_ > count)
    throw Error(std::to_string(local_size_) + " ranks on host " + host_ + " but only " + std::to_string(count) +
                " GPU" + (count == 1 ? "" : "s") + ": strata runs one rank per GPU (mpirun -np " +
                std::to_string(count) + "), or use --device cpu");
  runtime::set_device(narrowed_ ? 0 : local_rank_);
}

bool Job::gpu_per_rank() const {
  const bool mine = cuda_available() && (narrowed_ || local_size_ <= cuda_device_count());
  return first_failed(!mine) < 0;
}

Transports transports() { return {transport::host_transport(), transport::device_transport()}; }

}  // namespace strata::dist

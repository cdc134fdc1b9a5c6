// The job over MPI (the parts that call it; src/parallel/job.cpp has the rest): initialised
// only under a launcher, so a plain `strata ...` never touches MPI.
#include <mpi.h>

#include <chrono>
#include <cstdio>
#include <limits>

#include "base/runtime.hpp"
#include "parallel/launcher.hpp"
#include "parallel/transport.hpp"
#include "strata/dist.hpp"

namespace strata::dist {

namespace {

void check(int rc, const char* call) {
  if (rc == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(rc, text, &len);
  throw Error(std::string(call) + " failed: " + std::string(text, std::size_t(len)));
}

}  // namespace



Job& Job::start(int& argc, char**& argv, Gpus gpus, bool start_gpu) {
  Job& job = get();
  if (job.mpi_) return job;
  const bool mine = gpus == Gpus::mine;
  if (!detail::launched_by_mpi()) {
    if (mine) job.narrow_gpus(0);
    if (start_gpu && job.narrowed_) runtime::start_device_early();
    return job;
  }
  // Before MPI_Init where the launcher says where this rank sits (an MPI built with CUDA
  // may start it there), else from MPI's own count of the host's ranks just after.
  const auto t0 = std::chrono::steady_clock::now();
  const int launcher_local = detail::launcher_local_rank();
  if (mine && launcher_local >= 0) job.narrow_gpus(launcher_local);
  // The GPU's start (0.3-0.4 s alone, about 0.7 s each when four ranks of a 4 x H200 host
  // start theirs at once) and MPI_Init's (about 0.28 s there) overlap.
  if (start_gpu && job.narrowed_) runtime::start_device_early();
  int provided = 0;
  check(MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided), "MPI_Init_thread");
  job.mpi_ = true;
  MPI_Comm_rank(MPI_COMM_WORLD, &job.rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &job.size_);
  MPI_Comm local;
  check(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, job.rank_, MPI_INFO_NULL, &local),
        "MPI_Comm_split_type");
  MPI_Comm_rank(local, &job.local_rank_);
  MPI_Comm_size(local, &job.local_size_);
  MPI_Comm_free(&local);
  char name[MPI_MAX_PROCESSOR_NAME];
  int len = 0;
  MPI_Get_processor_name(name, &len);
  job.host_.assign(name, std::size_t(len));
  if (mine && launcher_local < 0) {
    job.narrow_gpus(job.local_rank_);
    if (start_gpu && job.narrowed_) runtime::start_device_early();
  }
  job.start_ms_ = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  return job;
}

void Job::barrier() const {
  if (mpi_) check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
}

std::vector<double> Job::gather_all(double v) const {
  std::vector<double> all(std::size_t(size_), v);
  if (mpi_) check(MPI_Allgather(&v, 1, MPI_DOUBLE, all.data(), 1, MPI_DOUBLE, MPI_COMM_WORLD), "MPI_Allgather");
  return all;
}



long long Job::sum(long long v) const {
  long long s = v;
  if (mpi_) check(MPI_Allreduce(&v, &s, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD), "MPI_Allreduce");
  return s;
}

void Job::broadcast(void* data, std::size_t bytes, int root) const {
  if (!mpi_ || bytes == 0) return;
  auto* p = static_cast<char*>(data);
  constexpr std::size_t kChunk = std::size_t(1) << 30;  // MPI counts are int
  for (std::size_t off = 0; off < bytes; off += kChunk)
    check(MPI_Bcast(p + off, int(std::min(kChunk, bytes - off)), MPI_BYTE, root, MPI_COMM_WORLD), "MPI_Bcast");
}

std::vector<std::string> Job::gather_text(const std::string& text, int root) const {
  if (!mpi_) return {text};
  // MPI counts are int: a rank's text above 2 GiB is refused rather than cut.
  if (text.size() > std::size_t(std::numeric_limits<int>::max()))
    throw Error("gather_text: rank " + std::to_string(rank_) + "'s text is " + std::to_string(text.size()) +
                " bytes, more than an MPI count can hold");
  const int len = int(text.size());
  std::vector<int> lens(rank_ == root ? std::size_t(size_) : 0), offsets(lens.size());
  check(MPI_Gather(&len, 1, MPI_INT, lens.data(), 1, MPI_INT, root, MPI_COMM_WORLD), "MPI_Gather");
  std::string all;
  if (rank_ == root) {
    long long total = 0;
    for (int r = 0; r < size_; ++r) offsets[std::size_t(r)] = int(total), total += lens[std::size_t(r)];
    if (total > std::numeric_limits<int>::max())
      throw Error("gather_text: the ranks' texts add up to " + std::to_string(total) +
                  " bytes, more than an MPI count can hold");
    all.resize(std::size_t(total));
  }
  check(MPI_Gatherv(text.data(), len, MPI_CHAR, all.data(), lens.data(), offsets.data(), MPI_CHAR, root,
                    MPI_COMM_WORLD),
        "MPI_Gatherv");
  std::vector<std::string> out;
  for (std::size_t r = 0; r < lens.size(); ++r) out.push_back(all.substr(std::size_t(offsets[r]), std::size_t(lens[r])));
  return out;
}

int Job::first_failed(bool failed) const {
  if (!mpi_) return failed ? 0 : -1;
  int mine = failed ? rank_ : size_, first = size_;
  check(MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD), "MPI_Allreduce");
  return first == size_ ? -1 : first;
}



void Job::abort(int code) const {
  std::fflush(stdout);
  std::fflush(stderr);
  if (mpi_) MPI_Abort(MPI_COMM_WORLD, code);
  std::_Exit(code);
}

void Job::finish() {
  if (!mpi_ || finished_) return;
  finished_ = true;
  int done = 0;
  MPI_Finalized(&done);
  if (done) return;
  transport::finish_device();
  MPI_Finalize();
}

}  // namespace strata::dist

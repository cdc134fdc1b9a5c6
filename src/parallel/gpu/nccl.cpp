// Device halo exchange over NCCL: one communicator for the job, bootstrapped over MPI on
// first use (rank 0 makes the unique id, MPI broadcasts it); every exchange is one NCCL
// group of sends and receives on the caller's stream. The transport of jobs that span hosts
// (device.cpp chooses).
#include <cuda_runtime.h>
#include <mpi.h>
#include <nccl.h>

#include <string>
#include <vector>

#include "parallel/gpu/transports.hpp"
#include "strata/dist.hpp"
#include "strata/error.hpp"

namespace strata::dist::transport::nccl {

namespace {

void check(ncclResult_t rc, const char* call) {
  if (rc != ncclSuccess && rc != ncclInProgress)
    throw Error(std::string(call) + " failed: " + ncclGetErrorString(rc) + " (" +
                ncclGetLastError(nullptr) + ")");
}

ncclComm_t communicator() {
  static ncclComm_t comm = [] {
    const Job& job = Job::get();
    ncclUniqueId id{};
    if (job.root()) check(ncclGetUniqueId(&id), "ncclGetUniqueId");
    job.broadcast(&id, sizeof id, 0);
    ncclComm_t c = nullptr;
    check(ncclCommInitRank(&c, job.size(), id, job.rank()), "ncclCommInitRank");
    return c;
  }();
  return comm;
}

}  // namespace

void connect(std::span<const int> lo_peers, std::span<const int> hi_peers) {
  communicator();
  // One byte each way to every neighbour, in the exchange's order (upward, then downward):
  // NCCL connects a pair at its first message, which then no exchange pays.
  void* buf = nullptr;
  if (cudaMalloc(&buf, 4) != cudaSuccess)
    throw Error("cudaMalloc of 4 bytes failed while connecting NCCL peers");
  auto* b = static_cast<char*>(buf);
  std::vector<Leg> legs;
  for (std::size_t a = 0; a < lo_peers.size(); ++a) {
    legs.push_back({hi_peers[a], lo_peers[a], b, b + 1, 1, 0});
    legs.push_back({lo_peers[a], hi_peers[a], b + 2, b + 3, 1, 1});
  }
  nccl::exchange(legs, nullptr);
  const cudaError_t rc = cudaStreamSynchronize(nullptr);
  cudaFree(buf);
  if (rc != cudaSuccess)
    throw Error(std::string("connecting NCCL peers: ") + cudaGetErrorString(rc));
}

void exchange(std::span<const Leg> legs, void* stream) {
  ncclComm_t comm = communicator();
  const auto s = static_cast<cudaStream_t>(stream);
  check(ncclGroupStart(), "ncclGroupStart");
  for (const Leg& l : legs) {
    if (l.bytes == 0) continue;
    if (l.send_peer >= 0)
      check(ncclSend(l.send, l.bytes, ncclChar, l.send_peer, comm, s), "ncclSend");
    if (l.recv_peer >= 0)
      check(ncclRecv(l.recv, l.bytes, ncclChar, l.recv_peer, comm, s), "ncclRecv");
  }
  check(ncclGroupEnd(), "ncclGroupEnd");
}

std::string version() {
  int v = 0;
  ncclGetVersion(&v);
  return "NCCL " + std::to_string(v / 10000) + "." + std::to_string(v / 100 % 100) + "." +
         std::to_string(v % 100);
}

}  // namespace strata::dist::transport::nccl

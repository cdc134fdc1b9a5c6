// transport.hpp's device calls: CUDA IPC where every rank of the job is on one host and can
// map the others' GPU memory (ipc.cpp), NCCL otherwise (nccl.cpp), or as
// STRATA_GPU_TRANSPORT says. Decided once, at the first call (collective, like every caller).
#include <string>

#include "parallel/gpu/transports.hpp"
#include "strata/dist.hpp"
#include "strata/error.hpp"

namespace strata::dist::transport {

namespace {

enum class Chosen { undecided, ipc, nccl };
Chosen chosen = Chosen::undecided;
std::string why_not_ipc;  // when auto fell back to NCCL

Chosen choose() {
  if (chosen != Chosen::undecided) return chosen;
  const GpuTransport want = gpu_transport_setting();
  if (want == GpuTransport::nccl) return chosen = Chosen::nccl;
  std::string why;
  if (ipc::connect(why)) return chosen = Chosen::ipc;
  // Every rank has the same `why` (ipc::connect agrees on it): one message for the job.
  if (want == GpuTransport::ipc)
    throw AgreedError("STRATA_GPU_TRANSPORT=ipc, but CUDA IPC cannot join this job's GPUs: " + why);
  why_not_ipc = why;
  return chosen = Chosen::nccl;
}

}  // namespace

void prepare_device(std::span<const int> lo_peers, std::span<const int> hi_peers) {
  if (choose() == Chosen::nccl) nccl::connect(lo_peers, hi_peers);
}

void exchange_device(std::span<const Leg> legs, void* stream) {
  if (choose() == Chosen::ipc)
    ipc::exchange(legs, stream);
  else
    nccl::exchange(legs, stream);
}

void finish_device() {
  if (chosen != Chosen::ipc) return;
  ipc::finish();
  chosen = Chosen::undecided;
}

void exchange_device_nccl(std::span<const Leg> legs, void* stream) { nccl::exchange(legs, stream); }

std::string device_transport() {
  switch (chosen) {
    case Chosen::ipc:
      return "CUDA IPC between the ranks' GPUs (one host; " +
             std::to_string(ipc::slot_bytes() >> 10) + " KiB staging per peer)";
    case Chosen::nccl:
      return nccl::version() + (why_not_ipc.empty() ? "" : " (not CUDA IPC: " + why_not_ipc + ")");
    case Chosen::undecided:
      break;
  }
  switch (gpu_transport_setting()) {
    case GpuTransport::ipc:
      return "CUDA IPC (STRATA_GPU_TRANSPORT=ipc)";
    case GpuTransport::nccl:
      return nccl::version() + " (STRATA_GPU_TRANSPORT=nccl)";
    case GpuTransport::automatic:
      break;
  }
  return "CUDA IPC between the GPUs of one host, else " + nccl::version();
}

}  // namespace strata::dist::transport

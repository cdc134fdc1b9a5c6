// How ghost layers travel between ranks: host buffers through MPI (src/parallel/mpi), device
// buffers through CUDA IPC between the GPUs of one host or NCCL (src/parallel/gpu). Builds
// without MPI or NCCL compile src/parallel/nompi or src/parallel/nogpu instead, which
// refuse, so callers have no #if.
#pragma once

#include <cstddef>
#include <span>
#include <string>

namespace strata::dist::transport {

// One leg of an exchange: send `bytes` from `send` to send_peer and receive `bytes` into
// `recv` from recv_peer (a peer of -1 skips that half). Two ranks match legs by tag; NCCL,
// which has no tags, matches them in order, so every rank lists its legs in the same tag
// order.
struct Leg {
  int send_peer = -1, recv_peer = -1;
  const void* send = nullptr;
  void* recv = nullptr;
  std::size_t bytes = 0;
  int tag = 0;
};

// All legs at once (posted, then waited for); host memory. Returns when every leg is done.
void exchange_host(std::span<const Leg> legs);

// All legs on `stream` (device memory of the bound GPU), asynchronously: through CUDA IPC
// (staging buffers mapped between the ranks' GPUs) or as one NCCL group.
void exchange_device(std::span<const Leg> legs, void* stream);

// The same legs as one NCCL group, whatever transport the job chose: what the benchmark
// compares the exchange with (NCCL's communicator is made at the first call; collective).
void exchange_device_nccl(std::span<const Leg> legs, void* stream);

// Makes the device transport ready to talk to `peers`. Collective over the job, with the same
// peers list order on both sides of each pair; a device DistField calls it when made, so no
// exchange pays it. The first call chooses the transport (gpu_transport_setting): CUDA IPC
// maps every rank's staging buffer into every other (milliseconds); NCCL makes its
// communicator and connects each peer (over a second on 2 x H200). Without NCCL it does
// nothing.
void prepare_device(std::span<const int> lo_peers, std::span<const int> hi_peers);

// Before MPI_Finalize (Job::finish; collective): where the ranks' GPUs are joined by CUDA
// IPC, waits for this GPU's work and then for every rank's, so that no rank leaves while a
// peer's last message still writes into its memory, and unmaps the peers' buffers.
void finish_device();

// What STRATA_GPU_TRANSPORT asks for: `automatic` (unset or "auto": CUDA IPC when every rank
// is on one host and can map the others' GPU memory, else NCCL), `ipc` (CUDA IPC or an
// error) or `nccl`. Throws Error on any other value; Job::begin and Job::agree check it on
// every rank.
enum class GpuTransport { automatic, ipc, nccl };
GpuTransport gpu_transport_setting();
// STRATA_IPC_SLOT_KB: CUDA IPC's staging bytes per source rank (default 32 MiB: a radius-4
// f32 z face of 1448^2 points in one round; larger halos go in several). Throws Error outside
// 4 KiB..4 GiB; Job::begin and Job::agree check it on every rank. The tests use 4 KiB slots.
std::size_t ipc_slot_setting();

// The device transport in words: the one this job chose ("CUDA IPC ...", "NCCL 2.28.3 (not
// CUDA IPC: why)"), before the choice what it would choose, or why there is none.
std::string device_transport();
// The MPI library's own name and version ("Open MPI v4.1.6, ...") or why there is none.
std::string host_transport();

}  // namespace strata::dist::transport

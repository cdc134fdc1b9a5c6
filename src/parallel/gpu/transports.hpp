// The two ways device buffers travel between ranks (src/parallel/gpu): CUDA IPC between the
// ranks of one host (ipc.cpp) and NCCL anywhere (nccl.cpp); device.cpp chooses one per job
// and implements transport.hpp's device calls with it.
#pragma once

#include <span>
#include <string>

#include "parallel/transport.hpp"

namespace strata::dist::transport {

namespace ipc {
// Collective: maps every rank's staging buffer and flags into every other rank; returns
// false on every rank (leaving nothing mapped) when any rank cannot, and puts the first
// failing rank's reason in `why`. A job spread over several hosts is refused before any CUDA
// call (IPC reaches the GPUs of one host only).
bool connect(std::string& why);
// transport.hpp's exchange_device over the mapped buffers (connect returned true).
void exchange(std::span<const Leg> legs, void* stream);
// transport.hpp's finish_device for a connected job: this GPU's work done, every rank's too
// (MPI_Barrier), then the peers' buffers unmapped and the staging freed.
void finish();
// The staging bytes each rank keeps per source rank.
std::size_t slot_bytes();
}  // namespace ipc

namespace nccl {
// The communicator (made at the first call) and the connection to each neighbour, each
// side of a pair listing the same peers in the same order; collective.
void connect(std::span<const int> lo_peers, std::span<const int> hi_peers);
void exchange(std::span<const Leg> legs, void* stream);
std::string version();  // "NCCL 2.28.3"
}  // namespace nccl

}  // namespace strata::dist::transport

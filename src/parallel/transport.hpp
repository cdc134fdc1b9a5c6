// How ghost layers travel between ranks: host buffers through MPI (src/parallel/mpi), device
// buffers through NCCL (src/parallel/nccl). Builds without them compile src/parallel/nompi or
// src/parallel/nonccl instead, which refuse, so callers have no #if.
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

// All legs as one NCCL group on `stream` (device memory of the bound GPU). Asynchronous.
void exchange_device(std::span<const Leg> legs, void* stream);

// Makes the device transport ready to talk to `peers` (NCCL's communicator once per process,
// then the connection to each peer, which NCCL makes at the first message: together over a
// second). Collective, with the same peers list order on both sides of each pair; a device
// DistField calls it when made, so no exchange pays it. Without NCCL it does nothing.
void prepare_device(std::span<const int> lo_peers, std::span<const int> hi_peers);

// "NCCL 2.28.3" or why device exchange is unavailable.
std::string device_transport();
// The MPI library's own name and version ("Open MPI v4.1.6, ...") or why there is none.
std::string host_transport();

}  // namespace strata::dist::transport

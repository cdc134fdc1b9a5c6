// A build without NCCL (or without CUDA or MPI): device fields have no transport between
// ranks, so a distributed device field is refused with what to rebuild.
#include "parallel/transport.hpp"
#include "strata/error.hpp"

namespace strata::dist::transport {

std::string device_transport() {
  return "none: this strata was built without NCCL (it needs CUDA, MPI and NCCL's development "
         "files)";
}

void prepare_device(std::span<const int>, std::span<const int>) {}

void exchange_device(std::span<const Leg> legs, void*) {
  for (const Leg& l : legs)
    if (l.send_peer >= 0 || l.recv_peer >= 0)
      throw Error("GPU halo exchange between ranks: transport " + device_transport());
}

void exchange_device_nccl(std::span<const Leg> legs, void* stream) {
  exchange_device(legs, stream);
}

void finish_device() {}

}  // namespace strata::dist::transport

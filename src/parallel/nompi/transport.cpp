// Without MPI there is one rank and no neighbour to exchange with: reaching this is a bug.
#include "parallel/transport.hpp"
#include "strata/error.hpp"

namespace strata::dist::transport {

std::string host_transport() {
  return "none: this strata was built without MPI (it needs MPI's development files, e.g. libopenmpi-dev)";
}

void exchange_host(std::span<const Leg> legs) {
  for (const Leg& l : legs)
    if (l.send_peer >= 0 || l.recv_peer >= 0)
      throw Error("internal: a halo exchange with another rank in a build without MPI");
}

}  // namespace strata::dist::transport

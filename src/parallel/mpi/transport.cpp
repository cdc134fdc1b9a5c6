// Host halo exchange over MPI: every receive posted first, then every send, then one wait.
#include <mpi.h>

#include <string>
#include <vector>

#include "parallel/launcher.hpp"
#include "parallel/transport.hpp"
#include "strata/error.hpp"

namespace strata::dist::transport {

std::string host_transport() {
  char text[MPI_MAX_LIBRARY_VERSION_STRING] = {};
  int len = 0;
  MPI_Get_library_version(text, &len);  // may be called before MPI_Init
  return library_name(std::string(text, std::size_t(len)));
}

void exchange_host(std::span<const Leg> legs) {
  std::vector<MPI_Request> req;
  req.reserve(2 * legs.size());
  auto post = [&](int rc, const char* call) {
    if (rc != MPI_SUCCESS) throw Error(std::string(call) + " failed in the halo exchange");
  };
  for (const Leg& l : legs) {
    if (l.recv_peer < 0 || l.bytes == 0) continue;
    if (l.bytes > std::size_t(1) << 31) throw Error("halo message over 2 GiB");
    req.emplace_back();
    post(MPI_Irecv(l.recv, int(l.bytes), MPI_BYTE, l.recv_peer, l.tag, MPI_COMM_WORLD, &req.back()), "MPI_Irecv");
  }
  for (const Leg& l : legs) {
    if (l.send_peer < 0 || l.bytes == 0) continue;
    req.emplace_back();
    post(MPI_Isend(l.send, int(l.bytes), MPI_BYTE, l.send_peer, l.tag, MPI_COMM_WORLD, &req.back()), "MPI_Isend");
  }
  post(MPI_Waitall(int(req.size()), req.data(), MPI_STATUSES_IGNORE), "MPI_Waitall");
}

}  // namespace strata::dist::transport

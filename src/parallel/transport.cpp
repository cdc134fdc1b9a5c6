// The transport settings every build reads (transport.hpp).
#include <cstdlib>
#include <string>

#include "parallel/transport.hpp"
#include "strata/error.hpp"

namespace strata::dist::transport {

GpuTransport gpu_transport_setting() {
  const char* e = std::getenv("STRATA_GPU_TRANSPORT");
  const std::string v = e ? e : "";
  if (v.empty() || v == "auto") return GpuTransport::automatic;
  if (v == "ipc") return GpuTransport::ipc;
  if (v == "nccl") return GpuTransport::nccl;
  throw Error("STRATA_GPU_TRANSPORT=" + v + ": expected auto, ipc or nccl");
}

}  // namespace strata::dist::transport

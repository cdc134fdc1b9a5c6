// The transport settings every build reads (transport.hpp).
#include <cstddef>
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

std::size_t ipc_slot_setting() {
  const char* e = std::getenv("STRATA_IPC_SLOT_KB");
  if (!e || !*e) return std::size_t(32) << 20;
  char* end = nullptr;
  const long kb = std::strtol(e, &end, 10);
  if (*end || kb < 4 || kb > 4 * 1024 * 1024)
    throw Error(std::string("STRATA_IPC_SLOT_KB=") + e + ": expected kilobytes from 4 to 4194304");
  return std::size_t(kb) << 10;
}

}  // namespace strata::dist::transport

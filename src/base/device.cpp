// The one device vocabulary (strata/device.hpp): its words, and what `automatic` is here.
#include "strata/device.hpp"
#include "strata/error.hpp"

namespace strata {

Device parse_device(std::string_view text, const std::string& what) {
  if (text.empty() || text == "auto") return Device::automatic;
  if (text == "cpu") return Device::cpu;
  if (text == "cuda" || text == "gpu") return Device::cuda;
  throw Error(what + ": unknown device '" + std::string(text) +
              "': allowed auto, cpu, cuda (auto: cuda when a GPU can be used, else cpu)");
}

const char* to_string(Device d) {
  switch (d) {
    case Device::automatic: return "auto";
    case Device::cpu: return "cpu";
    case Device::cuda: return "cuda";
  }
  return "auto";
}

Device resolve(Device d, const std::string& what) {
  if (d == Device::cpu) return d;
  if (d == Device::cuda) {
    require(cuda_available(), what + " cuda was requested but no GPU can be used: " + cuda_unavailable_reason());
    return d;
  }
  return cuda_available() ? Device::cuda : Device::cpu;
}

}  // namespace strata

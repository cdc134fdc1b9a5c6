// The one device vocabulary (strata/device.hpp): its words, and what `automatic` is here;
// the GPUs a process may use counted without starting CUDA (base/runtime.hpp).
#include <dirent.h>
#include <unistd.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "base/runtime.hpp"
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

int runtime::gpus_without_cuda(std::vector<std::string>* entries) {
  if (const char* list = std::getenv("CUDA_VISIBLE_DEVICES")) {
    int count = 0;
    std::string item;
    for (const char* c = list;; ++c) {
      if (*c == ',' || *c == '\0') {
        if (!item.empty()) {
          ++count;
          if (entries) entries->push_back(item);
        }
        item.clear();
        if (*c == '\0') break;
      } else if (*c != ' ') {
        item += *c;
      }
    }
    return count;
  }
  DIR* dev = ::opendir("/dev");
  if (!dev) return -1;
  int count = 0;
  while (const dirent* e = ::readdir(dev)) {
    const std::string name = e->d_name;
    if (name.size() > 6 && name.compare(0, 6, "nvidia") == 0 &&
        name.find_first_not_of("0123456789", 6) == std::string::npos &&
        ::access(("/dev/" + name).c_str(), R_OK | W_OK) == 0)
      ++count;
  }
  ::closedir(dev);
  return count;
}

}  // namespace strata

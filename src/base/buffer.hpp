// A typed array on the host or the device (a DeviceArray), for small solver tables
// (transfer weights, dense coarse inverses). Filled from the host once; freed with its owner.
#pragma once

#include <vector>

#include "base/device_array.hpp"

namespace strata {

template <class U>
class Buffer {
public:
  Buffer() = default;
  Buffer(const std::vector<U>& host, Memory memory) : memory_(memory), n_(host.size()) {
    if (n_ == 0) return;
    if (memory == Memory::host) {
      host_ = host;
      ptr_ = host_.data();
    } else {
      dev_ = DeviceArray<U>(host);
      ptr_ = dev_.get();
    }
  }
  const U* data() const { return ptr_; }
  std::size_t size() const { return n_; }
  Memory memory() const { return memory_; }

private:
  Memory memory_ = Memory::host;
  std::size_t n_ = 0;
  std::vector<U> host_;
  DeviceArray<U> dev_;
  U* ptr_ = nullptr;
};

}  // namespace strata

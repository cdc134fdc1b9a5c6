// A typed array on the host or the device, for small solver tables (transfer weights,
// dense coarse inverses). Filled from the host once; freed with its owner.
#pragma once

#include <memory>
#include <vector>

#include "base/runtime.hpp"

namespace strata {

template <class U>
class Buffer {
public:
  Buffer() = default;
  Buffer(const std::vector<U>& host, Memory memory) : memory_(memory), n_(host.size()) {
    if (n_ == 0) return;
    const std::size_t bytes = n_ * sizeof(U);
    if (memory == Memory::host) {
      host_ = host;
      ptr_ = host_.data();
    } else {
      dev_ = {runtime::device_alloc_zeroed(bytes), &runtime::device_free};
      runtime::copy_bytes(dev_.get(), Memory::device, host.data(), Memory::host, bytes);
      ptr_ = static_cast<U*>(dev_.get());
    }
  }
  const U* data() const { return ptr_; }
  std::size_t size() const { return n_; }
  Memory memory() const { return memory_; }

private:
  Memory memory_ = Memory::host;
  std::size_t n_ = 0;
  std::vector<U> host_;
  std::unique_ptr<void, void (*)(void*) noexcept> dev_{nullptr, &runtime::device_free};
  U* ptr_ = nullptr;
};

}  // namespace strata

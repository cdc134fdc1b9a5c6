// DeviceArray<U>: n values in device memory that free themselves, zeroed on allocation,
// filled from and read back to the host. The one owner of raw device memory outside Field:
// solver tables, CPML profiles, source and receiver lists, scratch. Allocation goes through
// the runtime seam (base/runtime.hpp), so the type exists in every build; without CUDA,
// making a non-empty one throws the runtime's clear error.
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

#include "base/runtime.hpp"
#include "strata/error.hpp"

namespace strata {

template <class U>
class DeviceArray {
public:
  DeviceArray() = default;
  explicit DeviceArray(std::size_t n) : n_(n) {
    if (n > 0) ptr_.reset(static_cast<U*>(runtime::device_alloc_zeroed(n * sizeof(U))));
  }
  explicit DeviceArray(const std::vector<U>& host) : DeviceArray(host.size()) { upload(host); }

  // Copies host[0..size) to the first host.size() values (synchronous).
  void upload(const std::vector<U>& host) {
    require(host.size() <= n_, "internal: device array overflow");
    if (!host.empty())
      runtime::copy_bytes(ptr_.get(), Memory::device, host.data(), Memory::host,
                          host.size() * sizeof(U));
  }
  // The first n values (synchronous).
  std::vector<U> download(std::size_t n) const {
    require(n <= n_, "internal: device array read past its end");
    std::vector<U> h(n);
    if (n > 0)
      runtime::copy_bytes(h.data(), Memory::host, ptr_.get(), Memory::device, n * sizeof(U));
    return h;
  }

  U* get() const { return ptr_.get(); }
  std::size_t size() const { return n_; }
  bool empty() const { return n_ == 0; }

private:
  struct Free {
    void operator()(U* p) const noexcept { runtime::device_free(p); }
  };
  std::unique_ptr<U, Free> ptr_;
  std::size_t n_ = 0;
};

}  // namespace strata

// The runtime services for a build without CUDA: device requests are refused with a
// clear message, copies are host memcpy.
#include <cstring>
#include <string>

#include "base/runtime.hpp"
#include "strata/device.hpp"
#include "strata/error.hpp"

namespace strata {

namespace runtime {

void* device_alloc_zeroed(std::size_t) {
  throw Error("strata was built without CUDA: device fields are unavailable (rebuild with "
              "-DSTRATA_CUDA=ON on a machine with nvcc)");
}
void device_free(void*) noexcept {}
void require_device_pointer(const void*, const std::string& what) {
  throw Error(what + ": Memory::device given but strata was built without CUDA");
}
void copy_bytes(void* dst, Memory, const void* src, Memory, std::size_t bytes) {
  std::memcpy(dst, src, bytes);
}
void copy_bytes_async(void* dst, const void* src, Memory, std::size_t bytes, void*) {
  std::memcpy(dst, src, bytes);
}
void copy_2d(void* dst, Memory, std::size_t dpitch, const void* src, Memory, std::size_t spitch,
             std::size_t width, std::size_t height) {
  for (std::size_t r = 0; r < height; ++r)
    std::memcpy(static_cast<char*>(dst) + r * dpitch, static_cast<const char*>(src) + r * spitch,
                width);
}

void copy_3d(void* dst, Memory dm, std::size_t dpitch, std::size_t drows, const void* src, Memory sm,
             std::size_t spitch, std::size_t srows, std::size_t width, std::size_t height, std::size_t depth) {
  for (std::size_t z = 0; z < depth; ++z)
    copy_2d(static_cast<char*>(dst) + z * drows * dpitch, dm, dpitch,
            static_cast<const char*>(src) + z * srows * spitch, sm, spitch, width, height);
}

void* stream_create() { return nullptr; }
void stream_destroy(void*) noexcept {}
void stream_synchronize(void*) {}
void* graph_capture(void*, const std::function<void()>&) { return nullptr; }
void graph_launch(void*, void*) { throw Error("CUDA graphs need a CUDA build"); }
void graph_destroy(void*) noexcept {}
void* event_create() { return nullptr; }
void event_destroy(void*) noexcept {}
void* event_create_timed() { return nullptr; }
float event_elapsed_ms(void*, void*) { return 0; }
void* stream_create_high_priority() { return nullptr; }
void event_record(void*, void*) {}
void event_record_in_graph(void*, void*) {}
void stream_wait(void*, void*) {}
void set_device(int index) {
  throw Error("no CUDA device " + std::to_string(index) + ": strata was built without CUDA");
}
void start_device_early() {}
void join_device_start() {}
void start_device() {}
bool cuda_started() { return false; }
bool gpu_usable_for_advice() { return false; }

}  // namespace runtime

bool cuda_available() { return false; }
std::vector<DeviceInfo> cuda_devices() { return {}; }
int cuda_device_count() { return 0; }
DeviceInfo cuda_current_device() { throw Error("no GPU: built without CUDA"); }
std::string cuda_unavailable_reason() { return "built without CUDA"; }
void require_device_memory(std::size_t, const std::string& what) {
  throw Error(what + ": strata was built without CUDA, so no device memory is available");
}
void device_synchronize() {}

}  // namespace strata

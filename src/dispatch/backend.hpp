// The one owner of the backend choice, in the style of a Kokkos execution space: on_backend
// turns where the memory lives into a backend's tag (backend/tag.hpp) and hands it to the
// caller's generic lambda, which calls the seam with it first and so reaches that backend's
// definition by argument-dependent lookup:
//   on_backend(f.memory(), [&](auto tag) { fill_ghosts(tag, f, bc, width, stream.handle); });
// Nothing else in the tree chooses, and no caller names cpu:: or cuda::. In a build without
// CUDA the device branch is discarded at compile time (the lambda is never instantiated with
// cuda::Tag, so no CUDA definition is needed to link) and one refusal stands in its place.
#pragma once

#include <string>

#include "backend/tag.hpp"
#include "strata/error.hpp"
#include "strata/field.hpp"

#if !defined(STRATA_HAVE_CUDA)
#error "dispatch/backend.hpp needs STRATA_HAVE_CUDA (0 or 1) from the build (CMakeLists.txt)"
#endif

namespace strata {

// Whether this build has the CUDA backend (src/cuda compiled, CMake's STRATA_HAVE_CUDA).
inline constexpr bool kCudaBackend = STRATA_HAVE_CUDA;

// Device work in a build without CUDA. Device memory cannot be allocated there
// (runtime::device_alloc_zeroed refuses), and the public calls that take raw pointers check
// Memory::device against cuda_available() first, so this ends paths that should not be
// reachable with a clear message: kNoDeviceFields unless the caller names what it could not do.
inline constexpr const char* kNoDeviceFields =
    "strata was built without CUDA: device fields are unavailable";
[[noreturn]] inline void refuse_without_cuda(const char* what = kNoDeviceFields) {
  throw Error(what);
}

// op(cpu::Tag{}) for host memory, op(cuda::Tag{}) for device memory; returns what op does.
// op is called once, at once, on this thread: no allocation, no synchronisation, no virtual
// call, and the tags are empty, so this compiles to the branch written by hand before it.
// `without_cuda` is the refusal of device memory in a build without CUDA.
template <class F>
decltype(auto) on_backend(Memory memory, F&& op, const char* without_cuda = kNoDeviceFields) {
  if (memory == Memory::host) return op(cpu::Tag{});
  if constexpr (kCudaBackend)
    return op(cuda::Tag{});
  else
    refuse_without_cuda(without_cuda);
}

// Work only the GPU does (timing its copy kernel), for a caller that has required device
// memory: op(cuda::Tag{}), or the refusal in a build without CUDA.
template <class F>
void on_device_only(F&& op, const char* without_cuda = kNoDeviceFields) {
  if constexpr (kCudaBackend)
    op(cuda::Tag{});
  else
    refuse_without_cuda(without_cuda);
}

// The memory of the fields one call takes, which must all live there: the first decides, the
// others must agree ("<call>: fields on different memories" otherwise).
template <class First, class... Rest>
Memory common_memory(const char* call, const First& first, const Rest&... rest) {
  const Memory m = first.memory();
  if (!((rest.memory() == m) && ...))
    throw Error(std::string(call) + ": fields on different memories");
  return m;
}

}  // namespace strata

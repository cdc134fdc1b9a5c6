// The CUDA runtime services behind Field and device.hpp: allocation with a free-memory
// check first, copies that know which side each pointer is on, device queries.
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "base/runtime.hpp"
#include "cuda/check.hpp"
#include "cuda/copy_pitched.hpp"
#include "strata/device.hpp"

namespace strata {

namespace cuda {
void throw_cuda_error(cudaError_t err, const char* call, const char* file, int line) {
  throw Error(std::string("CUDA error: ") + call + " failed at " + file + ":" +
              std::to_string(line) + ": " + cudaGetErrorName(err) + ": " +
              cudaGetErrorString(err));
}
}  // namespace cuda

namespace {

std::string gib(std::size_t bytes) {
  char b[32];
  std::snprintf(b, sizeof b, "%.2f GiB", double(bytes) / (1024.0 * 1024 * 1024));
  return b;
}

cudaMemcpyKind kind_of(Memory dst, Memory src) {
  if (src == Memory::host) return dst == Memory::host ? cudaMemcpyHostToHost : cudaMemcpyHostToDevice;
  return dst == Memory::host ? cudaMemcpyDeviceToHost : cudaMemcpyDeviceToDevice;
}

// Large copies between a GPU and pageable host memory go through two pinned buffers: the DMA
// of one chunk runs while the host's threads move the other between the buffer and the
// caller's array. (cudaMemcpy from pageable memory stages through the driver's own buffers on
// the calling thread, one at a time: a 1 GiB download took most of the imaging run's
// 0.78 s finish on the H200's host.) The buffers are kept for the process (PinnedPool), so
// only the first staged copy pays for their allocation: allocated on every call, a 64 MiB copy
// took 16-23 ms, slower than cudaMemcpy from pageable memory (4-11 ms); kept, 1.5-1.7 ms
// (H200, strata bench --kernel transfers, docs/performance.md). Below kStagedBytes the copy is direct (a
// threshold chosen, not measured); memory already pinned is copied directly.
constexpr std::size_t kStagedBytes = std::size_t(32) << 20;
constexpr std::size_t kChunkBytes = std::size_t(16) << 20;

bool pinned(const void* p) {
  cudaPointerAttributes attr{};
  if (cudaPointerGetAttributes(&attr, p) != cudaSuccess) {
    (void)cudaGetLastError();  // not sticky: clear it
    return false;
  }
  return attr.type == cudaMemoryTypeHost;
}

// The process's pair of pinned buffers, made at the first staged copy and kept (cudaHostAlloc
// of 32 MiB costs about what a mid-size copy saves); never freed, so no CUDA call runs at
// exit. Portable: any device of the process may copy through them.
struct PinnedPool {
  std::mutex in_use;
  void* at[2] = {nullptr, nullptr};
  static PinnedPool& get() {
    static PinnedPool* pool = new PinnedPool;
    return *pool;
  }
};

// The buffers of one staged copy: the pool's where no other copy holds them, else a pair of
// its own (freed after); ok is false where no pinned memory can be had (copy directly).
struct PinnedBuffers {
  void* at[2] = {nullptr, nullptr};
  cudaEvent_t done[2] = {nullptr, nullptr};
  bool ok = false;
  std::unique_lock<std::mutex> lease{PinnedPool::get().in_use, std::try_to_lock};
  bool own = !lease.owns_lock();
  PinnedBuffers() {
    PinnedPool& pool = PinnedPool::get();
    for (int i = 0; i < 2; ++i) {
      void*& buffer = own ? at[i] : pool.at[i];
      if (!buffer && cudaHostAlloc(&buffer, kChunkBytes, cudaHostAllocPortable) != cudaSuccess) {
        (void)cudaGetLastError();  // no pinned memory to spare: the caller copies directly
        buffer = nullptr;
        return;
      }
      at[i] = buffer;
      if (cudaEventCreateWithFlags(&done[i], cudaEventDisableTiming) != cudaSuccess) {
        (void)cudaGetLastError();
        done[i] = nullptr;
        return;
      }
    }
    ok = true;
  }
  ~PinnedBuffers() {
    for (int i = 0; i < 2; ++i) {
      if (done[i]) cudaEventSynchronize(done[i]), cudaEventDestroy(done[i]);
      if (own && at[i]) cudaFreeHost(at[i]);
    }
  }
  PinnedBuffers(const PinnedBuffers&) = delete;
  PinnedBuffers& operator=(const PinnedBuffers&) = delete;
};

// A copy of depth planes of height rows of width bytes between host and device (dm != sm),
// through PinnedBuffers. Returns false, having copied nothing, where it does not apply (small,
// rows wider than a chunk, host memory already pinned, no pinned memory to spare). Ordered on
// the legacy default stream as cudaMemcpy is, and synchronous like it.
bool copy_staged(void* dst, Memory dm, std::size_t dpitch, std::size_t drows, const void* src,
                 std::size_t spitch, std::size_t srows, std::size_t width, std::size_t height,
                 std::size_t depth) {
  const bool down = dm == Memory::host;  // device to host
  const void* host = down ? dst : src;
  if (width * height * depth < kStagedBytes || width > kChunkBytes || width == 0 || pinned(host))
    return false;
  PinnedBuffers buf;
  if (!buf.ok) return false;
  // Chunks: whole planes where a plane fits in a buffer, else rows of one plane.
  const std::size_t plane = width * height;
  const std::size_t planes_per = plane <= kChunkBytes ? kChunkBytes / plane : 0;
  const std::size_t rows_per = planes_per ? height : kChunkBytes / width;
  struct Chunk {
    std::size_t z, nz, y, ny;
  };
  std::vector<Chunk> chunks;
  for (std::size_t z = 0; z < depth;) {
    if (planes_per) {
      const std::size_t nz = std::min(planes_per, depth - z);
      chunks.push_back({z, nz, 0, height});
      z += nz;
    } else {
      for (std::size_t y = 0; y < height; y += rows_per)
        chunks.push_back({z, 1, y, std::min(rows_per, height - y)});
      ++z;
    }
  }
  auto* d = static_cast<char*>(dst);
  const auto* s = static_cast<const char*>(src);
  auto dma = [&](const Chunk& c, int b) {  // the device's side of chunk c and buffer b
    cudaMemcpy3DParms p{};
    if (down) {
      p.srcPtr = make_cudaPitchedPtr(const_cast<char*>(s) + (c.z * srows + c.y) * spitch, spitch,
                                     width, srows);
      p.dstPtr = make_cudaPitchedPtr(buf.at[b], width, width, c.ny);
      p.kind = cudaMemcpyDeviceToHost;
    } else {
      p.srcPtr = make_cudaPitchedPtr(buf.at[b], width, width, c.ny);
      p.dstPtr = make_cudaPitchedPtr(d + (c.z * drows + c.y) * dpitch, dpitch, width, drows);
      p.kind = cudaMemcpyHostToDevice;
    }
    p.extent = make_cudaExtent(width, c.ny, c.nz);
    STRATA_CUDA_CHECK(cudaMemcpy3DAsync(&p, cudaStreamLegacy));
    STRATA_CUDA_CHECK(cudaEventRecord(buf.done[b], cudaStreamLegacy));
  };
  auto host_side = [&](const Chunk& c, int b) {  // the caller's array and buffer b, by rows
    char* staged = static_cast<char*>(buf.at[b]);
    const std::int64_t rows = std::int64_t(c.ny * c.nz);
#pragma omp parallel for schedule(static) if (rows > 1)
    for (std::int64_t r = 0; r < rows; ++r) {
      const std::size_t z = c.z + std::size_t(r) / c.ny, y = c.y + std::size_t(r) % c.ny;
      char* in_buf = staged + std::size_t(r) * width;
      if (down)
        std::memcpy(d + (z * drows + y) * dpitch, in_buf, width);
      else
        std::memcpy(in_buf, s + (z * srows + y) * spitch, width);
    }
  };
  if (down) {
    dma(chunks[0], 0);
    for (std::size_t k = 0; k < chunks.size(); ++k) {
      const int b = int(k % 2);
      if (k + 1 < chunks.size()) dma(chunks[k + 1], 1 - b);  // its buffer was emptied at k - 1
      STRATA_CUDA_CHECK(cudaEventSynchronize(buf.done[b]));
      host_side(chunks[k], b);
    }
  } else {
    for (std::size_t k = 0; k < chunks.size(); ++k) {
      const int b = int(k % 2);
      if (k >= 2) STRATA_CUDA_CHECK(cudaEventSynchronize(buf.done[b]));  // chunk k - 2 is up
      host_side(chunks[k], b);
      dma(chunks[k], b);
    }
    for (int b = 0; b < 2; ++b) STRATA_CUDA_CHECK(cudaEventSynchronize(buf.done[b]));
  }
  return true;
}

}  // namespace

namespace runtime {

void* device_alloc_zeroed(std::size_t bytes) {
  require(cuda_available(), "cannot allocate a device field: " + cuda_unavailable_reason());
  require_device_memory(bytes, "a device field of " + gib(bytes));
  void* p = nullptr;
  STRATA_CUDA_CHECK(cudaMalloc(&p, bytes));
  const cudaError_t err = cudaMemset(p, 0, bytes);
  if (err != cudaSuccess) {
    cudaFree(p);
    cuda::throw_cuda_error(err, "cudaMemset(p, 0, bytes)", __FILE__, __LINE__);
  }
  STRATA_CUDA_CHECK(cudaDeviceSynchronize());
  return p;
}

void device_free(void* p) noexcept { cudaFree(p); }

void require_device_pointer(const void* p, const std::string& what) {
  cudaPointerAttributes attr{};
  const cudaError_t rc = cudaPointerGetAttributes(&attr, p);
  if (rc != cudaSuccess) {
    (void)cudaGetLastError();  // not sticky: clear it
    throw Error(what + ": Memory::device was given but the pointer cannot be checked (" +
                cudaGetErrorString(rc) + "): no usable GPU, or not memory CUDA knows");
  }
  require(attr.type == cudaMemoryTypeDevice || attr.type == cudaMemoryTypeManaged,
          what + ": Memory::device was given but the pointer is not device memory "
                 "(pass Memory::host for host arrays)");
  int device = 0;
  STRATA_CUDA_CHECK(cudaGetDevice(&device));
  require(attr.device == device, what + ": the array lives on device " +
                                     std::to_string(attr.device) + " but device " +
                                     std::to_string(device) + " is current");
}

void copy_bytes(void* dst, Memory dm, const void* src, Memory sm, std::size_t bytes) {
  if (dm == Memory::host && sm == Memory::host) {
    std::memcpy(dst, src, bytes);
    return;
  }
  if (dm != sm) {  // as rows of 1 MiB through pinned buffers, the rest directly
    constexpr std::size_t row = std::size_t(1) << 20;
    const std::size_t rows = bytes / row, head = rows * row;
    if (copy_staged(dst, dm, row, rows, src, row, rows, row, rows, 1)) {
      if (bytes > head)
        STRATA_CUDA_CHECK(cudaMemcpy(static_cast<char*>(dst) + head,
                                     static_cast<const char*>(src) + head, bytes - head,
                                     kind_of(dm, sm)));
      return;
    }
  }
  STRATA_CUDA_CHECK(cudaMemcpy(dst, src, bytes, kind_of(dm, sm)));
}

void copy_bytes_async(void* dst, const void* src, Memory memory, std::size_t bytes, void* stream) {
  if (memory == Memory::host) {
    std::memcpy(dst, src, bytes);
    return;
  }
  STRATA_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, static_cast<cudaStream_t>(stream)));
}

void copy_2d(void* dst, Memory dm, std::size_t dpitch, const void* src, Memory sm,
             std::size_t spitch, std::size_t width, std::size_t height) {
  if (dm == Memory::host && sm == Memory::host) {
    for (std::size_t r = 0; r < height; ++r)
      std::memcpy(static_cast<char*>(dst) + r * dpitch,
                  static_cast<const char*>(src) + r * spitch, width);
    return;
  }
  if (dm == Memory::device && sm == Memory::device) {  // a kernel: see copy_3d
    cuda::copy_pitched(dst, dpitch, height, src, spitch, height, width, height, 1);
    return;
  }
  if (copy_staged(dst, dm, dpitch, height, src, spitch, height, width, height, 1)) return;
  STRATA_CUDA_CHECK(cudaMemcpy2D(dst, dpitch, src, spitch, width, height, kind_of(dm, sm)));
}

void copy_3d(void* dst, Memory dm, std::size_t dpitch, std::size_t drows, const void* src, Memory sm,
             std::size_t spitch, std::size_t srows, std::size_t width, std::size_t height, std::size_t depth) {
  if (dm == Memory::host && sm == Memory::host) {
    for (std::size_t z = 0; z < depth; ++z)
      copy_2d(static_cast<char*>(dst) + z * drows * dpitch, dm, dpitch,
              static_cast<const char*>(src) + z * srows * spitch, sm, spitch, width, height);
    return;
  }
  // Device to device, cudaMemcpy3D runs at 0.55 of a flat cudaMemcpy on the H200 (even on
  // dense rows); the row-order kernel at ~0.9 on the padded layout.
  if (dm == Memory::device && sm == Memory::device) {
    cuda::copy_pitched(dst, dpitch, drows, src, spitch, srows, width, height, depth);
    return;
  }
  if (copy_staged(dst, dm, dpitch, drows, src, spitch, srows, width, height, depth)) return;
  cudaMemcpy3DParms p{};
  p.srcPtr = make_cudaPitchedPtr(const_cast<void*>(src), spitch, width, srows);
  p.dstPtr = make_cudaPitchedPtr(dst, dpitch, width, drows);
  p.extent = make_cudaExtent(width, height, depth);
  p.kind = kind_of(dm, sm);
  STRATA_CUDA_CHECK(cudaMemcpy3D(&p));
}

void* stream_create() {
  if (!cuda_available()) return nullptr;
  cudaStream_t s = nullptr;
  STRATA_CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  return s;
}
void stream_destroy(void* s) noexcept {
  if (s) cudaStreamDestroy(static_cast<cudaStream_t>(s));
}
void stream_synchronize(void* s) {
  // Before CUDA has started no GPU work of strata's exists (a CPU run's null stream): asking
  // would start CUDA for nothing.
  if (cuda_started() && cuda_available()) STRATA_CUDA_CHECK(cudaStreamSynchronize(static_cast<cudaStream_t>(s)));
}

void* event_create() {
  if (!cuda_available()) return nullptr;
  cudaEvent_t e = nullptr;
  STRATA_CUDA_CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
  return e;
}
void* event_create_timed() {
  if (!cuda_available()) return nullptr;
  cudaEvent_t e = nullptr;
  STRATA_CUDA_CHECK(cudaEventCreate(&e));
  return e;
}
float event_elapsed_ms(void* from, void* to) {
  if (!from || !to) return 0;
  float ms = 0;
  STRATA_CUDA_CHECK(cudaEventSynchronize(static_cast<cudaEvent_t>(to)));
  STRATA_CUDA_CHECK(cudaEventElapsedTime(&ms, static_cast<cudaEvent_t>(from), static_cast<cudaEvent_t>(to)));
  return ms;
}
void* stream_create_high_priority() {
  if (!cuda_available()) return nullptr;
  int least = 0, greatest = 0;
  STRATA_CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
  cudaStream_t s = nullptr;
  STRATA_CUDA_CHECK(cudaStreamCreateWithPriority(&s, cudaStreamNonBlocking, greatest));
  return s;
}
void event_destroy(void* e) noexcept {
  if (e) cudaEventDestroy(static_cast<cudaEvent_t>(e));
}
void event_record(void* e, void* s) {
  if (e) STRATA_CUDA_CHECK(cudaEventRecord(static_cast<cudaEvent_t>(e), static_cast<cudaStream_t>(s)));
}
void event_record_in_graph(void* e, void* s) {
  if (!e) return;
  const auto stream = static_cast<cudaStream_t>(s);
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  STRATA_CUDA_CHECK(cudaStreamIsCapturing(stream, &status));
  // The external flag is for capture only (invalid outside it).
  STRATA_CUDA_CHECK(cudaEventRecordWithFlags(static_cast<cudaEvent_t>(e), stream,
                                             status == cudaStreamCaptureStatusActive ? cudaEventRecordExternal
                                                                                     : cudaEventRecordDefault));
}
void stream_wait(void* s, void* e) {
  if (e) STRATA_CUDA_CHECK(cudaStreamWaitEvent(static_cast<cudaStream_t>(s), static_cast<cudaEvent_t>(e), 0));
}
void set_device(int index) {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || index < 0 || index >= count)
    throw Error("no CUDA device " + std::to_string(index) + " (" + std::to_string(count) + " visible)");
  STRATA_CUDA_CHECK(cudaSetDevice(index));
}

namespace {
std::thread& early_start() {
  static std::thread thread;
  return thread;
}
}  // namespace

void start_device_early() {
  std::thread& t = early_start();
  if (t.joinable()) return;
  t = std::thread([] {
    if (cudaFree(nullptr) != cudaSuccess) cudaGetLastError();  // the caller's own call reports it
  });
}

void join_device_start() {
  std::thread& t = early_start();
  if (t.joinable()) t.join();
}

void start_device() {
  join_device_start();
  STRATA_CUDA_CHECK(cudaFree(nullptr));
}

void* graph_capture(void* stream, const std::function<void()>& enqueue) {
  const auto s = static_cast<cudaStream_t>(stream);
  require(s != nullptr, "graph capture needs a created stream, not the default stream");
  STRATA_CUDA_CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
  try {
    enqueue();
  } catch (...) {
    cudaGraph_t g = nullptr;
    cudaStreamEndCapture(s, &g);  // leave the stream usable, then report the first error
    if (g) cudaGraphDestroy(g);
    cudaGetLastError();
    throw;
  }
  cudaGraph_t graph = nullptr;
  STRATA_CUDA_CHECK(cudaStreamEndCapture(s, &graph));
  cudaGraphExec_t exec = nullptr;
  const cudaError_t err = cudaGraphInstantiate(&exec, graph, 0);
  cudaGraphDestroy(graph);
  if (err != cudaSuccess) cuda::throw_cuda_error(err, "cudaGraphInstantiate", __FILE__, __LINE__);
  // Its work onto the device now, not at the first launch.
  const cudaError_t up = cudaGraphUpload(exec, s);
  if (up != cudaSuccess) {
    cudaGraphExecDestroy(exec);
    cuda::throw_cuda_error(up, "cudaGraphUpload", __FILE__, __LINE__);
  }
  return exec;
}

void graph_launch(void* graph, void* stream) {
  STRATA_CUDA_CHECK(cudaGraphLaunch(static_cast<cudaGraphExec_t>(graph), static_cast<cudaStream_t>(stream)));
}

void graph_destroy(void* graph) noexcept {
  if (graph) cudaGraphExecDestroy(static_cast<cudaGraphExec_t>(graph));
}

}  // namespace runtime

namespace {
std::atomic<bool> g_probed{false};  // set as the probe begins: runtime::cuda_started
struct Probe {
  int count = 0;
  std::string reason;
};
const Probe& probe() {
  static const Probe p = [] {
    Probe r;
    g_probed = true;
    const cudaError_t err = cudaGetDeviceCount(&r.count);
    if (err != cudaSuccess) {
      r.count = 0;
      r.reason = std::string("no CUDA device: ") + cudaGetErrorString(err);
      cudaGetLastError();  // clear the sticky-free error so later calls start clean
    } else if (r.count == 0) {
      r.reason = "no CUDA device is visible";
    }
    return r;
  }();
  return p;
}
}  // namespace

bool cuda_available() { return probe().count > 0; }
std::string cuda_unavailable_reason() { return cuda_available() ? "" : probe().reason; }

namespace runtime {
bool cuda_started() { return g_probed; }
bool gpu_usable_for_advice() { return cuda_started() ? cuda_available() : gpus_without_cuda() > 0; }
}  // namespace runtime

namespace {
// Device i's properties; its free memory where `with_free` (a context on it).
DeviceInfo device_info(int i, bool with_free) {
  cudaDeviceProp p{};
  STRATA_CUDA_CHECK(cudaGetDeviceProperties(&p, i));
  DeviceInfo d;
  d.index = i;
  d.name = p.name;
  d.cc_major = p.major;
  d.cc_minor = p.minor;
  d.multiprocessors = p.multiProcessorCount;
  d.total_memory = p.totalGlobalMem;
  d.l2_bytes = std::size_t(p.l2CacheSize);
  int clock = 0;
  cudaDeviceGetAttribute(&clock, cudaDevAttrMemoryClockRate, i);
  d.memory_clock_khz = clock;
  cudaDeviceGetAttribute(&d.memory_bus_bits, cudaDevAttrGlobalMemoryBusWidth, i);
  if (with_free) {
    int prev = 0;
    STRATA_CUDA_CHECK(cudaGetDevice(&prev));
    STRATA_CUDA_CHECK(cudaSetDevice(i));
    std::size_t free = 0, total = 0;
    STRATA_CUDA_CHECK(cudaMemGetInfo(&free, &total));
    STRATA_CUDA_CHECK(cudaSetDevice(prev));
    d.free_memory = free;
  }
  return d;
}
}  // namespace

std::vector<DeviceInfo> cuda_devices() {
  std::vector<DeviceInfo> out;
  for (int i = 0; i < probe().count; ++i) out.push_back(device_info(i, true));
  return out;
}

int cuda_device_count() { return probe().count; }

DeviceInfo cuda_current_device() {
  require(cuda_available(), "no GPU: " + cuda_unavailable_reason());
  int i = 0;
  STRATA_CUDA_CHECK(cudaGetDevice(&i));
  return device_info(i, true);
}

void require_device_memory(std::size_t bytes, const std::string& what) {
  require(cuda_available(), what + ": " + cuda_unavailable_reason());
  std::size_t free = 0, total = 0;
  STRATA_CUDA_CHECK(cudaMemGetInfo(&free, &total));
  const std::size_t reserve = std::size_t(256) << 20;  // leave room for the runtime
  if (bytes + reserve > free) {
    int dev = 0;
    cudaGetDevice(&dev);
    cudaDeviceProp p{};
    cudaGetDeviceProperties(&p, dev);
    throw Error(what + " needs " + gib(bytes) + " of device memory but only " + gib(free) +
                " of " + gib(total) + " is free on " + p.name +
                " (256 MiB kept in reserve); use a smaller grid or the CPU (--device cpu)");
  }
}

void device_synchronize() {
  if (runtime::cuda_started() && cuda_available()) STRATA_CUDA_CHECK(cudaDeviceSynchronize());
}

}  // namespace strata

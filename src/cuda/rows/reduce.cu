// Reduction launchers: the Workspace for the grid finish, grid sizing, and the dispatch
// from (operation, precision, alignment) to one instance of kernels::reduce_rows. Host code
// only; the device code is in kernels/reduce.cuh.
#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "cuda/check.hpp"
#include "cuda/kernels/reduce.cuh"
#include "cuda/rows/rows.hpp"
#include "cuda/tuning/rows_policy.hpp"

namespace strata::cuda {

namespace {

constexpr int kBlock = RowPolicy::kBlock;
constexpr int kUnroll = RowPolicy::kUnroll;

int current_device() {
  int d = 0;
  STRATA_CUDA_CHECK(cudaGetDevice(&d));
  return d;
}

int multiprocessors(int device) {
  int sms = 0;
  STRATA_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  return sms;
}

template <class Op, class T, int V>
void launch_v(const RowShape& s, Strided<const T> a, Strided<const T> b, Workspace& ws,
            cudaStream_t stream) {
  static_assert(sizeof(typename Op::Acc) <= kMaxPartialBytes, "partial slot too small");
  const auto kernel = kernels::reduce_rows<Op, T, V, kUnroll, kBlock>;
  const int blocks = grid_blocks(reinterpret_cast<const void*>(kernel), kBlock,
                                 chunk_count(s, std::size_t(kernels::kWarp) * V * kUnroll));
  require(blocks <= ws.max_blocks(), "reduce: grid larger than the workspace");
  kernel<<<blocks, kBlock, 0, stream>>>(s, a, b, ws.scratch());
  STRATA_CUDA_CHECK_LAUNCH();
}

// 16-byte vectors when every operand's rows allow them, scalars otherwise.
template <class Op, class T>
void launch(const RowShape& s, Strided<const T> a, Strided<const T> b, Workspace& ws,
            cudaStream_t stream) {
  constexpr int kVec = 16 / sizeof(T);
  const bool vec = vector_aligned(a.origin, a.pitch, a.plane, sizeof(T)) &&
                   (Op::kInputs == 1 || vector_aligned(b.origin, b.pitch, b.plane, sizeof(T)));
  if (vec)
    launch_v<Op, T, kVec>(s, a, b, ws, stream);
  else
    launch_v<Op, T, 1>(s, a, b, ws, stream);
}

}  // namespace

// ---- Workspace -----------------------------------------------------------------------

Workspace::Workspace()
    : device_(current_device()),
      max_blocks_(multiprocessors(device_) * kMaxBlocksPerSm),
      partials_(std::size_t(max_blocks_) * kMaxPartialBytes),
      ticket_(1),
      out_(1) {  // zeroed, and synchronised with the device before any stream uses them
  STRATA_CUDA_CHECK(cudaMallocHost(reinterpret_cast<void**>(&host_), sizeof(ReduceOut)));
}

Workspace::~Workspace() { cudaFreeHost(host_); }

ReduceOut Workspace::fetch(void* stream) {
  const auto s = static_cast<cudaStream_t>(stream);
  STRATA_CUDA_CHECK(cudaMemcpyAsync(host_, out_.get(), sizeof(ReduceOut), cudaMemcpyDeviceToHost, s));
  STRATA_CUDA_CHECK(cudaStreamSynchronize(s));
  return *host_;
}

Workspace& default_workspace() {
  static std::mutex registry_mutex;
  static std::vector<Workspace*> registry;  // by device index; never freed (see header)
  const int device = current_device();
  std::lock_guard<std::mutex> lock(registry_mutex);
  if (std::size_t(device) >= registry.size()) registry.resize(std::size_t(device) + 1, nullptr);
  if (!registry[std::size_t(device)]) registry[std::size_t(device)] = new Workspace();
  return *registry[std::size_t(device)];
}

// ---- shared launch helpers -------------------------------------------------------------

int grid_blocks(const void* kernel, int block_threads, std::size_t warps_wanted) {
  static std::mutex cache_mutex;
  static std::map<std::pair<const void*, int>, int> resident;  // (kernel, device) -> blocks
  const int device = current_device();
  int capacity = 0;
  {
    std::lock_guard<std::mutex> lock(cache_mutex);
    const auto key = std::make_pair(kernel, device);
    const auto it = resident.find(key);
    if (it != resident.end()) {
      capacity = it->second;
    } else {
      int per_sm = 0;
      STRATA_CUDA_CHECK(
          cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, block_threads, 0));
      capacity = std::clamp(per_sm, 1, kMaxBlocksPerSm) * multiprocessors(device);
      resident.emplace(key, capacity);
    }
  }
  const std::size_t warps_per_block = std::size_t(block_threads) / kernels::kWarp;
  const std::size_t wanted =
      std::max<std::size_t>(1, (warps_wanted + warps_per_block - 1) / warps_per_block);
  return int(std::min<std::size_t>(wanted, std::size_t(capacity)));
}

bool vector_aligned(const void* origin, std::ptrdiff_t pitch, std::ptrdiff_t plane,
                    std::size_t elem_bytes) {
  const auto bytes = [&](std::ptrdiff_t elems) { return std::size_t(elems) * elem_bytes; };
  return reinterpret_cast<std::uintptr_t>(origin) % 16 == 0 && bytes(pitch) % 16 == 0 &&
         bytes(plane) % 16 == 0;
}

// ---- reductions ------------------------------------------------------------------------

template <class T>
void enqueue_reduce(ReduceKind kind, const RowShape& s, Strided<const T> a, Strided<const T> b,
                    Workspace& ws, void* stream) {
  require(ws.device() == current_device(), "reduce: the workspace belongs to another device");
  const auto st = static_cast<cudaStream_t>(stream);
  switch (kind) {
    case ReduceKind::sum: return launch<kernels::SumOp<T>>(s, a, b, ws, st);
    case ReduceKind::dot: return launch<kernels::DotOp<T>>(s, a, b, ws, st);
    case ReduceKind::sum_squares: return launch<kernels::SumSquaresOp<T>>(s, a, b, ws, st);
    case ReduceKind::max_abs: return launch<kernels::MaxAbsOp<T>>(s, a, b, ws, st);
    case ReduceKind::min_max: return launch<kernels::MinMaxOp<T>>(s, a, b, ws, st);
    case ReduceKind::finite: return launch<kernels::FiniteOp<T>>(s, a, b, ws, st);
  }
}

template <class T>
ReduceOut reduce(ReduceKind kind, const RowShape& s, Strided<const T> a, Strided<const T> b,
                 void* stream) {
  Workspace& ws = default_workspace();
  std::lock_guard<std::mutex> lock(ws.mutex());
  enqueue_reduce(kind, s, a, b, ws, stream);
  return ws.fetch(stream);
}

#define STRATA_INSTANTIATE(T)                                                                 \
  template void enqueue_reduce(ReduceKind, const RowShape&, Strided<const T>, Strided<const T>, \
                               Workspace&, void*);                                            \
  template ReduceOut reduce(ReduceKind, const RowShape&, Strided<const T>, Strided<const T>,   \
                            void*);
STRATA_INSTANTIATE(float)
STRATA_INSTANTIATE(double)
#undef STRATA_INSTANTIATE

}  // namespace strata::cuda

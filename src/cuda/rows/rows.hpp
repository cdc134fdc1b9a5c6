// The CUDA backend's own side of the row operations (no CUDA headers): beyond the seam in
// backend/rows.hpp, two levels like CUB: enqueue_* leave the result in a caller-owned
// Workspace on the stream (benchmarks, fused solver steps); the seam's calls lock the
// device's default Workspace, enqueue, fetch the result and synchronise the stream.
#pragma once

#include <cstddef>
#include <mutex>

#include "backend/rows.hpp"  // RowShape, Strided, and the row operations every backend has
#include "base/device_array.hpp"

namespace strata::cuda {

// What a reduction leaves in device memory (plain data, the same bytes on both sides).
struct ReduceOut {
  double value;                     // sum, dot or sum of squares (compensation folded in)
  double lo, hi;                    // min and max; max_abs in hi (exact: T -> double)
  unsigned long long count, first;  // finite check: non-finite count, lowest linear index
  double first_value;               // the value at `first`
};

// The device memory a grid finish uses, passed to kernels by value.
struct GridScratch {
  void* partials;    // one accumulator per block (at most kMaxPartialBytes each)
  unsigned* ticket;  // blocks that have published their partial; 0 between launches
  ReduceOut* out;
};

inline constexpr int kMaxBlocksPerSm = 32;          // sm_90 hardware limit
inline constexpr std::size_t kMaxPartialBytes = 32; // largest accumulator (finite check: 24)

// Scratch for the grid finish on one device: per-block partials, the last-block ticket,
// the result and a pinned host copy of it. Allocated once (a few tens of KiB) and reused.
// A workspace serves one stream at a time: two launches that overlap on different streams
// would share the ticket. mutex() is for callers that share one between host threads.
class Workspace {
public:
  Workspace();  // on the current device
  ~Workspace();
  Workspace(const Workspace&) = delete;
  Workspace& operator=(const Workspace&) = delete;

  GridScratch scratch() const { return {partials_.get(), ticket_.get(), out_.get()}; }
  int device() const { return device_; }
  int max_blocks() const { return max_blocks_; }
  // Copies the result of the last launch on `stream` to the host; synchronises `stream`.
  ReduceOut fetch(void* stream);
  std::mutex& mutex() { return mutex_; }

private:
  int device_ = 0, max_blocks_ = 0;
  DeviceArray<std::byte> partials_;
  DeviceArray<unsigned> ticket_;
  DeviceArray<ReduceOut> out_;
  ReduceOut* host_ = nullptr;  // pinned
  std::mutex mutex_;
};

// The process-wide workspace of the current device: created on first use, never freed
// (freeing at exit would race the CUDA runtime's own teardown).
Workspace& default_workspace();

enum class ReduceKind { sum, dot, sum_squares, max_abs, min_max, finite };

// Enqueues one reduction on `stream`; b is read only by ReduceKind::dot. The shape must
// hold at least one element. The result lands in ws (fetch it, or read scratch().out).
template <class T>
void enqueue_reduce(ReduceKind kind, const RowShape& shape, Strided<const T> a,
                    Strided<const T> b, Workspace& ws, void* stream);
// enqueue_reduce on the default workspace, then fetch: synchronous.
template <class T>
ReduceOut reduce(ReduceKind kind, const RowShape& shape, Strided<const T> a,
                 Strided<const T> b, void* stream);

// Fused update + sum of squares of the stored result, left in ws (ReduceOut::value); the
// seam's axpby_sum_squares and sub_sum_squares return it.
template <class T>
void enqueue_axpby_sum_squares(const RowShape& shape, T a, Strided<const T> x, T b,
                               Strided<T> y, Workspace& ws, void* stream);
template <class T>
void enqueue_sub_sum_squares(const RowShape& shape, Strided<const T> b, Strided<const T> y,
                             Strided<T> r, Workspace& ws, void* stream);

// ---- shared by the launchers (reduce.cu, vector_ops.cu) -------------------------------

// Chunks of `chunk` elements that tile the rows (a chunk never spans two rows).
inline std::size_t chunk_count(const RowShape& s, std::size_t chunk) {
  return (s.nx + chunk - 1) / chunk * s.ny * s.nz;
}
// Blocks for a grid-stride kernel: the device's resident capacity for this kernel
// (occupancy x SMs, cached per kernel and device), but no more than `warps_wanted` warps.
// Depends only on the kernel, the device and warps_wanted, so results stay reproducible.
int grid_blocks(const void* kernel, int block_threads, std::size_t warps_wanted);
// True when every row of the operand starts on a 16-byte boundary (vector loads allowed).
bool vector_aligned(const void* origin, std::ptrdiff_t pitch, std::ptrdiff_t plane,
                    std::size_t elem_bytes);

}  // namespace strata::cuda

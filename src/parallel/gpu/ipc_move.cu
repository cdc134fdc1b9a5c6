// The kernel that moves one CUDA IPC message (ipc_move.hpp).
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <string>

#include "parallel/gpu/ipc_move.hpp"
#include "strata/error.hpp"

namespace strata::dist::transport::ipc {

namespace {

__device__ unsigned load_acquire(const unsigned* p) {
  unsigned v;
  asm volatile("ld.acquire.sys.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}

__device__ void store_release(unsigned* p, unsigned v) {
  asm volatile("st.release.sys.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}

// dst <- src, `bytes` of them, by every thread of the grid: 16-byte vectors with four loads
// in flight a thread where both addresses allow them (a copy so keeps NVLink and DRAM busy
// with few blocks), else 4-byte words, else bytes; the tail after the vectors by bytes.
template <class V>
__device__ std::size_t copy_as(const char* src, char* dst, std::size_t bytes) {
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  const auto* s = reinterpret_cast<const V*>(src);
  auto* d = reinterpret_cast<V*>(dst);
  const std::size_t n = bytes / sizeof(V);
  std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
  for (; i + 3 * stride < n; i += 4 * stride) {
    const V a = s[i], b = s[i + stride], c = s[i + 2 * stride], e = s[i + 3 * stride];
    d[i] = a, d[i + stride] = b, d[i + 2 * stride] = c, d[i + 3 * stride] = e;
  }
  for (; i < n; i += stride) d[i] = s[i];
  return n * sizeof(V);
}

__device__ void copy_piece(const Piece& p) {
  const auto bits =
      reinterpret_cast<std::uintptr_t>(p.src) | reinterpret_cast<std::uintptr_t>(p.dst);
  std::size_t done = 0;
  if (bits % 16 == 0)
    done = copy_as<uint4>(p.src, p.dst, p.bytes);
  else if (bits % 4 == 0)
    done = copy_as<unsigned>(p.src, p.dst, p.bytes);
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  for (std::size_t i = done + blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < p.bytes;
       i += stride)
    p.dst[i] = p.src[i];
}

// The wait alone, by one thread: before a move of many blocks, so that they do not all sit on
// their SMs while the peer's message is on its way (the wave's interior runs beside them).
__global__ void wait_kernel(const unsigned* count, const unsigned* seen, unsigned lag) {
  const unsigned seq = *const_cast<const volatile unsigned*>(count) + 1;
  while (int(load_acquire(seen) - (seq - lag)) < 0) __nanosleep(32);
}

__global__ void move_kernel(Move m) {
  __shared__ unsigned seq;
  if (threadIdx.x == 0) {
    // Every block reads the count before any block's end (the last block to end bumps it).
    seq = *const_cast<volatile unsigned*>(m.count) + 1;
    while (int(load_acquire(m.seen) - (seq - m.lag)) < 0) __nanosleep(32);
  }
  __syncthreads();
  for (int k = 0; k < m.n; ++k) copy_piece(m.piece[k]);
  __syncthreads();
  if (threadIdx.x == 0) {
    __threadfence_system();  // this block's copies, before it counts itself done
    if (atomicAdd(m.blocks_done, 1u) == gridDim.x - 1) {
      *m.blocks_done = 0;
      *m.count = seq;
      __threadfence_system();  // every block's copies, before the peer hears of them
      store_release(m.tell, seq);
    }
  }
}

}  // namespace

void launch_move(const Move& m, std::size_t bytes, void* stream) {
  // One block per 64 KiB, 1 to 64 of them: a few KB in one block (latency), a 4 MB halo over
  // 64 (measured on 2 x H200: 64 blocks moved 4 MiB in 26.8 us a round, 16 in 30.3; 16 MiB
  // 67.6 against 85.5), and never more blocks than can wait at once beside other kernels.
  const unsigned blocks =
      unsigned(std::min<std::size_t>(64, std::max<std::size_t>(1, (bytes + 65535) / 65536)));
  const auto s = static_cast<cudaStream_t>(stream);
  // Small messages (the multigrid's coarse levels: latency) wait in the move's own blocks;
  // large ones in one thread first, which costs a launch (a few us) and leaves the SMs free.
  if (blocks > 4) wait_kernel<<<1, 32, 0, s>>>(m.count, m.seen, m.lag);
  move_kernel<<<blocks, 512, 0, s>>>(m);
  const cudaError_t rc = cudaGetLastError();
  if (rc != cudaSuccess)
    throw Error(std::string("GPU halo exchange (CUDA IPC): launching the copy: ") +
                cudaGetErrorString(rc));
}

}  // namespace strata::dist::transport::ipc

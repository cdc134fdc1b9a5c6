// A tiny CUDA execution emulator for checking kernel index and barrier logic on a CPU:
// one std::thread per CUDA thread of a block, blocks run one after another (so function
// statics are per-block shared memory), __syncthreads / __syncwarp are std::barriers,
// shuffles exchange through a per-warp buffer. Used by lab/dev/emu_check.cpp and by
// tests/emulated (the library's own kernels that a CPU can run so).
#pragma once

#include <atomic>
#include <barrier>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <thread>
#include <vector>

struct uint3 {
  unsigned x = 0, y = 0, z = 0;
};
struct dim3 {
  unsigned x = 1, y = 1, z = 1;
  dim3(unsigned a = 1, unsigned b = 1, unsigned c = 1) : x(a), y(b), z(c) {}
};
inline thread_local uint3 threadIdx, blockIdx;
inline dim3 blockDim, gridDim;

struct int4 {
  int x, y, z, w;
};
struct float4 {
  float x, y, z, w;
};
inline float4 make_float4(float a, float b, float c, float d) { return {a, b, c, d}; }

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __shared__ static
#define __launch_bounds__(...)

namespace emu {
inline std::barrier<>* block_bar = nullptr;
inline std::vector<std::unique_ptr<std::barrier<>>> warp_bars;
inline thread_local unsigned flat_tid = 0;
inline std::vector<unsigned char> shfl_buf;
}  // namespace emu

inline void __syncthreads() { emu::block_bar->arrive_and_wait(); }
inline void __syncwarp(unsigned = 0xffffffffu) { emu::warp_bars[emu::flat_tid / 32]->arrive_and_wait(); }
template <class T>
T __shfl_down_sync(unsigned, T v, int o) {
  const unsigned w = emu::flat_tid / 32, lane = emu::flat_tid % 32;
  T* slots = reinterpret_cast<T*>(&emu::shfl_buf[w * 32 * 8]);
  slots[lane] = v;
  __syncwarp();
  const T r = lane + unsigned(o) < 32 ? slots[lane + o] : v;
  __syncwarp();
  return r;
}
inline void __threadfence() { std::atomic_thread_fence(std::memory_order_seq_cst); }
inline unsigned atomicAdd(unsigned* p, unsigned v) { return std::atomic_ref<unsigned>(*p).fetch_add(v); }
template <class T>
T __ldg(const T* p) { return *p; }
template <class T>
T __ldcg(const T* p) { return *p; }

namespace emu {
template <class Kernel, class... Args>
void launch(dim3 grid, dim3 block, Kernel kernel, Args... args) {
  blockDim = block;
  gridDim = grid;
  const unsigned nt = block.x * block.y * block.z;
  std::barrier<> bar(nt);
  block_bar = &bar;
  warp_bars.clear();
  for (unsigned w = 0; w < (nt + 31) / 32; ++w)
    warp_bars.push_back(std::make_unique<std::barrier<>>(std::min(32u, nt - 32 * w)));
  shfl_buf.assign(((nt + 31) / 32) * 32 * 8, 0);
  std::vector<std::thread> threads;
  for (unsigned t = 0; t < nt; ++t)
    threads.emplace_back([&, t] {
      flat_tid = t;
      threadIdx = {t % block.x, (t / block.x) % block.y, t / (block.x * block.y)};
      for (unsigned z = 0; z < grid.z; ++z)
        for (unsigned y = 0; y < grid.y; ++y)
          for (unsigned x = 0; x < grid.x; ++x) {
            blockIdx = {x, y, z};
            kernel(args...);
            bar.arrive_and_wait();  // the block is done before the next reuses shared memory
          }
    });
  for (auto& th : threads) th.join();
}
}  // namespace emu

// Device code of `strata-lab reduce` (lab/reduce.cu): the seed's reduction ladder (004,
// Shekofteh after Harris, "Optimizing Parallel Reduction in CUDA"), then the Hopper steps.
// Kernels 1-7 are Harris's, one pass = one value per block, with two changes the seed itself
// asks for: loads past n read zero (any n, no padded copy), and the unrolled last warp
// synchronises with __syncwarp (Volta's independent thread scheduling, end of the seed).
#pragma once

#include <cstddef>

namespace strata::lab::reduce_kernels {

inline constexpr unsigned kFullMask = 0xffffffffu;

// x[i] when i < n, else zero: the one guard that lets every kernel take any n.
template <class Acc, class In>
__device__ __forceinline__ Acc at(const In* x, std::size_t i, std::size_t n) {
  return i < n ? Acc(x[i]) : Acc(0);
}

// Harris's unrolled last warp (kernels 5-7) for a block of at least 64 threads, called by
// warp 0 after the shared-memory tree has left 64 partials in s[0..63]. The seed's version
// (no volatile, no barrier) relied on lock-step warps; since Volta each step reads, then
// __syncwarp, then writes, then __syncwarp.
template <class Acc>
__device__ __forceinline__ void last_warp(volatile Acc* s, unsigned tid) {
  Acc v = s[tid];
#pragma unroll
  for (unsigned o = 32; o > 0; o >>= 1) {
    v += s[tid + o];
    __syncwarp();
    s[tid] = v;
    __syncwarp();
  }
}

// ----------------------------------------------------------- 1-3: one element per thread

// 1: interleaved addressing; every (2s)-th thread adds: divergent warps, a modulo per step.
template <int kBlock, class In, class Acc>
__global__ void __launch_bounds__(kBlock) interleaved_divergent(const In* in, Acc* out, std::size_t n) {
  __shared__ Acc s[kBlock];
  const unsigned tid = threadIdx.x;
  s[tid] = at<Acc>(in, blockIdx.x * std::size_t(blockDim.x) + tid, n);
  __syncthreads();
  for (unsigned st = 1; st < blockDim.x; st *= 2) {
    if (tid % (2 * st) == 0) s[tid] += s[tid + st];
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = s[0];
}

// 2: interleaved addressing with a strided index: consecutive threads work, but their
// addresses 2*s*tid fall into the same shared-memory banks.
template <int kBlock, class In, class Acc>
__global__ void __launch_bounds__(kBlock) interleaved_strided(const In* in, Acc* out, std::size_t n) {
  __shared__ Acc s[kBlock];
  const unsigned tid = threadIdx.x;
  s[tid] = at<Acc>(in, blockIdx.x * std::size_t(blockDim.x) + tid, n);
  __syncthreads();
  for (unsigned st = 1; st < blockDim.x; st *= 2) {
    const unsigned index = 2 * st * tid;
    if (index < blockDim.x) s[index] += s[index + st];
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = s[0];
}

// 3: sequential addressing: thread tid adds s[tid + o], o halving; no conflicts, but half
// the threads idle from the first step on.
template <int kBlock, class In, class Acc>
__global__ void __launch_bounds__(kBlock) sequential(const In* in, Acc* out, std::size_t n) {
  __shared__ Acc s[kBlock];
  const unsigned tid = threadIdx.x;
  s[tid] = at<Acc>(in, blockIdx.x * std::size_t(blockDim.x) + tid, n);
  __syncthreads();
  for (unsigned o = blockDim.x / 2; o > 0; o >>= 1) {
    if (tid < o) s[tid] += s[tid + o];
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = s[0];
}

// ----------------------------------------------------------- 4-6: two elements per thread

// 4: first add during load: each thread loads two elements a block apart (half the blocks).
template <int kBlock, class In, class Acc>
__global__ void __launch_bounds__(kBlock) first_add(const In* in, Acc* out, std::size_t n) {
  __shared__ Acc s[kBlock];
  const unsigned tid = threadIdx.x;
  const std::size_t i = blockIdx.x * (2 * std::size_t(blockDim.x)) + tid;
  s[tid] = at<Acc>(in, i, n) + at<Acc>(in, i + blockDim.x, n);
  __syncthreads();
  for (unsigned o = blockDim.x / 2; o > 0; o >>= 1) {
    if (tid < o) s[tid] += s[tid + o];
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = s[0];
}

// 5: 4 with the last warp unrolled: no barrier and no `tid < o` test below 64 partials.
template <int kBlock, class In, class Acc>
__global__ void __launch_bounds__(kBlock) unroll_last_warp(const In* in, Acc* out, std::size_t n) {
  static_assert(kBlock >= 64, "the unrolled last warp reads 64 partials");
  __shared__ Acc s[kBlock];
  const unsigned tid = threadIdx.x;
  const std::size_t i = blockIdx.x * (2 * std::size_t(blockDim.x)) + tid;
  s[tid] = at<Acc>(in, i, n) + at<Acc>(in, i + blockDim.x, n);
  __syncthreads();
  for (unsigned o = blockDim.x / 2; o > 32; o >>= 1) {
    if (tid < o) s[tid] += s[tid + o];
    __syncthreads();
  }
  if (tid < 32) last_warp<Acc>(s, tid);
  if (tid == 0) out[blockIdx.x] = s[0];
}

// The block tree of 6 and 7: every step's bound known at compile time (the block size is
// the template parameter, as in the seed's switch over power-of-two sizes).
template <int kBlock, class Acc>
__device__ __forceinline__ void unrolled_tree(Acc* s, unsigned tid) {
  static_assert(kBlock >= 64 && kBlock <= 1024 && (kBlock & (kBlock - 1)) == 0,
                "a power-of-two block of 64 to 1024 threads");
  if constexpr (kBlock >= 1024) { if (tid < 512) s[tid] += s[tid + 512]; __syncthreads(); }
  if constexpr (kBlock >= 512) { if (tid < 256) s[tid] += s[tid + 256]; __syncthreads(); }
  if constexpr (kBlock >= 256) { if (tid < 128) s[tid] += s[tid + 128]; __syncthreads(); }
  if constexpr (kBlock >= 128) { if (tid < 64) s[tid] += s[tid + 64]; __syncthreads(); }
  if (tid < 32) last_warp<Acc>(s, tid);
}

// 6: complete unrolling; launched with blockDim.x == kBlock.
template <int kBlock, class In, class Acc>
__global__ void __launch_bounds__(kBlock) complete_unroll(const In* in, Acc* out, std::size_t n) {
  __shared__ Acc s[kBlock];
  const unsigned tid = threadIdx.x;
  const std::size_t i = blockIdx.x * (2 * std::size_t(kBlock)) + tid;
  s[tid] = at<Acc>(in, i, n) + at<Acc>(in, i + kBlock, n);
  __syncthreads();
  unrolled_tree<kBlock>(s, tid);
  if (tid == 0) out[blockIdx.x] = s[0];
}

// ------------------------------------------------ 7-8: a fixed grid, many elements per thread

// 7: Harris's "multiple adds per thread" (algorithm cascading; the seed names it and stops):
// a grid-stride loop adds two elements per step into a register, then 6's tree.
template <int kBlock, class In, class Acc>
__global__ void __launch_bounds__(kBlock) multiple_adds(const In* in, Acc* out, std::size_t n) {
  __shared__ Acc s[kBlock];
  const unsigned tid = threadIdx.x;
  const std::size_t grid_size = 2 * std::size_t(kBlock) * gridDim.x;
  Acc sum = 0;
  for (std::size_t i = blockIdx.x * (2 * std::size_t(kBlock)) + tid; i < n; i += grid_size)
    sum += at<Acc>(in, i, n) + at<Acc>(in, i + kBlock, n);
  s[tid] = sum;
  __syncthreads();
  unrolled_tree<kBlock>(s, tid);
  if (tid == 0) out[blockIdx.x] = s[0];
}

// The warp and block sums of the second seed (003: warpReduceSum, blockReduceSum): five
// shuffles per warp, one shared slot per warp, five more shuffles in warp 0. Every thread
// of the block calls block_sum; thread 0 gets the block's sum.
template <class Acc>
__device__ __forceinline__ Acc warp_sum(Acc v) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(kFullMask, v, o);
  return v;
}

template <int kBlock, class Acc>
__device__ __forceinline__ Acc block_sum(Acc v) {
  static_assert(kBlock % 32 == 0 && kBlock <= 1024, "whole warps, at most 32 of them");
  __shared__ Acc warp_sums[kBlock / 32];
  const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  v = warp_sum(v);
  if (lane == 0) warp_sums[warp] = v;
  __syncthreads();
  if (warp == 0) v = warp_sum(lane < kBlock / 32 ? warp_sums[lane] : Acc(0));
  return v;
}

// 8: 7 with the shared-memory tree replaced by warp shuffles.
template <int kBlock, class In, class Acc>
__global__ void __launch_bounds__(kBlock) shuffle(const In* in, Acc* out, std::size_t n) {
  const std::size_t grid_size = 2 * std::size_t(kBlock) * gridDim.x;
  Acc sum = 0;
  for (std::size_t i = blockIdx.x * (2 * std::size_t(kBlock)) + threadIdx.x; i < n; i += grid_size)
    sum += at<Acc>(in, i, n) + at<Acc>(in, i + kBlock, n);
  sum = block_sum<kBlock>(sum);
  if (threadIdx.x == 0) out[blockIdx.x] = sum;
}

// --------------------------------------------------------------- 9: the bandwidth kernel

struct GridFinish {
  long long* partials;  // one per block
  unsigned* ticket;     // zero between launches: the last block to arrive resets it
  long long* out;       // the sum
};

__device__ __forceinline__ int lane_sum(int4 v) { return (v.x + v.y) + (v.z + v.w); }

// 9: one launch for any n. 16-byte loads (ld.global.nc), kUnroll of them issued before the
// first add, consecutive threads on consecutive vectors so each load instruction of a warp
// reads 512 contiguous bytes; a grid of (SMs x resident blocks) strides over the array. The
// n % 4 tail is read by the first threads as scalars. Per-thread and per-block sums in Acc
// (int32 when the host has proved a block's sum fits), per-block partials in int64, and
// the last block to take a ticket adds them in block order: deterministic, no second launch.
template <int kBlock, int kUnroll, class Acc>
__global__ void __launch_bounds__(kBlock) vector_grid(const int* __restrict__ in, std::size_t n, GridFinish f) {
  const int4* in4 = reinterpret_cast<const int4*>(in);
  const std::size_t n4 = n / 4, stride = std::size_t(gridDim.x) * kBlock;
  std::size_t i = blockIdx.x * std::size_t(kBlock) + threadIdx.x;
  Acc sum = 0;
  for (; i + (kUnroll - 1) * stride < n4; i += kUnroll * stride) {
    int4 v[kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) v[u] = __ldg(in4 + i + u * stride);
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) sum += Acc(lane_sum(v[u]));
  }
  for (; i < n4; i += stride) sum += Acc(lane_sum(__ldg(in4 + i)));
  const std::size_t t = 4 * n4 + blockIdx.x * std::size_t(kBlock) + threadIdx.x;
  if (t < n) sum += Acc(in[t]);

  sum = block_sum<kBlock>(sum);
  __shared__ bool last;
  if (threadIdx.x == 0) {
    f.partials[blockIdx.x] = (long long)sum;
    __threadfence();  // the partial is visible device-wide before the ticket counts it
    last = atomicAdd(f.ticket, 1u) == gridDim.x - 1;
  }
  __syncthreads();
  if (!last) return;
  __threadfence();
  long long total = 0;
  for (unsigned b = threadIdx.x; b < gridDim.x; b += kBlock) total += __ldcg(f.partials + b);
  total = block_sum<kBlock>(total);
  if (threadIdx.x == 0) {
    *f.out = total;
    *f.ticket = 0;
  }
}

}  // namespace strata::lab::reduce_kernels

// STRATA_HOST_DEVICE marks the few functions that host loops and CUDA kernels share (index
// maps, generated values), so that both compute them bit for bit alike. The only definition.
#pragma once

#include <cmath>

#if defined(__CUDACC__)
#define STRATA_HOST_DEVICE __host__ __device__
#else
#define STRATA_HOST_DEVICE
#endif

// `#pragma unroll` in shared host/device code: the host compiler does not know it.
#if defined(__CUDA_ARCH__)
#define STRATA_UNROLL _Pragma("unroll")
#else
#define STRATA_UNROLL
#endif

// a * b + c rounded once, the same on the host and the device. Sums like c0*C + c1*F leave
// the CUDA compiler a choice of which product to fuse into the add, and two kernels with
// the same source line may choose differently; code whose bits must agree across kernels
// (stencil_ops.cuh, temporal.cuh) spells its fused multiply-adds with this.
#if defined(__CUDA_ARCH__)
#define STRATA_FMA(a, b, c) fma((a), (b), (c))
#else
#define STRATA_FMA(a, b, c) std::fma((a), (b), (c))
#endif

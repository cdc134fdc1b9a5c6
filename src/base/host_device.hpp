// STRATA_HOST_DEVICE marks the few functions that host loops and CUDA kernels share (index
// maps, generated values), so that both compute them bit for bit alike. The only definition.
#pragma once

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

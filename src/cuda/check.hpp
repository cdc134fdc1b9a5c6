// Every CUDA call and launch goes through STRATA_CUDA_CHECK: a failure becomes a
// strata::Error naming the call, file, line and CUDA's own error string.
#pragma once

#include <cuda_runtime.h>

#include "strata/error.hpp"

namespace strata::cuda {
[[noreturn]] void throw_cuda_error(cudaError_t err, const char* call, const char* file, int line);
}  // namespace strata::cuda

#define STRATA_CUDA_CHECK(call)                                                   \
  do {                                                                            \
    const cudaError_t strata_err_ = (call);                                       \
    if (strata_err_ != cudaSuccess)                                               \
      ::strata::cuda::throw_cuda_error(strata_err_, #call, __FILE__, __LINE__);   \
  } while (0)

// After a <<<>>> launch: configuration errors surface here, execution errors at the
// next synchronising call.
#define STRATA_CUDA_CHECK_LAUNCH() STRATA_CUDA_CHECK(cudaGetLastError())

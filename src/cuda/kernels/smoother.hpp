// The multigrid smoothers' point updates, written once for the single passes (the
// epilogues of multigrid.cuh) and the fused passes of several steps (StepSmooth, which the
// temporal kernel of temporal.cuh runs), so that both give the same bits. Host and device
// code: the host emulation of the temporal kernel runs it too.
#pragma once

#include <cstdint>

#include "base/host_device.hpp"

namespace strata::cuda::kernels {

// u + w (f - s), s = A u: weighted Jacobi (w = omega / diag)
template <class T>
STRATA_HOST_DEVICE T jacobi_point(T s, T u, T f, T w) {
  return STRATA_FMA(w, f - s, u);
}

// u + alpha (u - prev) + beta (f - s), s = A u: one Chebyshev step in three-term form (beta
// already divided by diag)
template <class T>
STRATA_HOST_DEVICE T chebyshev_point(T s, T u, T prev, T f, T alpha, T beta) {
  return STRATA_FMA(beta, f - s, STRATA_FMA(alpha, u - prev, u));
}

// K smoothing steps in one pass: level 1 (the first step) is Jacobi with w[1]; level k >= 2
// is Jacobi with w[k], or, Chebyshev, the three-term step with alpha[k], beta[k] and prev =
// level k - 2 (the iterate before). f shares the output's layout.
template <class T, bool Chebyshev>
struct StepSmooth {
  static constexpr bool point_operands = true;
  static constexpr int kMaxSteps = 4;
  const T* f;
  T w[kMaxSteps + 1], alpha[kMaxSteps + 1], beta[kMaxSteps + 1];
  // f at offset `at` (the kernel loads the first level's a step ahead, the others when used)
  STRATA_HOST_DEVICE T operand(std::int64_t at) const {
#if defined(__CUDA_ARCH__)
    return __ldg(f + at);
#else
    return f[at];
#endif
  }
  template <int k>
  STRATA_HOST_DEVICE T step(T s, T u, T prev, T fv) const {
    if constexpr (Chebyshev && k >= 2)
      return chebyshev_point(s, u, prev, fv, alpha[k], beta[k]);
    else
      return jacobi_point(s, u, fv, w[k]);
  }
};

}  // namespace strata::cuda::kernels

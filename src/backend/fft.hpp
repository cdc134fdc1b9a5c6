// The spectral Poisson solve's seam, declared once in fft_api.inc for strata::cpu
// (src/cpu/fft.cpp: KissFFT; src/cpu/nofft/fft.cpp refuses in a build without it) and
// strata::cuda (src/cuda/poisson/fft.cu: cuFFT), each taking its backend's tag first
// (backend/tag.hpp). src/dispatch/fft.cpp checks the fields and reaches the backend through
// on_backend (dispatch/backend.hpp). The mathematics both backends evaluate, the operator's
// symbol, is written once in fft_symbol.hpp.
#pragma once

#include <string>

#include "strata/device.hpp"
#include "strata/field.hpp"

namespace strata {

// The refusal of the fft solver on the CPU in a build without the CPU's FFT (KissFFT),
// naming the package: said before any work by the solver's option checks
// (solvers/poisson/solve.cpp, the CLI's check_poisson_options) and by src/cpu/nofft where a
// solve reaches the backend anyway.
inline std::string cpu_fft_refusal() {
  return "the fft solver cannot solve on the CPU: " + cpu_fft_unavailable_reason();
}

}  // namespace strata

#define STRATA_SEAM_LIST "backend/fft_api.inc"
#include "backend/each_backend.inc"

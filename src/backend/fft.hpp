// The spectral Poisson solve's seam, declared once in fft_api.inc for strata::cpu
// (src/cpu/fft.cpp: KissFFT; src/cpu/nofft/fft.cpp refuses in a build without it) and
// strata::cuda (src/cuda/fft.cu: cuFFT; src/nocuda/fft.cpp refuses in a build without CUDA).
// src/dispatch/fft.cpp checks the fields and picks the backend. The mathematics both
// backends evaluate, the operator's symbol, is written once in fft_symbol.hpp.
#pragma once

#include "strata/field.hpp"

namespace strata {

namespace cpu {
#include "backend/fft_api.inc"
}  // namespace cpu

namespace cuda {
#include "backend/fft_api.inc"
}  // namespace cuda

}  // namespace strata

// Tests of what a machine or a build may lack compile everywhere and skip, saying why: GPU
// tests where no GPU is visible, the CPU's FFT (KissFFT) in a build without it.
#pragma once

#include <gtest/gtest.h>

#include "strata/device.hpp"

#define REQUIRE_GPU() \
  if (!::strata::cuda_available()) GTEST_SKIP() << "no GPU: " << ::strata::cuda_unavailable_reason()

#define REQUIRE_CPU_FFT() \
  if (!::strata::build_info().cpu_fft) GTEST_SKIP() << ::strata::cpu_fft_unavailable_reason()

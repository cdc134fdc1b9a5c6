// GPU tests compile everywhere and skip, saying why, where no GPU is visible.
#pragma once

#include <gtest/gtest.h>

#include "strata/device.hpp"

#define REQUIRE_GPU() \
  if (!::strata::cuda_available()) GTEST_SKIP() << "no GPU: " << ::strata::cuda_unavailable_reason()

// The GPU tests' share of a multi-GPU host, end to end: under tools/test.sh on a machine with
// GPUs, CTest gives each GPU test one of them and the test process sees that one alone
// (common/ctest_gpus.cpp, linked into this executable). Skipped where CTest gave nothing.
#include <cstdlib>
#include <string>

#include <gtest/gtest.h>

#include "strata/device.hpp"

namespace {

TEST(CtestGpusCuda, TheTestSeesTheGpuCtestGaveIt) {
  const char* groups = std::getenv("CTEST_RESOURCE_GROUP_COUNT");
  if (!groups || std::string(groups) == "0")
    GTEST_SKIP() << "CTest allocated no GPU to this test (tools/test.sh does where it sees GPUs)";
  const char* applied = std::getenv("STRATA_TEST_CTEST_GPUS");
  ASSERT_NE(applied, nullptr)
      << "CTest allocated resources but the test process did not take a GPU";
  const char* visible = std::getenv("CUDA_VISIBLE_DEVICES");
  ASSERT_NE(visible, nullptr);
  EXPECT_EQ(std::string(visible), std::string(applied));
  int entries = 1;
  for (const char* c = applied; *c; ++c) entries += *c == ',';
  if (strata::cuda_available()) {
    EXPECT_EQ(strata::cuda_device_count(), entries);
  }
}

}  // namespace

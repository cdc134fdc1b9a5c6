// The GPU tests' share of a multi-GPU host (common/ctest_gpus.hpp): what CTest's resource
// allocation says becomes CUDA_VISIBLE_DEVICES, for every form the allocation takes.
#include <cstdlib>
#include <map>
#include <stdexcept>
#include <string>

#include <gtest/gtest.h>

#include "common/ctest_gpus.hpp"

namespace {

using Env = std::map<std::string, std::string>;

std::optional<std::string> visible(const Env& env) {
  return strata::test::ctest_visible_devices([&](const std::string& name) -> const char* {
    const auto it = env.find(name);
    return it == env.end() ? nullptr : it->second.c_str();
  });
}

TEST(CtestGpus, NothingGivenChangesNothing) {
  EXPECT_EQ(visible({}), std::nullopt);
  EXPECT_EQ(visible({{"CUDA_VISIBLE_DEVICES", "3"}}), std::nullopt);
  // A group of another resource only.
  EXPECT_EQ(visible({{"CTEST_RESOURCE_GROUP_COUNT", "1"},
                     {"CTEST_RESOURCE_GROUP_0", "licences"},
                     {"CTEST_RESOURCE_GROUP_0_LICENCES", "id:0,slots:1"}}),
            std::nullopt);
}

TEST(CtestGpus, TheGivenGpuIsTheOneSeen) {
  EXPECT_EQ(visible({{"CTEST_RESOURCE_GROUP_COUNT", "1"},
                     {"CTEST_RESOURCE_GROUP_0", "gpus"},
                     {"CTEST_RESOURCE_GROUP_0_GPUS", "id:2,slots:1"}}),
            "2");
}

TEST(CtestGpus, SeveralGroupsGiveEachGpuOnceInOrder) {
  EXPECT_EQ(visible({{"CTEST_RESOURCE_GROUP_COUNT", "3"},
                     {"CTEST_RESOURCE_GROUP_0", "gpus"},
                     {"CTEST_RESOURCE_GROUP_0_GPUS", "id:3,slots:1"},
                     {"CTEST_RESOURCE_GROUP_1", "gpus"},
                     {"CTEST_RESOURCE_GROUP_1_GPUS", "id:1,slots:2;id:3,slots:1"},
                     {"CTEST_RESOURCE_GROUP_2", "gpus"},
                     {"CTEST_RESOURCE_GROUP_2_GPUS", "id:0,slots:1"}}),
            "3,1,0");
}

TEST(CtestGpus, AnIdIndexesTheListAlreadyVisible) {
  // tools/test.sh counted the GPUs CUDA_VISIBLE_DEVICES left: id 1 is that list's second.
  EXPECT_EQ(visible({{"CUDA_VISIBLE_DEVICES", "5, 7"},
                     {"CTEST_RESOURCE_GROUP_COUNT", "1"},
                     {"CTEST_RESOURCE_GROUP_0", "gpus"},
                     {"CTEST_RESOURCE_GROUP_0_GPUS", "id:1,slots:1"}}),
            "7");
  EXPECT_EQ(visible({{"CUDA_VISIBLE_DEVICES", "GPU-aa,GPU-bb"},
                     {"CTEST_RESOURCE_GROUP_COUNT", "1"},
                     {"CTEST_RESOURCE_GROUP_0", "gpus"},
                     {"CTEST_RESOURCE_GROUP_0_GPUS", "id:0,slots:1"}}),
            "GPU-aa");
}

TEST(CtestGpus, AnAllocationItCannotReadIsRefusedNotGuessed) {
  const Env base{{"CTEST_RESOURCE_GROUP_COUNT", "1"}, {"CTEST_RESOURCE_GROUP_0", "gpus"}};
  auto with = [&](const std::string& k, const std::string& v) {
    Env e = base;
    e[k] = v;
    return e;
  };
  EXPECT_THROW(visible(with("CTEST_RESOURCE_GROUP_0_GPUS", "slots:1")), std::runtime_error);
  EXPECT_THROW(visible(with("CTEST_RESOURCE_GROUP_0_GPUS", "id:x,slots:1")), std::runtime_error);
  EXPECT_THROW(visible(with("CTEST_RESOURCE_GROUP_COUNT", "one")), std::runtime_error);
  Env beyond = with("CTEST_RESOURCE_GROUP_0_GPUS", "id:2,slots:1");
  beyond["CUDA_VISIBLE_DEVICES"] = "0,1";
  EXPECT_THROW(visible(beyond), std::runtime_error);
}

// Every entry of the tests' ENVIRONMENT reaches the test (tests/CMakeLists.txt): given as a
// property of gtest_discover_tests, the list once kept its first entry alone.
TEST(CtestEnvironment, EveryEntryReachesTheTest) {
  if (!std::getenv("STRATA_TEST_CTEST")) GTEST_SKIP() << "not run by CTest";
  EXPECT_NE(std::getenv("OMP_NUM_THREADS"), nullptr);
  const char* cache = std::getenv("STRATA_TUNE_CACHE");
  ASSERT_NE(cache, nullptr) << "the build's tuning cache did not reach the test";
  EXPECT_NE(std::string(cache).find("tuning-cache.json"), std::string::npos) << cache;
}

}  // namespace

// The memory experiments of strata-lab (coalescing, coefficients, streams): their reports'
// shape, and every variant at sizes the defaults never hit (tiny, odd, one point, partial
// tiles and chunks), each checked against its host reference.
#include <gtest/gtest.h>

#include <string>

#include "common/require_gpu.hpp"
#include "lab/lab.hpp"

namespace strata::lab {
namespace {

Options tiny(std::vector<std::int64_t> sizes) {
  Options opt;
  opt.sizes = std::move(sizes);
  opt.reps = 2;
  opt.warmup = 1;
  opt.quiet = true;
  return opt;
}

void expect_all_validated(const Report& r) {
  for (const std::string& f : failures(r)) ADD_FAILURE() << r.experiment << ": " << f;
}

TEST(MemoryLab, ExperimentsAreRegistered) {
  for (const char* name : {"coalescing", "coefficients", "streams"}) EXPECT_EQ(find(name).name, name);
}

// 40 words: 10 float4 elements, 5 of them strided (one partial block); 65539: odd.
TEST(MemoryLab, CoalescingEveryOffsetAndStrideOfEveryWidth) {
  REQUIRE_GPU();
  const Report r = find("coalescing").run(tiny({40, (1 << 16) + 3}));
  expect_all_validated(r);
  ASSERT_EQ(r.rows.size(), 2u * 3u * (33u + 32u));
  EXPECT_EQ(r.rows[0].variant, "offset 0");
  EXPECT_EQ(r.rows[1].extra["sectors/warp"], "5 of 4");  // float, offset 1: one sector more
  EXPECT_EQ(r.rows[33 + 31].extra["sectors/warp"], "32 of 4");  // float, stride 32
  EXPECT_EQ(r.plot.series.size(), 12u);
  ASSERT_TRUE(r.extra.contains("plot_panels"));
  EXPECT_EQ(r.extra["plot_panels"].size(), 2u);
}

// One point, a cube smaller than the radius, and partial tiles in x, y and z chunks.
TEST(MemoryLab, CoefficientsEveryPlaceAtOddShapes) {
  REQUIRE_GPU();
  const Report r = find("coefficients").run(tiny({1, 3, 70}));
  expect_all_validated(r);
  ASSERT_EQ(r.rows.size(), 15u);
  for (std::size_t i = 0; i < r.rows.size(); ++i) {
    EXPECT_EQ(r.rows[i].variant.substr(0, 1), std::to_string(i % 5 + 1));
    EXPECT_TRUE(r.rows[i].extra.contains("cumulative")) << r.rows[i].variant;
  }
}

// Word counts that 3 and 6 streams do not divide.
TEST(MemoryLab, StreamsPinnedAndPageableAtEveryStreamCount) {
  REQUIRE_GPU();
  const Report r = find("streams").run(tiny({4096 + 12}));
  expect_all_validated(r);
  ASSERT_EQ(r.rows.size(), 12u);
  for (const Row& row : r.rows) {
    EXPECT_GT(row.value, 0) << row.variant;
    EXPECT_GT(row.ratio, 0) << row.variant;
  }
  ASSERT_TRUE(r.extra.contains("stages"));
  EXPECT_GT(r.extra["stages"][0]["kernel_iterations"].get<int>(), 0);
}

}  // namespace
}  // namespace strata::lab

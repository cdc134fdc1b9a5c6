// strata-lab stencil (lab/stencil.cu): registered on every build; on a GPU, --size cubes
// that are not multiples of the 32x6 tile or of a z chunk pass every variant, and the report
// has the shape the table, JSON and plot read (references first, the six steps in order).
#include <gtest/gtest.h>

#include <string>

#include "common/require_gpu.hpp"
#include "lab/lab.hpp"

namespace strata::lab {
namespace {

TEST(LabStencil, IsRegistered) {
  const Experiment& e = find("stencil");
  EXPECT_FALSE(e.summary.empty());
  EXPECT_NE(e.run, nullptr);
}

TEST(LabStencil, CubesWithPartialTilesPassEveryVariant) {
  REQUIRE_GPU();
  Options opt;
  opt.sizes = {7, 40};  // 7: one partial tile on every axis; 40: 32+8 in x, 6*6+4 in y
  opt.reps = 2;
  opt.warmup = 1;
  opt.quiet = true;
  const Report r = find("stencil").run(opt);
  ASSERT_EQ(r.rows.size(), 2u * 8u);
  for (const std::string& f : failures(r)) ADD_FAILURE() << f;
  for (std::size_t s = 0; s < 2; ++s) {
    const Row* rows = &r.rows[8 * s];
    EXPECT_EQ(rows[0].variant.rfind("strata copy", 0), 0u) << rows[0].variant;
    EXPECT_EQ(rows[1].variant, "cudaMemcpy");
    EXPECT_DOUBLE_EQ(rows[0].ratio, 1.0);
    for (int v = 0; v < 6; ++v) {
      EXPECT_EQ(rows[2 + v].variant.rfind(std::to_string(v + 1) + " ", 0), 0u)
          << rows[2 + v].variant;
      EXPECT_GT(rows[2 + v].value, 0) << rows[2 + v].variant;
      EXPECT_TRUE(rows[2 + v].extra.contains("step")) << rows[2 + v].variant;
    }
  }
  ASSERT_EQ(r.plot.series.size(), 2u);
  EXPECT_EQ(r.plot.series[0]["x"].size(), 6u);
  EXPECT_EQ(r.plot.references.size(), 3u);  // copy once, cudaMemcpy per size
}

}  // namespace
}  // namespace strata::lab

// strata-lab matmul beyond the generic test: tiny and odd edges (1, 7, 33, 129, 255: single
// partial tiles, pitched rows) must validate for every variant, rows come in ladder order
// with cuBLAS last at ratio 1, and no variant spills registers.
#include <gtest/gtest.h>

#include "common/require_gpu.hpp"
#include "lab/lab.hpp"
#include "strata/error.hpp"

namespace strata::lab {
namespace {

TEST(LabMatmul, IsRegistered) {
  const Experiment& e = find("matmul");
  EXPECT_NE(e.summary.find("cuBLAS"), std::string::npos) << e.summary;
#if !STRATA_HAVE_CUDA
  EXPECT_THROW(e.run(Options{}), Error);
#endif
}

TEST(LabMatmul, OddAndTinySizesValidateEveryVariant) {
  REQUIRE_GPU();
  Options opt;
  opt.sizes = {1, 7, 33, 129, 255};
  opt.reps = 1;
  opt.warmup = 0;
  opt.quiet = true;
  const Report r = find("matmul").run(opt);
  ASSERT_EQ(r.rows.size() % opt.sizes.size(), 0u);
  const std::size_t per_size = r.rows.size() / opt.sizes.size();
  ASSERT_GE(per_size, 8u);  // seven rungs at least, then cuBLAS
  for (const std::string& f : failures(r)) ADD_FAILURE() << f;
  for (std::size_t s = 0; s < opt.sizes.size(); ++s) {
    const std::size_t first = s * per_size, last = first + per_size - 1;
    EXPECT_EQ(r.rows[first].variant.rfind("1 ", 0), 0u) << r.rows[first].variant;
    EXPECT_EQ(r.rows[last].variant, "cuBLAS SGEMM");
    EXPECT_DOUBLE_EQ(r.rows[last].ratio, 1.0);
    for (std::size_t i = first; i < last; ++i) {
      EXPECT_TRUE(r.rows[i].extra.contains("regs")) << r.rows[i].variant;
      EXPECT_FALSE(r.rows[i].extra.contains("spill B")) << r.rows[i].variant << " spills registers";
      EXPECT_GT(r.rows[i].median_ms, 0) << r.rows[i].variant;
    }
  }
}

}  // namespace
}  // namespace strata::lab

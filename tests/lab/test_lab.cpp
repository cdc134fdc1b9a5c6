// strata-lab's harness (tables, JSON, speedups, the registry) on any machine, and every
// experiment at its test sizes on a GPU: each variant must match its CPU reference.
#include <gtest/gtest.h>

#include <sstream>

#include "common/require_gpu.hpp"
#include "lab/lab.hpp"
#include "strata/error.hpp"

namespace strata::lab {
namespace {

Report synthetic() {
  Report r;
  r.experiment = "demo";
  r.title = "a ladder";
  r.unit = "GB/s";
  r.reference = "cudaMemcpy";
  for (int i = 0; i < 3; ++i) {
    Row row;
    row.variant = std::to_string(i + 1) + " step";
    row.size = "2^22 int32";
    row.median_ms = 8.0 / (1 << i);
    row.value = 100.0 * (1 << i);
    row.ratio = row.value / 1000;
    row.validated = i != 2;
    row.check = i != 2 ? "exact" : "FAILED: 3 sums differ";
    r.rows.push_back(row);
  }
  return r;
}

TEST(LabHarness, SpeedupsAreStepAndCumulativeTimes) {
  Report r = synthetic();
  ladder_speedups(r);
  EXPECT_DOUBLE_EQ(r.rows[0].extra["step"].get<double>(), 1.0);
  EXPECT_DOUBLE_EQ(r.rows[1].extra["step"].get<double>(), 2.0);
  EXPECT_DOUBLE_EQ(r.rows[2].extra["cumulative"].get<double>(), 4.0);
}

TEST(LabHarness, TableJsonAndFailuresNameEveryRow) {
  Report r = synthetic();
  ladder_speedups(r);
  std::ostringstream os;
  print(r, os);
  const std::string t = os.str();
  for (const char* s : {"variant", "/ cudaMemcpy", "1 step", "3 step", "FAILED: 3 sums differ", "cumulative"})
    EXPECT_NE(t.find(s), std::string::npos) << s << " missing from\n" << t;
  const auto j = to_json(r);
  ASSERT_EQ(j["rows"].size(), 3u);
  EXPECT_EQ(j["rows"][1]["step"].get<double>(), 2.0);
  EXPECT_FALSE(j["rows"][2]["validated"].get<bool>());
  EXPECT_EQ(j["plot"]["ylabel"], "GB/s");
  const auto bars = bar_series(r, "H100");
  EXPECT_EQ(bars["y"][2].get<double>(), 0.0);  // a failed variant is never drawn as a result
  const auto f = failures(r);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_NE(f[0].find("3 step"), std::string::npos);
}

TEST(LabHarness, UnknownExperimentNamesTheChoices) {
  try {
    find("no-such-experiment");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("no experiment 'no-such-experiment'"), std::string::npos) << e.what();
  }
}

// Every registered experiment at its test sizes: every variant ran and matched.
TEST(LabExperiments, EveryVariantMatchesItsReference) {
  REQUIRE_GPU();
  Options opt;
  opt.small = true;
  opt.reps = 2;
  opt.warmup = 1;
  opt.quiet = true;
  for (const Experiment& e : experiments()) {
    const Report r = e.run(opt);
    EXPECT_FALSE(r.rows.empty()) << e.name;
    for (const std::string& f : failures(r)) ADD_FAILURE() << e.name << ": " << f;
    for (const Row& row : r.rows)
      EXPECT_GT(row.median_ms, 0) << e.name << " " << row.variant;
  }
}

}  // namespace
}  // namespace strata::lab

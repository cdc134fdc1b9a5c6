// The drivers' own words: a step's update from its text (the CLI's --update, strata.run's
// update=) and from a word and a factor (strata.steps), one rule for both.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>
#include <random>
#include <string>

#include "drivers/apply.hpp"
#include "strata/error.hpp"

namespace {

using namespace strata;

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(DriversUpdate, TextRoundTripsEveryFactorBitForBit) {
  std::mt19937_64 rng(20261127);
  std::uniform_real_distribution<double> mant(-1, 1);
  std::uniform_int_distribution<int> expo(-300, 300);
  for (int i = 0; i < 2000; ++i) {
    const double c = std::ldexp(mant(rng), expo(rng));
    char text[64];
    std::snprintf(text, sizeof text, "relax:%.17g", c);
    const StepOptions o = drivers::parse_update(text);
    EXPECT_EQ(o.update, StepUpdate::relax);
    EXPECT_EQ(o.c, c) << text;
    const StepOptions w = drivers::step_update("relax", c, "update");
    EXPECT_EQ(w.update, o.update);
    EXPECT_EQ(w.c, o.c);
  }
  EXPECT_EQ(drivers::parse_update("repeat").update, StepUpdate::repeat);
  EXPECT_EQ(drivers::describe(drivers::parse_update("repeat")), "u <- A u");
  EXPECT_EQ(drivers::describe(drivers::parse_update("relax:0.25")), "u <- u + 0.25 (A u)");
}

TEST(DriversUpdate, BadTextIsRefusedNamingTheOptionAndWhatIsAllowed) {
  for (const char* bad :
       {"relax:", "relax:x", "relax:1,2", "relax:nan", "relax:inf", "relax: ", "relax:1e999"})
    EXPECT_NE(error_of([&] {
                drivers::parse_update(bad, "--update");
              }).find("--update '" + std::string(bad) + "'"),
              std::string::npos)
        << bad;
  for (const char* bad : {"", "relax", "Repeat", "jacobi", "relax;0.1"}) {
    const std::string m = error_of([&] { drivers::parse_update(bad, "update"); });
    EXPECT_NE(m.find("allowed repeat"), std::string::npos) << bad << ": " << m;
  }
  EXPECT_NE(error_of([] {
              drivers::step_update("relax", std::numeric_limits<double>::quiet_NaN(),
                                   "strata.steps");
            }).find("finite"),
            std::string::npos);
}

}  // namespace

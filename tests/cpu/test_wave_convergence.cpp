// Spatial convergence of the wave scheme on the CPU: a standing wave in a periodic box,
// measured against the same leapfrog recurrence with the exact eigenvalue, so the error is
// the spatial one alone; it must fall as h^order (observed order within 0.35 of nominal).
#include <gtest/gtest.h>

#include <cmath>

#include "common/wave_cases.hpp"

using namespace strata;

TEST(WaveConvergence, StandingWaveErrorFallsAsHToTheOrder) {
  struct Case { int order, n0; };
  for (const Case cs : {Case{2, 16}, Case{4, 16}, Case{6, 12}, Case{8, 12}}) {
    const double e1 = test::standing_wave_error(cs.n0, cs.order, Precision::f64, "cpu");
    const double e2 = test::standing_wave_error(2 * cs.n0, cs.order, Precision::f64, "cpu");
    const double observed = std::log2(e1 / e2);
    std::printf("order %d: error %.3e (n=%d), %.3e (n=%d): observed order %.2f\n", cs.order, e1, cs.n0, e2,
                2 * cs.n0, observed);
    EXPECT_NEAR(observed, cs.order, 0.35) << "order " << cs.order;
    EXPECT_LT(e2, 0.05) << "order " << cs.order;
  }
}

// Small problems for the wave adjoint and the imaging solver's tests: a grid that is not a
// multiple of anything, 4-point layers, two sources and three receivers at off-grid points
// (8 taps each), the scheme's Setup resolved as a run resolves it, and a model of 60% to
// 100% of the nominal velocity (1) at every point, so every point's (v dt / h)^2 differs.
#pragma once

#include <array>
#include <random>
#include <vector>

#include "backend/wave.hpp"
#include "common/wave_cases.hpp"
#include "solvers/wave/plan.hpp"

namespace strata::test {

struct AdjointProblem {
  wave::Setup setup;
  double dt_over_h = 0;
  std::vector<double> velocity;  // dense [z][y][x]
  Extent n;
};

inline AdjointProblem adjoint_problem(int order, const std::array<wave::FaceKind, 6>& faces,
                                      int steps, Extent n = {19, 17, 23}) {
  wave::Config c = wave_config(n, order, Precision::f64, "cpu");
  c.faces = faces;
  c.pml_width = 4;
  c.sources = {{{7.3, 8.6, 9.2}, 0.08, 1.0, std::nullopt},
               {{12.1, 5.4, 15.7}, 0.06, -2.0, std::nullopt}};
  c.receiver_points = {{4.4, 11.2, 3.3}, {14.9, 9.1, 18.6}, {9.5, 3.7, 12.2}};
  c.steps = steps;
  const std::vector<double> planes(std::size_t(n.nz), 1.0);
  const wave::Resolved r = wave::resolve<double>(c, planes);
  AdjointProblem p{r.setup, r.plan.dt / c.spacing, {}, n};
  p.setup.trace_rows = steps + 1;
  std::mt19937_64 g(17 + order);
  std::uniform_real_distribution<double> v(0.6, 1.0);
  p.velocity.resize(n.points());
  for (double& x : p.velocity) x = v(g);
  return p;
}

}  // namespace strata::test

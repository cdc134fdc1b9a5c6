// The Born operator (solvers/imaging/born.hpp) held against the wave run it linearises (the
// data's change for a small model change falls to it at second order) and against its
// adjoint, the misfit gradient's correlation with the data as residual (the dot-product test
// <B dm, d> = <dm, B^T d>), with CPML and a free surface, in f64 and f32.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

#include "common/imaging_cases.hpp"
#include "solvers/imaging/born.hpp"
#include "solvers/imaging/gradient.hpp"

using namespace strata;
using wave::FaceKind;

namespace {

const std::array<FaceKind, 6> kFaces = {FaceKind::pml, FaceKind::pml,  FaceKind::pml,
                                        FaceKind::pml, FaceKind::free, FaceKind::pml};

imaging::Shot shot_of(const test::AdjointProblem& p, int steps) {
  imaging::Shot shot;
  shot.steps = steps;
  for (int n = 0; n < steps; ++n)
    for (std::size_t j = 0; j < p.setup.sources.size(); ++j)
      shot.wavelets.push_back(std::sin(0.23 * n + 2.0 * j));
  return shot;
}

std::vector<double> normal(std::size_t n, unsigned seed, double scale) {
  std::mt19937_64 g(seed);
  std::normal_distribution<double> d;
  std::vector<double> v(n);
  for (double& x : v) x = scale * d(g);
  return v;
}

template <class T>
double dot_test(int order, int steps) {
  const test::AdjointProblem p = test::adjoint_problem(order, kFaces, steps);
  const imaging::Shot shot = shot_of(p, steps);
  const std::vector<T> v(p.velocity.begin(), p.velocity.end());
  const std::vector<double> dm = normal(p.velocity.size(), 3, 0.1);
  const std::vector<double> d = normal(std::size_t(steps) * p.setup.receivers.size(), 4, 1.0);
  const std::vector<double> bdm = imaging::born<T>(p.setup, Device::cpu, v, p.dt_over_h, shot, dm);
  imaging::Shot adjoint_shot = shot;
  for (double x : d) adjoint_shot.observed.push_back(-x);  // the residual is -observed: d
  const std::vector<double> btd = imaging::misfit_gradient<T>(p.setup, Device::cpu, v, p.dt_over_h,
                                                              adjoint_shot, {.migrate = true})
                                      .gradient;
  double lhs = 0, rhs = 0;
  for (std::size_t i = 0; i < d.size(); ++i) lhs += bdm[i] * d[i];
  for (std::size_t i = 0; i < dm.size(); ++i) rhs += dm[i] * btd[i];
  EXPECT_NE(lhs, 0.0);
  return std::fabs(lhs - rhs) / std::max(std::fabs(lhs), std::fabs(rhs));
}

std::vector<double> data(const test::AdjointProblem& p, const imaging::Shot& shot,
                         const std::vector<double>& m) {
  std::vector<double> v(m.size());
  for (std::size_t i = 0; i < m.size(); ++i) v[i] = 1.0 / std::sqrt(m[i]);
  return imaging::misfit_gradient<double>(p.setup, Device::cpu, v, p.dt_over_h, shot,
                                          {.adjoint = false})
      .predicted;
}

}  // namespace

TEST(ImagingBorn, DotProductTestAgainstTheGradientsCorrelation) {
  for (int order : {4, 8}) {
    const double m64 = dot_test<double>(order, 80), m32 = dot_test<float>(order, 80);
    std::printf("order %d: Born dot-product test, f64 %.2e, f32 %.2e\n", order, m64, m32);
    EXPECT_LT(m64, 1e-12) << order;
    EXPECT_LT(m32, 1e-5) << order;
  }
}

// F(m + e dm) - F(m) - e B dm falls as e^2: B is the derivative of the run itself.
TEST(ImagingBorn, IsTheDerivativeOfTheWaveRun) {
  const int steps = 100;
  const test::AdjointProblem p = test::adjoint_problem(8, kFaces, steps);
  const imaging::Shot shot = shot_of(p, steps);
  std::vector<double> m(p.velocity.size());
  for (std::size_t i = 0; i < m.size(); ++i) m[i] = 1.0 / (p.velocity[i] * p.velocity[i]);
  std::vector<double> dm = normal(m.size(), 9, 1.0);
  for (std::size_t i = 0; i < m.size(); ++i) dm[i] *= 0.2 * m[i];
  const std::vector<double> base = data(p, shot, m);
  const std::vector<double> bdm =
      imaging::born<double>(p.setup, Device::cpu, p.velocity, p.dt_over_h, shot, dm);
  std::vector<double> rem;
  for (int k = 0; k < 4; ++k) {
    const double e = 0.1 / double(1 << k);
    std::vector<double> mk(m);
    for (std::size_t i = 0; i < m.size(); ++i) mk[i] += e * dm[i];
    const std::vector<double> dk = data(p, shot, mk);
    double r = 0, first = 0;
    for (std::size_t i = 0; i < dk.size(); ++i) {
      r += std::pow(dk[i] - base[i] - e * bdm[i], 2);
      first += std::pow(dk[i] - base[i], 2);
    }
    rem.push_back(std::sqrt(r));
    std::printf("e = %.4f: |F(m + e dm) - F(m)| %.3e, less e B dm: %.3e\n", e, std::sqrt(first),
                rem.back());
    EXPECT_LT(rem.back(), 0.1 * std::sqrt(first));
  }
  for (std::size_t k = 1; k < rem.size(); ++k) {
    EXPECT_GT(rem[k - 1] / rem[k], 3.4) << k;  // second order: 4 per halving
    EXPECT_LT(rem[k - 1] / rem[k], 4.6) << k;
  }
}

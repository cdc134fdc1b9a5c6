// Small problems for the wave adjoint and the imaging solver's tests: a grid that is not a
// multiple of anything, 4-point layers, two sources and three receivers at off-grid points
// (8 taps each), the scheme's Setup resolved as a run resolves it, and a model of 60% to
// 100% of the nominal velocity (1) at every point, so every point's (v dt / h)^2 differs.
#pragma once

#include <array>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "backend/wave.hpp"
#include "common/wave_cases.hpp"
#include "solvers/imaging/gradient.hpp"
#include "solvers/wave/plan.hpp"

namespace strata::test {

struct AdjointProblem {
  wave::Setup setup;
  double dt_over_h = 0;
  std::vector<double> velocity;  // dense [z][y][x]
  Extent n;
};

inline AdjointProblem adjoint_problem(int order, const std::array<wave::FaceKind, 6>& faces,
                                      int steps, Extent n = {19, 17, 23}, int pml_width = 4) {
  wave::Config c = wave_config(n, order, Precision::f64, "cpu");
  c.faces = faces;
  c.pml_width = pml_width;
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

// Normal random values, and a random wave state of a setup (every array, named as the
// backends name them) in T: the vectors of the dot-product tests.
inline std::vector<double> random_values(std::size_t n, std::mt19937_64& g) {
  std::normal_distribution<double> d;
  std::vector<double> v(n);
  for (double& x : v) x = d(g);
  return v;
}

template <class T = double>
std::vector<wave::NamedArray<T>> random_state(const wave::Setup& s, std::mt19937_64& g) {
  std::vector<wave::NamedArray<T>> out;
  for (const wave::StateSlot& slot : wave::state_slots(s)) {
    const std::vector<double> v = random_values(wave::state_size(slot, s), g);
    out.push_back({wave::state_name(slot, s), std::vector<T>(v.begin(), v.end())});
  }
  return out;
}

template <class T>
std::vector<wave::NamedArray<T>> narrow(const std::vector<wave::NamedArray<double>>& a) {
  std::vector<wave::NamedArray<T>> out;
  for (const auto& x : a) out.push_back({x.name, std::vector<T>(x.data.begin(), x.data.end())});
  return out;
}

// <a, b> over the arrays of the same name (their sizes must agree).
template <class A, class B>
double state_dot(const std::vector<wave::NamedArray<A>>& a,
                 const std::vector<wave::NamedArray<B>>& b) {
  double s = 0;
  for (const auto& x : a)
    for (const auto& y : b)
      if (x.name == y.name) {
        EXPECT_EQ(x.data.size(), y.data.size()) << x.name;
        for (std::size_t i = 0; i < x.data.size(); ++i) s += double(x.data[i]) * double(y.data[i]);
      }
  return s;
}

// A shot of `steps` steps through p: source j's amplitude at step n is wavelet(n, j), and
// every receiver's observed sample `observed`.
template <class Wavelet>
imaging::Shot make_shot(const AdjointProblem& p, int steps, Wavelet&& wavelet,
                        double observed = 0.0) {
  imaging::Shot shot;
  shot.steps = steps;
  for (int n = 0; n < steps; ++n)
    for (std::size_t j = 0; j < p.setup.sources.size(); ++j) shot.wavelets.push_back(wavelet(n, j));
  shot.observed.assign(std::size_t(steps) * p.setup.receivers.size(), observed);
  return shot;
}

}  // namespace strata::test

// The wave scheme's adjoint (backend/wave_adjoint.hpp) against the forward step it
// transposes: the dot-product test <M x, y> = <x, M^T y> on random states, one step and the
// whole source-to-receiver operator over many steps, with CPML layers, a free surface,
// rigid and periodic faces, every order, in f64 (to 1e-12) and f32 (to 1e-5), as
// Devito's adjoint tests check its operators.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "backend/wave.hpp"
#include "backend/wave_adjoint.hpp"
#include "common/imaging_cases.hpp"

using namespace strata;

namespace {

struct Case {
  const char* name;
  int order;
  std::array<wave::FaceKind, 6> faces;
};

using wave::FaceKind;
const Case kCases[] = {
    {"CPML on five faces, free top, order 8",
     8,
     {FaceKind::pml, FaceKind::pml, FaceKind::pml, FaceKind::pml, FaceKind::free, FaceKind::pml}},
    {"CPML on every face, order 4",
     4,
     {FaceKind::pml, FaceKind::pml, FaceKind::pml, FaceKind::pml, FaceKind::pml, FaceKind::pml}},
    {"periodic x, rigid y, free top and CPML bottom, order 6",
     6,
     {FaceKind::periodic, FaceKind::periodic, FaceKind::rigid, FaceKind::rigid, FaceKind::free,
      FaceKind::pml}},
    {"mirror faces only, order 2",
     2,
     {FaceKind::rigid, FaceKind::free, FaceKind::free, FaceKind::rigid, FaceKind::rigid,
      FaceKind::free}},
};

template <class T>
std::vector<T> as(const std::vector<double>& v) {
  return std::vector<T>(v.begin(), v.end());
}

// |<M x, y> - <x, M^T y>| / max(|<M x, y>|, |<x, M^T y>|) for `steps` steps of M with no
// sources: the state map alone.
template <class T>
double state_map_mismatch(const Case& k, int steps, unsigned seed) {
  test::AdjointProblem p = test::adjoint_problem(k.order, k.faces, steps);
  p.setup.sources.clear();
  std::mt19937_64 g(seed);
  const auto x = test::random_state<T>(p.setup, g);
  const auto y = test::random_state<double>(p.setup, g);
  auto fwd = cpu::make_wave_backend<T>(cpu::Tag{}, p.setup);
  fwd->set_velocity(as<T>(p.velocity), p.dt_over_h);
  fwd->load(x);
  for (int n = 0; n < steps; ++n) fwd->step(n);
  const double lhs = test::state_dot(fwd->save(), y);
  auto adj = cpu::make_wave_adjoint<T>(cpu::Tag{}, p.setup);
  adj->set_velocity(as<T>(p.velocity), p.dt_over_h);
  adj->load(y);
  for (int n = 0; n < steps; ++n) adj->step_back();
  const double rhs = test::state_dot(x, adj->save());
  return std::fabs(lhs - rhs) / std::max(std::fabs(lhs), std::fabs(rhs));
}

// The same for F: the sources' amplitudes at every step -> the receivers' samples after
// every step, from a state at rest (what RTM and the gradient run backward).
template <class T>
double source_to_receiver_mismatch(const Case& k, int steps, unsigned seed) {
  const test::AdjointProblem p = test::adjoint_problem(k.order, k.faces, steps);
  const std::size_t ns = p.setup.sources.size(), nr = p.setup.receivers.size();
  std::mt19937_64 g(seed);
  const std::vector<double> s = test::random_values(std::size_t(steps) * ns, g);
  const std::vector<double> dbar = test::random_values(std::size_t(steps) * nr, g);
  auto fwd = cpu::make_wave_backend<T>(cpu::Tag{}, p.setup);
  fwd->set_velocity(as<T>(p.velocity), p.dt_over_h);
  fwd->set_wavelets(0, steps, s);
  for (int n = 0; n < steps; ++n) {
    fwd->step(n);
    fwd->record(n + 1);  // row n + 1 samples u after step n
  }
  const std::vector<T> d = fwd->traces(steps + 1);
  double lhs = 0;
  for (std::size_t i = 0; i < dbar.size(); ++i) lhs += double(d[nr + i]) * dbar[i];

  auto adj = cpu::make_wave_adjoint<T>(cpu::Tag{}, p.setup);
  adj->set_velocity(as<T>(p.velocity), p.dt_over_h);
  std::vector<double> sbar(s.size()), row(ns);
  for (int n = steps - 1; n >= 0; --n) {
    adj->inject_at_receivers(std::span<const double>(dbar).subspan(std::size_t(n) * nr, nr));
    adj->sample_at_sources(row);
    std::copy(row.begin(), row.end(), sbar.begin() + std::ptrdiff_t(std::size_t(n) * ns));
    adj->step_back();
  }
  double rhs = 0;
  for (std::size_t i = 0; i < s.size(); ++i) rhs += s[i] * sbar[i];
  EXPECT_NE(lhs, 0.0);
  return std::fabs(lhs - rhs) / std::max(std::fabs(lhs), std::fabs(rhs));
}

}  // namespace

TEST(WaveAdjoint, OneStepIsTheTransposeOfTheStepInDouble) {
  for (const Case& k : kCases) {
    const double m = state_map_mismatch<double>(k, 1, 3);
    EXPECT_LT(m, 1e-13) << k.name;
  }
}

TEST(WaveAdjoint, ManyStepsAreTheTransposeInDouble) {
  for (const Case& k : kCases) {
    const double m = state_map_mismatch<double>(k, 25, 5);
    EXPECT_LT(m, 1e-12) << k.name;
  }
}

TEST(WaveAdjoint, SourcesToReceiversDotProductTest) {
  for (const Case& k : kCases) {
    const double m64 = source_to_receiver_mismatch<double>(k, 60, 7);
    const double m32 = source_to_receiver_mismatch<float>(k, 60, 7);
    std::printf("%s: relative mismatch f64 %.2e, f32 %.2e\n", k.name, m64, m32);
    EXPECT_LT(m64, 1e-12) << k.name;
    EXPECT_LT(m32, 1e-5) << k.name;
  }
}

// A wrong transpose must fail the test: the adjoint of a scheme whose one layer constant
// differs (b of the first CPML layer point) is not the transpose, and the test says so.
TEST(WaveAdjoint, TheTestSeesAWrongTranspose) {
  const Case& k = kCases[0];
  test::AdjointProblem p = test::adjoint_problem(k.order, k.faces, 3);
  p.setup.sources.clear();
  wave::Setup wrong = p.setup;
  wrong.pml.at(0).b.at(0) *= 1.01;
  std::mt19937_64 g(11);
  const auto x = test::random_state<double>(p.setup, g);
  const auto y = test::random_state<double>(p.setup, g);
  auto fwd = cpu::make_wave_backend<double>(cpu::Tag{}, p.setup);
  fwd->set_velocity(p.velocity, p.dt_over_h);
  fwd->load(x);
  for (int n = 0; n < 3; ++n) fwd->step(n);
  auto adj = cpu::make_wave_adjoint<double>(cpu::Tag{}, wrong);
  adj->set_velocity(p.velocity, p.dt_over_h);
  adj->load(y);
  for (int n = 0; n < 3; ++n) adj->step_back();
  const double lhs = test::state_dot(fwd->save(), y), rhs = test::state_dot(x, adj->save());
  EXPECT_GT(std::fabs(lhs - rhs) / std::max(std::fabs(lhs), std::fabs(rhs)), 1e-9);
}

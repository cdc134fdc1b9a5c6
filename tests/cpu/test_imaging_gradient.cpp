// The misfit's gradient (solvers/imaging/gradient.hpp) held against the misfit it is the
// gradient of: the Taylor test. Along a direction dm, J(m + e dm) - J(m) falls as e and
// J(m + e dm) - J(m) - e <dJ/dm, dm> as e^2 when the gradient is right; a wrong one (a sign,
// a step out of place, a missing CPML term) leaves the second remainder falling as e.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "backend/wave.hpp"
#include "common/imaging_cases.hpp"
#include "solvers/imaging/checkpointing.hpp"
#include "solvers/imaging/gradient.hpp"
#include "solvers/wave/numerics.hpp"

using namespace strata;
using wave::FaceKind;

namespace {

// CPML on five faces, a free surface on top: the imaging runs' usual box.
constexpr std::array<FaceKind, 6> kCpmlFreeTop = {FaceKind::pml, FaceKind::pml,  FaceKind::pml,
                                                  FaceKind::pml, FaceKind::free, FaceKind::pml};

std::vector<double> velocity_of(const std::vector<double>& m) {
  std::vector<double> v(m.size());
  for (std::size_t i = 0; i < m.size(); ++i) v[i] = 1.0 / std::sqrt(m[i]);
  return v;
}

using test::make_shot;

// The ways a run can go: the forward run alone, every state kept, 4 checkpoints, boundary
// saving; each with the set-up and finish parts it reports (GradientOptions' defaults
// otherwise: the illumination summed).
struct Strategy {
  const char* name;
  imaging::GradientOptions options;
  std::vector<std::string> setup_parts, finish_parts;
};
std::vector<Strategy> strategies() {
  const std::vector<std::string> kept = {"forward_backend", "adjoint_backend", "kept_states"};
  const std::vector<std::string> finish = {"correlation", "illumination", "gradient", "released"};
  std::vector<Strategy> all(4);
  all[0] = {"forward alone", {}, {"forward_backend"}, {"traces", "released"}};
  all[0].options.adjoint = false;
  all[1] = {"every state kept", {}, kept, finish};
  all[2] = {"4 checkpoints", {}, kept, finish};
  all[2].options.checkpoints = 4;
  all[3] = {"boundary saving",
            {},
            {"ring", "forward_backend", "adjoint_backend", "rings"},
            {"correlation", "outside_zeroed", "illumination", "gradient", "released"}};
  all[3].options.boundary_saving = true;
  return all;
}

// A random smooth shot of `steps` through problem p (the time tests' and the illumination's).
imaging::Shot smooth_shot(const test::AdjointProblem& p, int steps) {
  return make_shot(
      p, steps, [](int n, std::size_t j) { return std::sin(0.17 * n + double(j)); }, 0.01);
}

// The sources' Ricker pulses, the second one later.
auto ricker_pulses(const test::AdjointProblem& p) {
  return [&p](int n, std::size_t j) {
    return wave::ricker(n * p.dt_over_h, 0.08, 12.0 + 6.0 * double(j));
  };
}

struct Taylor {
  std::vector<double> first, second;  // |J(m + e dm) - J(m)|, |... - e <g, dm>| per halving of e
};

Taylor taylor(int order, const std::array<FaceKind, 6>& faces, int steps) {
  const test::AdjointProblem p = test::adjoint_problem(order, faces, steps);
  imaging::Shot shot = make_shot(p, steps, ricker_pulses(p));
  // The data of the rough model (60-100% of v = 1 point by point), the start a smooth one.
  shot.observed = imaging::misfit_gradient<double>(p.setup, Device::cpu, p.velocity, p.dt_over_h,
                                                   shot, {.adjoint = false})
                      .predicted;
  std::vector<double> m0(p.velocity.size(), 1.0 / (0.8 * 0.8)), dm(m0.size());
  std::mt19937_64 g(29);
  std::normal_distribution<double> d;
  for (std::size_t i = 0; i < dm.size(); ++i) dm[i] = 0.2 * m0[i] * d(g);
  const imaging::Gradient at =
      imaging::misfit_gradient<double>(p.setup, Device::cpu, velocity_of(m0), p.dt_over_h, shot);
  EXPECT_GT(at.misfit, 0.0);
  double slope = 0;
  for (std::size_t i = 0; i < dm.size(); ++i) slope += at.gradient[i] * dm[i];
  Taylor t;
  for (int k = 0; k < 5; ++k) {
    const double e = 0.1 / double(1 << k);
    std::vector<double> m(m0);
    for (std::size_t i = 0; i < m.size(); ++i) m[i] += e * dm[i];
    const double j = imaging::misfit_gradient<double>(p.setup, Device::cpu, velocity_of(m),
                                                      p.dt_over_h, shot, {.adjoint = false})
                         .misfit;
    t.first.push_back(std::fabs(j - at.misfit));
    t.second.push_back(std::fabs(j - at.misfit - e * slope));
    std::printf("order %d, e = %.5f: |dJ| %.4e, |dJ - e <g, dm>| %.4e\n", order, e, t.first.back(),
                t.second.back());
  }
  return t;
}

void expect_orders(const Taylor& t, const char* what) {
  for (std::size_t k = 1; k < t.first.size(); ++k) {
    const double r1 = t.first[k - 1] / t.first[k], r2 = t.second[k - 1] / t.second[k];
    EXPECT_GT(r1, 1.7) << what << " halving " << k;  // first order: 2
    EXPECT_LT(r1, 2.3) << what << " halving " << k;
    EXPECT_GT(r2, 3.4) << what << " halving " << k;  // second order: 4
    EXPECT_LT(r2, 4.6) << what << " halving " << k;
  }
  EXPECT_LT(t.second.back(), 0.05 * t.first.back()) << what;  // the gradient explains dJ
}

}  // namespace

TEST(ImagingGradient, TaylorTestWithCpmlAndAFreeSurface) {
  const Taylor t = taylor(8, kCpmlFreeTop, 120);
  expect_orders(t, "order 8, CPML on five faces, free top");
}

TEST(ImagingGradient, TaylorTestWithMirrorAndPeriodicFaces) {
  const Taylor t = taylor(4,
                          {FaceKind::periodic, FaceKind::periodic, FaceKind::rigid, FaceKind::rigid,
                           FaceKind::free, FaceKind::pml},
                          120);
  expect_orders(t, "order 4, periodic x, rigid y, free top, CPML bottom");
}

TEST(ImagingGradient, RefusesShotsOfTheWrongSize) {
  const test::AdjointProblem p = test::adjoint_problem(4, kCpmlFreeTop, 10);
  imaging::Shot shot;
  shot.steps = 10;
  shot.wavelets.assign(10 * 2 - 1, 0.0);
  EXPECT_THROW(
      imaging::misfit_gradient<double>(p.setup, Device::cpu, p.velocity, p.dt_over_h, shot), Error);
  shot.wavelets.assign(10 * 2, 0.0);
  shot.observed.assign(5, 0.0);
  EXPECT_THROW(
      imaging::misfit_gradient<double>(p.setup, Device::cpu, p.velocity, p.dt_over_h, shot), Error);
  shot.observed.clear();
  shot.steps = 11;  // more than the setup records
  shot.wavelets.assign(11 * 2, 0.0);
  EXPECT_THROW(
      imaging::misfit_gradient<double>(p.setup, Device::cpu, p.velocity, p.dt_over_h, shot), Error);
}

// The forward states come from a binomial schedule: whatever the number kept, the gradient is
// the same to the bit (a recomputed step is the same step), and the forward steps run are
// the schedule's optimum for the S + 1 states the correlation reverses.
TEST(ImagingGradient, CheckpointingChangesTheWorkNotTheBits) {
  const int steps = 90;
  const test::AdjointProblem p = test::adjoint_problem(8, kCpmlFreeTop, steps);
  const imaging::Shot shot = make_shot(
      p, steps, [](int n, std::size_t j) { return std::sin(0.21 * n + double(j)); }, 0.02);
  const imaging::Gradient all = imaging::misfit_gradient<double>(
      p.setup, Device::cpu, p.velocity, p.dt_over_h, shot, {.memory_budget = 1e12});
  EXPECT_EQ(all.checkpoints, steps);
  EXPECT_EQ(all.forward_steps, steps);  // every state kept: each step runs once
  for (int c : {1, 2, 3, 7, 20}) {
    const imaging::Gradient g = imaging::misfit_gradient<double>(
        p.setup, Device::cpu, p.velocity, p.dt_over_h, shot, {.checkpoints = c});
    EXPECT_EQ(g.checkpoints, c);
    EXPECT_EQ(g.forward_steps, imaging::optimal_forward_steps(steps + 1, c)) << c;
    EXPECT_EQ(g.misfit, all.misfit) << c;
    EXPECT_EQ(g.gradient, all.gradient) << c;
    EXPECT_EQ(g.illumination, all.illumination) << c;
    std::printf("%2d states kept: %lld forward steps (%.2f per step)\n", c, g.forward_steps,
                g.recomputation);
  }
  // A budget that holds 3 states keeps 3; one that holds none is refused with the least.
  const imaging::Gradient three =
      imaging::misfit_gradient<double>(p.setup, Device::cpu, p.velocity, p.dt_over_h, shot,
                                       {.memory_budget = 3.5 * all.checkpoint_bytes});
  EXPECT_EQ(three.checkpoints, 3);
  EXPECT_EQ(three.gradient, all.gradient);
  try {
    imaging::misfit_gradient<double>(p.setup, Device::cpu, p.velocity, p.dt_over_h, shot,
                                     {.memory_budget = 0.5 * all.checkpoint_bytes});
    ADD_FAILURE() << "a budget below one state was not refused";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("holds no checkpoint"), std::string::npos) << e.what();
  }
}

// Where a run's time went: the set-up, the forward steps, the adjoint actions, the kept
// states' copies and the finish are disjoint parts of its seconds, for the forward run alone
// and every strategy (checkpointing stores a state before its first step: the set-up ends
// where the schedule begins); the set-up's parts are the strategy's, in order, within it.
TEST(ImagingGradient, TheTimePartsAreDisjointForEveryStrategy) {
  const int steps = 40;
  const test::AdjointProblem p = test::adjoint_problem(4, kCpmlFreeTop, steps, {31, 26, 27}, 7);
  const imaging::Shot shot = smooth_shot(p, steps);
  for (const Strategy& st : strategies()) {
    const imaging::Gradient g = imaging::misfit_gradient<double>(p.setup, Device::cpu, p.velocity,
                                                                 p.dt_over_h, shot, st.options);
    const double parts = g.setup_seconds + g.forward_seconds + g.adjoint_seconds +
                         g.checkpoint_seconds + g.finish_seconds;
    EXPECT_GT(g.setup_seconds, 0.0) << st.name;
    EXPECT_GT(g.finish_seconds, 0.0) << st.name;
    EXPECT_GT(g.forward_seconds, 0.0) << st.name;
    EXPECT_LE(parts, g.seconds) << st.name;
    // The CPU fuses no correlation: every forward step is timed as one.
    EXPECT_EQ(g.forward_timed_steps, g.forward_steps) << st.name;
    // Named in order, none negative, within the phase they divide.
    using Parts = std::vector<std::pair<std::string, double>>;
    auto check_parts = [&](const Parts& list, const std::vector<std::string>& want, double phase,
                           const char* what) {
      std::vector<std::string> names;
      double sum = 0;
      for (const auto& [name, s] : list) {
        names.push_back(name);
        EXPECT_GE(s, 0.0) << st.name << ": " << what << " " << name;
        sum += s;
      }
      EXPECT_EQ(names, want) << st.name << ": " << what;
      EXPECT_LE(sum, phase) << st.name << ": " << what;
    };
    check_parts(g.setup_parts, st.setup_parts, g.setup_seconds, "set-up");
    check_parts(g.finish_parts, st.finish_parts, g.finish_seconds, "finish");
  }
}

// The illumination is a by-product: without it (GradientOptions::illumination false, what
// `strata gradient` runs without --illumination) the misfit, the gradient and the work are the
// same bits, for every strategy, and the illumination is empty; migrate too (no compensated
// image then: what `strata migrate` runs without --compensated or --illumination).
TEST(ImagingGradient, TheIlluminationLeftOutChangesNothingElse) {
  const int steps = 60;
  const test::AdjointProblem p = test::adjoint_problem(8, kCpmlFreeTop, steps, {30, 26, 28}, 7);
  const imaging::Shot shot = smooth_shot(p, steps);
  for (const Strategy& st : strategies()) {
    if (!st.options.adjoint) continue;  // the forward run alone sums no correlation
    const std::string strategy = st.name;
    const imaging::GradientOptions& with = st.options;
    imaging::GradientOptions without = with;
    without.illumination = false;
    const imaging::Gradient a =
        imaging::misfit_gradient<double>(p.setup, Device::cpu, p.velocity, p.dt_over_h, shot, with);
    const imaging::Gradient b = imaging::misfit_gradient<double>(p.setup, Device::cpu, p.velocity,
                                                                 p.dt_over_h, shot, without);
    EXPECT_EQ(a.illumination.size(), p.n.points()) << strategy;
    EXPECT_TRUE(b.illumination.empty()) << strategy;
    EXPECT_EQ(b.misfit, a.misfit) << strategy;
    EXPECT_EQ(b.gradient, a.gradient) << strategy;
    EXPECT_EQ(b.predicted, a.predicted) << strategy;
    EXPECT_EQ(b.forward_steps, a.forward_steps) << strategy;
  }
  // migrate likewise: without it neither the illumination nor the compensated image, the
  // image the same bits.
  imaging::GradientOptions dark;
  dark.illumination = false;
  const imaging::Image lit =
      imaging::migrate<double>(p.setup, Device::cpu, p.velocity, p.dt_over_h, shot, {});
  const imaging::Image im =
      imaging::migrate<double>(p.setup, Device::cpu, p.velocity, p.dt_over_h, shot, dark);
  EXPECT_EQ(lit.illumination.size(), p.n.points());
  EXPECT_EQ(lit.compensated.size(), p.n.points());
  EXPECT_TRUE(im.illumination.empty());
  EXPECT_TRUE(im.compensated.empty());
  EXPECT_EQ(im.image, lit.image);
}

// Boundary saving: one forward sweep keeping each step's ring just outside the interior, the
// field run backward from the last state. Where it is meant (the interior and its ring) the
// gradient is the checkpointed one to rounding; inside the absorbing layers it is zero. With a
// free surface and rigid faces too (no absorbing layer there: the interior reaches the face).
TEST(ImagingGradient, BoundarySavingMatchesCheckpointingInTheInterior) {
  const std::array<FaceKind, 6> free_top = {FaceKind::pml, FaceKind::pml,  FaceKind::pml,
                                            FaceKind::pml, FaceKind::free, FaceKind::pml};
  const std::array<FaceKind, 6> rigid_sides = {FaceKind::rigid, FaceKind::pml, FaceKind::pml,
                                               FaceKind::rigid, FaceKind::pml, FaceKind::pml};
  // The last on odd sizes: the ring's rows and planes of odd lengths.
  for (const auto& [faces, shape] :
       {std::pair{free_top, Extent{30, 26, 28}}, std::pair{rigid_sides, Extent{30, 26, 28}},
        std::pair{rigid_sides, Extent{31, 23, 27}}}) {
    const int steps = 120;
    // Layers 7 deep, the ring 4 (order 8): the deepest 3 are where the gradient is zero.
    const test::AdjointProblem p = test::adjoint_problem(8, faces, steps, shape, 7);
    const imaging::Shot shot = make_shot(p, steps, ricker_pulses(p));
    const imaging::Gradient exact =
        imaging::misfit_gradient<double>(p.setup, Device::cpu, p.velocity, p.dt_over_h, shot, {});
    const imaging::Gradient b = imaging::misfit_gradient<double>(
        p.setup, Device::cpu, p.velocity, p.dt_over_h, shot, {.boundary_saving = true});
    EXPECT_TRUE(b.boundary_saving);
    EXPECT_EQ(b.misfit, exact.misfit);  // the same forward sweep
    EXPECT_EQ(b.illumination, exact.illumination);
    EXPECT_EQ(b.forward_steps, 2 * steps);
    // The interior less the ring, and the absorbing layers' deep part, from the setup.
    std::array<int, 3> lo{0, 0, 0}, hi{p.n.nx, p.n.ny, p.n.nz};
    for (const wave::PmlFace& f : p.setup.pml) {
      if (f.face % 2 == 0)
        lo[std::size_t(f.axis)] = f.hi[std::size_t(f.axis)];
      else
        hi[std::size_t(f.axis)] = f.lo[std::size_t(f.axis)];
    }
    const int r = p.setup.radius;
    double peak = 0, worst = 0;
    std::size_t zeroed = 0, compared = 0;
    for (int z = 0; z < p.n.nz; ++z)
      for (int y = 0; y < p.n.ny; ++y)
        for (int x = 0; x < p.n.nx; ++x) {
          const std::size_t i =
              (std::size_t(z) * std::size_t(p.n.ny) + std::size_t(y)) * std::size_t(p.n.nx) +
              std::size_t(x);
          const int c[3] = {x, y, z};
          bool near = true;
          for (int a = 0; a < 3; ++a)
            near = near && c[a] >= lo[std::size_t(a)] - r && c[a] < hi[std::size_t(a)] + r;
          if (!near) {
            EXPECT_EQ(b.gradient[i], 0.0);
            ++zeroed;
            continue;
          }
          peak = std::max(peak, std::fabs(exact.gradient[i]));
          worst = std::max(worst, std::fabs(b.gradient[i] - exact.gradient[i]));
          ++compared;
        }
    EXPECT_GT(zeroed, 0u);
    EXPECT_GT(compared, zeroed);
    EXPECT_GT(peak, 0.0);
    EXPECT_LT(worst, 1e-10 * peak) << "worst " << worst << " of " << peak;
    std::printf(
        "boundary saving: %zu points compared, largest difference %.2e of the largest value; "
        "%zu ring values a step (%.3g bytes), against %.3g bytes a kept state\n",
        compared, worst / peak, std::size_t(b.checkpoint_bytes / 8), b.checkpoint_bytes,
        exact.checkpoint_bytes);
  }
}

// Boundary saving's reversed step leaves the absorbing layers (Backend::step_without_layers):
// one step from a random state has the whole step's bits in the interior box and writes
// nothing outside it, psi and zeta left (test::expect_reversed_step_is_the_step_in_the_interior's
// layouts, orders and precisions).
TEST(ImagingGradient, ReversedStepWithoutTheLayersIsTheStepInTheInterior) {
  test::expect_reversed_step_is_the_step_in_the_interior(
      [](auto tag, const wave::Setup& s) {
        return cpu::make_wave_backend<decltype(tag)>(cpu::Tag{}, s);
      },
      [](auto, const wave::Setup&) { return true; });
}

// What that step leaves gives the same bits: the gradient and the image with boundary saving,
// its reversed steps left off the layers (the default) and updating them, f32 and f64, orders
// 2 and 8, CPML on five faces with a free top, on every face, and beside rigid faces.
TEST(ImagingGradient, BoundarySavingLeavesTheLayersWithTheSameBits) {
  const FaceKind P = FaceKind::pml, G = FaceKind::rigid;
  const std::array<FaceKind, 6> every = {P, P, P, P, P, P}, rigid = {G, P, P, G, P, P};
  std::mt19937_64 rng(40);
  auto check = [&](auto tag, int order, const std::array<FaceKind, 6>& faces, int width) {
    const test::AdjointProblem p = test::adjoint_problem(order, faces, 50, {30, 26, 28}, width);
    const std::string what = std::string(sizeof(tag) == 4 ? "f32" : "f64") + " order " +
                             std::to_string(order) + " width " + std::to_string(width) +
                             (faces[4] == FaceKind::free ? " free top" : "") +
                             (faces[0] == G ? " rigid x low" : "");
    test::expect_layers_left_with_the_same_bits<decltype(tag)>(
        p, Device::cpu, false, order == 8 && faces == kCpmlFreeTop, rng, what);
  };
  for (int order : {2, 8})
    for (const auto& faces : {kCpmlFreeTop, every}) {
      check(float{}, order, faces, 7);
      check(double{}, order, faces, 7);
    }
  check(double{}, 8, rigid, 9);
  check(float{}, 8, kCpmlFreeTop, 9);
}

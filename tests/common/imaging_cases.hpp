// Small problems for the wave adjoint and the imaging solver's tests: a grid that is not a
// multiple of anything, 4-point layers, two sources and three receivers at off-grid points
// (8 taps each), the scheme's Setup resolved as a run resolves it, and a model of 60% to
// 100% of the nominal velocity (1) at every point, so every point's (v dt / h)^2 differs; and
// the checks both devices make of boundary saving's reversed step left off the layers.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <random>
#include <set>
#include <span>
#include <string>
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

// A shot of `steps` through p whose observed data are random (a residual everywhere): what the
// bit-for-bit checks of boundary saving's variants run.
inline imaging::Shot noisy_shot(const AdjointProblem& p, int steps, std::mt19937_64& rng) {
  imaging::Shot shot = make_shot(
      p, steps, [](int n, std::size_t j) { return std::sin(0.23 * n) * (1.0 + double(j)); });
  std::normal_distribution<double> noise(0.0, 1e-3);
  for (double& d : shot.observed) d = noise(rng);
  return shot;
}

// Values whose bits differ between a and b (NaNs of one payload compare equal), and of a's
// those not zero: a bit-for-bit comparison that is not of zeros alone.
struct SameBits {
  std::size_t differ = 0, nonzero = 0;
};
inline SameBits compare_bits(std::span<const double> a, std::span<const double> b) {
  EXPECT_EQ(a.size(), b.size());
  SameBits r;
  for (std::size_t i = 0; i < std::min(a.size(), b.size()); ++i) {
    r.differ += std::memcmp(&a[i], &b[i], sizeof(double)) != 0;
    r.nonzero += a[i] != 0.0;
  }
  return r;
}

// Boundary saving's reversed step without the layers (Backend::step_without_layers) against
// the whole step, each on a backend `make(setup)` gives, from one random state (u, u_prev,
// psi, zeta) with the sources injecting: in the interior box (wave::interior_box) the bits
// must be the same; a backend that leaves the layers leaves u_prev's values outside it (but
// at the sources' points) and psi and zeta as they were.
struct LayersLeft {
  std::size_t interior = 0;  // points of the interior box
  std::size_t differ = 0;    // of them, those whose bits are not the whole step's
  std::size_t written = 0;   // points outside it not holding u_prev's value (sources aside)
  std::size_t memory = 0;    // psi and zeta values not as they were
};

template <class T, class Make>
LayersLeft step_without_layers_against_step(const AdjointProblem& p, Make&& make, unsigned seed) {
  std::mt19937_64 g(seed);
  const std::vector<wave::NamedArray<T>> x = random_state<T>(p.setup, g);
  const std::vector<T> v(p.velocity.begin(), p.velocity.end());
  std::vector<double> amps;
  for (std::size_t j = 0; j < p.setup.sources.size(); ++j) amps.push_back(1.5 - double(j));
  auto whole = make(p.setup), left = make(p.setup);
  for (auto* b : {whole.get(), left.get()}) {
    b->set_velocity(v, p.dt_over_h);
    b->set_wavelets(0, 1, amps);
    b->load(x);
  }
  whole->step(0);
  left->step_without_layers(0);
  const std::vector<wave::NamedArray<T>> a = whole->save(), b = left->save();
  std::set<std::size_t> sources;
  const std::size_t nx = std::size_t(p.n.nx), ny = std::size_t(p.n.ny);
  for (const auto& taps : p.setup.sources)
    for (const wave::Tap& t : taps)
      sources.insert((std::size_t(t.z) * ny + std::size_t(t.y)) * nx + std::size_t(t.x));
  const auto box = wave::interior_box(p.setup);
  LayersLeft r;
  EXPECT_EQ(a.size(), x.size());
  EXPECT_EQ(b.size(), x.size());
  for (std::size_t k = 0; k < std::min({a.size(), b.size(), x.size()}); ++k) {
    if (a[k].name == "u_prev") continue;  // the input u, moved
    if (a[k].name != "u") {               // psi and zeta
      for (std::size_t i = 0; i < x[k].data.size(); ++i)
        r.memory += std::memcmp(&b[k].data[i], &x[k].data[i], sizeof(T)) != 0;
      continue;
    }
    const std::vector<T>& before = x[1].data;  // u_prev's buffer is the one written
    EXPECT_EQ(x[1].name, "u_prev");
    for (int z = 0; z < p.n.nz; ++z)
      for (int y = 0; y < p.n.ny; ++y)
        for (int xx = 0; xx < p.n.nx; ++xx) {
          const std::size_t i = (std::size_t(z) * ny + std::size_t(y)) * nx + std::size_t(xx);
          const bool inside = xx >= box[0][0] && xx < box[1][0] && y >= box[0][1] &&
                              y < box[1][1] && z >= box[0][2] && z < box[1][2];
          if (inside) {
            ++r.interior;
            r.differ += std::memcmp(&a[k].data[i], &b[k].data[i], sizeof(T)) != 0;
          } else if (!sources.count(i)) {
            r.written += std::memcmp(&b[k].data[i], &before[i], sizeof(T)) != 0;
          }
        }
  }
  return r;
}

// That check on layouts with layers on every face and on some, an interior a few points
// wide, layers deeper than the GPU's x slabs stage and shallower than the stencil's reach, the
// interior's x start on a 32-byte sector and 1, 2, 3 or 7 points short of the next one, orders
// 2 and 8, f32 and f64: the backends made by make(T{}, setup), and where leaves(T{}, setup)
// says the backend runs the whole step there instead, the interior's bits alone checked.
template <class Make, class Leaves>
void expect_reversed_step_is_the_step_in_the_interior(Make&& make, Leaves&& leaves) {
  using wave::FaceKind;
  const FaceKind P = FaceKind::pml, G = FaceKind::rigid, F = FaceKind::free;
  const LayersLayout layouts[] = {
      {"CPML on five faces, free top", {30, 26, 28}, 7, {P, P, P, P, F, P}},
      {"CPML on every face", {34, 26, 28}, 9, {P, P, P, P, P, P}},
      {"CPML on x only, x slabs too deep to stage", {150, 20, 22}, 70, {P, P, G, G, F, G}},
      {"an interior 4 wide", {24, 25, 28}, 10, {P, P, P, P, P, P}},
      {"an x start on a sector", {40, 26, 28}, 8, {P, P, P, P, F, P}},
      {"layers on the high faces, 2 deep", {30, 26, 24}, 2, {G, P, P, G, G, P}},
  };
  for (const LayersLayout& l : layouts)
    for (int order : {2, 8}) {
      const AdjointProblem p = adjoint_problem(order, l.faces, 1, l.n, l.width);
      auto check = [&](auto tag) {
        using T = decltype(tag);
        const LayersLeft r = step_without_layers_against_step<T>(
            p, [&](const wave::Setup& s) { return make(T{}, s); }, 7 + unsigned(order));
        const std::string what = std::string(l.name) + (sizeof(T) == 4 ? " f32" : " f64") +
                                 " order " + std::to_string(order);
        EXPECT_GT(r.interior, 0u) << what;
        EXPECT_EQ(r.differ, 0u) << what;
        if (leaves(T{}, p.setup)) {
          EXPECT_EQ(r.written, 0u) << what;
          EXPECT_EQ(r.memory, 0u) << what;
        } else {
          EXPECT_GT(r.written, 0u) << what << ": the whole step ran";
        }
      };
      check(float{});
      check(double{});
    }
}

// Boundary saving through p (a noisy shot of its steps) on `device`, its reversed steps left
// off the layers (the default) and updating them (GradientOptions::
// reversed_step_updates_layers), `fused` as GradientOptions::fused_imaging: the gradient, and
// with `image` migrate's image and compensated image, bit for bit and not all zero. Returns
// the default's run.
template <class T>
imaging::Gradient expect_layers_left_with_the_same_bits(const AdjointProblem& p, Device device,
                                                        bool fused, bool image,
                                                        std::mt19937_64& rng,
                                                        const std::string& what) {
  const imaging::Shot shot = noisy_shot(p, p.setup.trace_rows - 1, rng);
  const std::vector<T> v(p.velocity.begin(), p.velocity.end());
  imaging::GradientOptions left{.boundary_saving = true};
  left.fused_imaging = fused;
  imaging::GradientOptions with = left;
  with.reversed_step_updates_layers = true;
  imaging::Gradient a = imaging::misfit_gradient<T>(p.setup, device, v, p.dt_over_h, shot, left);
  const auto b = imaging::misfit_gradient<T>(p.setup, device, v, p.dt_over_h, shot, with);
  EXPECT_EQ(a.fused_imaging, b.fused_imaging) << what;
  const SameBits g = compare_bits(a.gradient, b.gradient);
  EXPECT_EQ(g.differ, 0u) << what;
  EXPECT_GT(g.nonzero, 1000u) << what;  // the interior and its ring are not all zero
  EXPECT_EQ(a.misfit, b.misfit) << what;
  EXPECT_EQ(a.forward_steps, b.forward_steps) << what;
  if (image) {
    const auto c = imaging::migrate<T>(p.setup, device, v, p.dt_over_h, shot, left);
    const auto d = imaging::migrate<T>(p.setup, device, v, p.dt_over_h, shot, with);
    const SameBits i = compare_bits(c.image, d.image);
    EXPECT_EQ(i.differ, 0u) << what << ": the image";
    EXPECT_GT(i.nonzero, 1000u) << what << ": the image";
    EXPECT_EQ(compare_bits(c.compensated, d.compensated).differ, 0u) << what << ": compensated";
  }
  return a;
}

}  // namespace strata::test

// Reverse-time migration (solvers/imaging/gradient.hpp's migrate) of models whose reflectors
// are known: two flat ones and a dipping one, each imaged at its depth within a grid point.
// A 2D section (3 points across y between rigid faces: the mirrors make the sources lines
// along y), absorbing layers on the four other faces, three shots summed, the migration
// model the true one smoothed (kinematics right, no reflector in it).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <vector>

#include "common/wave_cases.hpp"
#include "solvers/imaging/gradient.hpp"
#include "solvers/wave/numerics.hpp"
#include "solvers/wave/plan.hpp"

using namespace strata;
using wave::FaceKind;

namespace {

constexpr int kNx = 120, kNy = 3, kNz = 90, kSourceZ = 12;

// Below depth(x) (points z > depth) the velocity is `below`: the interface the grid holds
// lies half a point above the first point below it, at interface(x).
struct Reflector {
  std::function<double(int)> depth;
  double below;  // the velocity under it
  double interface(int x) const { return std::floor(depth(x)) + 0.5; }
};

std::vector<double> true_model(const std::vector<Reflector>& rs) {
  std::vector<double> v(std::size_t(kNx) * kNy * kNz, 1.0);
  for (int z = 0; z < kNz; ++z)
    for (int y = 0; y < kNy; ++y)
      for (int x = 0; x < kNx; ++x)
        for (const Reflector& r : rs)
          if (z > r.depth(x)) v[(std::size_t(z) * kNy + y) * kNx + x] = r.below;
  return v;
}

// The migration model: the true one averaged over a 13 x 13 window in x, z (no reflector
// left in it, the same velocity to the interfaces' depths on average).
std::vector<double> smooth(const std::vector<double>& v) {
  std::vector<double> out(v.size());
  const int w = 6;
  for (int z = 0; z < kNz; ++z)
    for (int y = 0; y < kNy; ++y)
      for (int x = 0; x < kNx; ++x) {
        double sum = 0;
        int n = 0;
        for (int dz = -w; dz <= w; ++dz)
          for (int dx = -w; dx <= w; ++dx) {
            const int zz = std::clamp(z + dz, 0, kNz - 1), xx = std::clamp(x + dx, 0, kNx - 1);
            sum += v[(std::size_t(zz) * kNy + y) * kNx + xx];
            ++n;
          }
        out[(std::size_t(z) * kNy + y) * kNx + x] = sum / n;
      }
  return out;
}

// The summed, illumination-compensated image of three shots.
std::vector<double> image(const std::vector<Reflector>& rs) {
  const std::vector<double> v = true_model(rs), v0 = smooth(v);
  std::vector<double> sum(v.size(), 0.0);
  for (const double sx : {40.0, 60.0, 80.0}) {
    wave::Config c = test::wave_config({kNx, kNy, kNz}, 8, Precision::f64, "cpu");
    c.faces = {FaceKind::pml,   FaceKind::pml, FaceKind::rigid,
               FaceKind::rigid, FaceKind::pml, FaceKind::pml};
    c.pml_width = 10;
    c.sources = {{{sx, 1.0, double(kSourceZ)}, 0.05, 1.0, std::nullopt}};
    c.receiver_lines = {{{11.0, 1.0, double(kSourceZ)}, {108.0, 1.0, double(kSourceZ)}, 98}};
    c.steps = 0;
    std::vector<double> planes(kNz, 1.0);
    planes.back() = *std::max_element(v.begin(), v.end());  // the plan's dt for the fastest
    const double dt = wave::resolve<double>(c, planes).plan.dt;
    c.steps = int(std::ceil(2.4 * (kNz - kSourceZ) / dt));
    const wave::Resolved r = wave::resolve<double>(c, planes);
    imaging::Shot shot;
    shot.steps = c.steps;
    for (int n = 0; n < c.steps; ++n)
      shot.wavelets.push_back(wave::ricker(n * dt, 0.05, wave::default_delay(0.05)));
    // The recorded data less the direct wave (modelled in the near surface's velocity).
    shot.observed =
        imaging::misfit_gradient<double>(r.setup, Device::cpu, v, dt, shot, {.adjoint = false})
            .predicted;
    const std::vector<double> direct =
        imaging::misfit_gradient<double>(r.setup, Device::cpu, std::vector<double>(v.size(), 1.0),
                                         dt, shot, {.adjoint = false})
            .predicted;
    for (std::size_t i = 0; i < direct.size(); ++i) shot.observed[i] -= direct[i];
    const imaging::Image im = imaging::migrate<double>(r.setup, Device::cpu, v0, dt, shot);
    for (std::size_t i = 0; i < sum.size(); ++i) sum[i] += im.compensated[i];
  }
  return sum;
}

double at(const std::vector<double>& im, int x, int z) {
  return im[(std::size_t(z) * kNy + 1) * kNx + x];
}

// The image is the band-limited model perturbation: a velocity step shows as a lobe of each
// sign on either side of it, and the reflector (the reflectivity, the model's derivative in
// depth) is where the image's vertical derivative peaks. Its depth in column x: the largest
// |d image / dz| (central differences) within 8 points of `near`, refined to a fraction of a
// point by a parabola through the peak and its neighbours.
double reflector_depth(const std::vector<double>& im, int x, double near) {
  auto slope = [&](int z) { return std::fabs(at(im, x, z + 1) - at(im, x, z - 1)); };
  int best = int(near);
  for (int z = int(near) - 8; z <= int(near) + 8; ++z)
    if (slope(z) > slope(best)) best = z;
  const double a = slope(best - 1), b = slope(best), c = slope(best + 1);
  const double den = a - 2 * b + c;
  return best + (den != 0 ? 0.5 * (a - c) / den : 0.0);
}

}  // namespace

TEST(ImagingRtm, TwoFlatReflectorsAtTheirDepths) {
  const std::vector<Reflector> rs = {{[](int) { return 34.5; }, 1.25},
                                     {[](int) { return 59.5; }, 1.5}};
  const std::vector<double> im = image(rs);
  for (const Reflector& r : rs)
    for (int x = 45; x <= 75; x += 5) {
      const double d = reflector_depth(im, x, r.interface(x));
      std::printf("x %d: reflector at %.1f imaged at %.2f\n", x, r.interface(x), d);
      EXPECT_LE(std::fabs(d - r.interface(x)), 1.0) << "x " << x;
    }
}

// A reflector dipping at 15 degrees: imaged at its depth in every column of the well-lit
// middle (the migration moves each reflection to where it was made, not below the receiver).
TEST(ImagingRtm, ADippingReflectorAtItsDepth) {
  const double slope = std::tan(15.0 * 3.14159265358979 / 180.0);
  const std::vector<Reflector> rs = {{[slope](int x) { return 40.0 + slope * (x - 60); }, 1.3}};
  const std::vector<double> im = image(rs);
  for (int x = 45; x <= 75; x += 5) {
    const double d = reflector_depth(im, x, rs[0].interface(x));
    std::printf("x %d: reflector at %.1f imaged at %.2f\n", x, rs[0].interface(x), d);
    EXPECT_LE(std::fabs(d - rs[0].interface(x)), 1.0) << "x " << x;
  }
}

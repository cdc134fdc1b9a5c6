// CPML reflection: traces in a small domain closed by absorbing layers against the same
// source and receivers inside a larger rigid-walled domain whose walls are too far for any
// reflection to return within the window. The difference is what the layers reflected.
#include <gtest/gtest.h>

#include <cmath>

#include "common/wave_cases.hpp"

using namespace strata;

namespace {

constexpr int kInner = 20;  // points between the layers on each axis

std::vector<double> traces(int margin, bool pml, int order, const std::vector<wave::Vec3>& rec_offsets,
                           double dt, int steps) {
  const wave::Config def;
  const int n = kInner + 2 * def.pml_width + 2 * margin;
  wave::Config c = test::wave_config({n, n, n}, order, Precision::f64, "cpu");
  for (auto& f : c.faces) f = pml ? wave::FaceKind::pml : wave::FaceKind::rigid;
  const wave::Vec3 s{n / 2.0 + 0.5, n / 2.0 + 0.5, n / 2.0 + 0.5};
  c.sources = {{s, 0.1, 1.0, std::nullopt}};  // 4 points per wavelength at 2.5 x the peak
  for (const wave::Vec3& o : rec_offsets) c.receiver_points.push_back({s.x + o.x, s.y + o.y, s.z + o.z});
  c.dt = dt;
  c.steps = steps;
  wave::Solver solver(c);
  solver.advance(steps);
  return solver.traces();
}

}  // namespace

// Default layers (16 points, R = 1e-4, power 4). Receivers 6 spacings from the source,
// towards a face, an edge and a corner of the box, and 4 spacings from the layer: the
// reflected wave must stay below 1e-4 of the direct wave's peak (measured 3e-6 .. 1.3e-5
// at orders 4 and 8; energy ratios 1e-11 .. 2e-10).
TEST(WaveCpml, ReflectedAmplitudeIsSmall) {
  const std::vector<wave::Vec3> rec = {{6, 0, 0}, {6, 6, 0}, {6, 6, 6}, {0, 0, -6}};
  const double dt = 0.2, window = 45;  // the direct wave has passed every receiver by 45
  const int steps = int(window / dt);
  for (int order : {4, 8}) {
    const auto a = traces(0, true, order, rec, dt, steps);
    // Walls 8 further out: their echo needs 2 * (26 + 8) - 6 > 45 time units.
    const auto b = traces(8, false, order, rec, dt, steps);
    const std::size_t nr = rec.size();
    for (std::size_t k = 0; k < nr; ++k) {
      double peak = 0, diff = 0, e_ref = 0, e_diff = 0;
      for (int i = 0; i <= steps; ++i) {
        const double ref = b[i * nr + k], d = a[i * nr + k] - ref;
        peak = std::max(peak, std::fabs(ref));
        diff = std::max(diff, std::fabs(d));
        e_ref += ref * ref;
        e_diff += d * d;
      }
      std::printf("order %d receiver %zu: reflected / direct amplitude %.3e, energy %.3e\n", order, k, diff / peak,
                  e_diff / e_ref);
      EXPECT_LT(diff / peak, 1e-4) << "order " << order << " receiver " << k;
    }
  }
}

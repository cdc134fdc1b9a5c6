// Wave-solver test cases shared by the CPU and GPU suites: small configurations in
// normalised units (h = 1, v = 1), the analytic 3D Green's function, and the standing-wave
// convergence measurement, each runnable on either device.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>
#include <numbers>
#include <random>
#include <string>
#include <vector>

#include "solvers/wave/numerics.hpp"
#include "strata/wave.hpp"

namespace strata::test {

// A grid with absorbing layers `width` deep on some of its faces (xmin xmax ymin ymax zmin
// zmax): the layouts that stress the GPU's split into an interior box and a shell around it.
struct LayersLayout {
  const char* name;
  Extent n;
  int width;
  std::array<wave::FaceKind, 6> faces;
};

// A configuration with no outputs to speak of: h = 1, v = 1, every face rigid.
inline wave::Config wave_config(Extent n, int order, Precision p, const std::string& device) {
  wave::Config c;
  c.shape = n;
  c.spacing = 1.0;
  c.velocity = 1.0;
  c.order = order;
  c.precision = p;
  c.device = parse_device(device);  // the tests name it as the configuration does
  for (auto& f : c.faces) f = wave::FaceKind::rigid;
  c.seismogram_png = c.model_png = false;
  return c;
}

// u(r, t) for u_tt = v^2 Lap u + s(t) delta(x): s(t - r / v) / (4 pi v^2 r).
inline double green_ricker(double t, double r, double f, double delay, double v = 1.0) {
  return wave::ricker(t - r / v, f, delay) / (4 * std::numbers::pi * v * v * r);
}

inline double distance(const wave::Vec3& a, const wave::Vec3& b) {
  return std::sqrt((a.x - b.x) * (a.x - b.x) + (a.y - b.y) * (a.y - b.y) + (a.z - b.z) * (a.z - b.z));
}

// Max |trace - analytic| / max |analytic| for every receiver of a run with one source.
inline std::vector<double> green_errors(const wave::Solver& s) {
  const wave::Config& c = s.config();
  const wave::Source& src = c.sources.at(0);
  const double delay = src.delay ? *src.delay : wave::default_delay(src.frequency);
  const std::vector<double> tr = s.traces();
  const auto& rec = s.plan().receivers;
  const std::size_t nr = rec.size();
  std::vector<double> err;
  for (std::size_t k = 0; k < nr; ++k) {
    const double r = distance(rec[k], src.position);
    double e = 0, a = 0;
    for (std::size_t i = 0; i * nr + k < tr.size(); ++i) {
      const double t = double(i * c.receiver_every) * s.plan().dt;
      const double g = green_ricker(t, r, src.frequency, delay, c.velocity) * src.amplitude;
      e = std::max(e, std::fabs(tr[i * nr + k] - g));
      a = std::max(a, std::fabs(g));
    }
    err.push_back(e / a);
  }
  return err;
}

// Standing wave sin(2 pi x) sin(2 pi y) sin(2 pi z) in the periodic unit box, n points per
// axis (cell-centred), v = 1, a fixed dt. The reference is the same leapfrog recurrence with
// the exact eigenvalue |k|^2 of -Lap: u_n = cos(n theta) u_0, cos(theta) = 1 - (dt |k|)^2 / 2,
// started from u_{-1} = cos(theta) u_0. Time stepping is then identical in both, so the
// difference after `steps` steps is the spatial error alone (O(h^order)). Returns
// max |u - u_ref| / max |u_ref|.
inline double standing_wave_error(int n, int order, Precision p, const std::string& device, double dt = 0.004,
                                  int steps = 100) {
  wave::Config c = wave_config({n, n, n}, order, p, device);
  c.spacing = 1.0 / n;
  for (auto& f : c.faces) f = wave::FaceKind::periodic;
  c.dt = dt;
  c.steps = steps;
  const double k = 2 * std::numbers::pi, k2 = 3 * k * k;
  const double theta = std::acos(1 - dt * dt * k2 / 2);
  std::vector<double> u0(std::size_t(n) * n * n), um(u0.size());
  for (int z = 0; z < n; ++z)
    for (int y = 0; y < n; ++y)
      for (int x = 0; x < n; ++x) {
        const double h = 1.0 / n;
        const std::size_t i = (std::size_t(z) * n + y) * n + x;
        u0[i] = std::sin(k * (x + 0.5) * h) * std::sin(k * (y + 0.5) * h) * std::sin(k * (z + 0.5) * h);
        um[i] = std::cos(theta) * u0[i];
      }
  wave::Solver s(c);
  s.set_state(u0, um);
  s.advance(steps);
  const std::vector<double> u = s.wavefield();
  const double ref = std::cos(steps * theta);
  double e = 0, a = 0;
  for (std::size_t i = 0; i < u.size(); ++i) {
    e = std::max(e, std::fabs(u[i] - ref * u0[i]));
    a = std::max(a, std::fabs(ref * u0[i]));
  }
  return e / a;
}

// A fresh, empty temporary directory, removed at scope exit.
struct TempDir {
  std::filesystem::path path;
  explicit TempDir(const std::string& tag) {
    std::random_device rd;
    path = std::filesystem::temp_directory_path() / ("strata-" + tag + "-" + std::to_string(rd()));
    std::filesystem::remove_all(path);
    std::filesystem::create_directories(path);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
  std::string operator/(const std::string& name) const { return (path / name).string(); }
};

}  // namespace strata::test

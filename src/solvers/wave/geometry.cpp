// Receiver expansion and trilinear taps in the cell-centred convention of wave.hpp: grid
// index coordinate c = p / h - 1/2 on each axis; a source's wavelet.
#include "solvers/wave/geometry.hpp"

#include <cmath>
#include <cstdio>

#include "solvers/wave/numerics.hpp"

namespace strata::wave {

namespace {
constexpr double kTol = 1e-9;  // in grid spacings: a point on the hull's edge is inside
}

std::vector<Vec3> expand_receivers(const Config& c) {
  std::vector<Vec3> out = c.receiver_points;
  for (const ReceiverLine& l : c.receiver_lines)
    for (int i = 0; i < l.count; ++i) {
      const double t = l.count == 1 ? 0.0 : double(i) / (l.count - 1);
      out.push_back({l.start.x + t * (l.end.x - l.start.x), l.start.y + t * (l.end.y - l.start.y),
                     l.start.z + t * (l.end.z - l.start.z)});
    }
  const int len[3] = {c.shape.nx, c.shape.ny, c.shape.nz};
  for (const ReceiverPlane& p : c.receiver_planes) {
    const int a1 = p.axis == 0 ? 1 : 0, a2 = p.axis == 2 ? 1 : 2;
    for (int j2 = 0; j2 < len[a2]; j2 += p.stride)
      for (int j1 = 0; j1 < len[a1]; j1 += p.stride) {
        double q[3];
        q[p.axis] = p.position;
        q[a1] = (j1 + 0.5) * c.spacing;
        q[a2] = (j2 + 0.5) * c.spacing;
        out.push_back({q[0], q[1], q[2]});
      }
  }
  return out;
}

bool inside_grid(const Vec3& p, Extent n, double h) {
  const double q[3] = {p.x, p.y, p.z};
  const int len[3] = {n.nx, n.ny, n.nz};
  for (int a = 0; a < 3; ++a) {
    const double c = q[a] / h - 0.5;
    if (!(c >= -kTol && c <= len[a] - 1 + kTol)) return false;
  }
  return true;
}

std::string grid_hull(Extent n, double h) {
  const int len[3] = {n.nx, n.ny, n.nz};
  std::string s;
  for (int a = 0; a < 3; ++a) {
    char b[96];
    std::snprintf(b, sizeof b, "%s%c [%g, %g]", a ? ", " : "", "xyz"[a], 0.5 * h,
                  (len[a] - 0.5) * h);
    s += b;
  }
  return s + " (m)";
}

std::vector<Tap> trilinear_taps(const Vec3& p, Extent n, double h) {
  const double q[3] = {p.x, p.y, p.z};
  const int len[3] = {n.nx, n.ny, n.nz};
  int i0[3];
  double f[3];
  for (int a = 0; a < 3; ++a) {
    const double c = q[a] / h - 0.5;
    if (len[a] == 1) {
      i0[a] = 0, f[a] = 0;
      continue;
    }
    i0[a] = std::min(std::max(int(std::floor(c)), 0), len[a] - 2);
    f[a] = std::min(std::max(c - i0[a], 0.0), 1.0);
  }
  std::vector<Tap> taps;
  for (int dz = 0; dz < 2; ++dz)
    for (int dy = 0; dy < 2; ++dy)
      for (int dx = 0; dx < 2; ++dx) {
        const double w = (dx ? f[0] : 1 - f[0]) * (dy ? f[1] : 1 - f[1]) * (dz ? f[2] : 1 - f[2]);
        if (w != 0) taps.push_back({i0[0] + dx, i0[1] + dy, i0[2] + dz, w});
      }
  return taps;
}

double source_wavelet(const Source& s, double t) {
  return s.amplitude * ricker(t, s.frequency, s.delay ? *s.delay : default_delay(s.frequency));
}

}  // namespace strata::wave

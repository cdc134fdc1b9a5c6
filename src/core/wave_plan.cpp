// Whole-configuration checks and the resolved scheme (see wave_plan.hpp). Order matters
// only for which error a doubly-wrong configuration reports first: geometry, then CFL.
#include "core/wave_plan.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numbers>

#include <nlohmann/json.hpp>

#include "core/cpml.hpp"
#include "core/digest.hpp"
#include "core/wave_geometry.hpp"
#include "core/wave_numerics.hpp"
#include "strata/device.hpp"
#include "strata/stencil.hpp"

namespace strata::wave {

namespace {

std::string num(double v) {
  char b[64];
  std::snprintf(b, sizeof b, "%.6g", v);
  return b;
}

std::string vec(const Vec3& p) { return "[" + num(p.x) + ", " + num(p.y) + ", " + num(p.z) + "]"; }

void check_faces(const Config& c, int R) {
  const int len[3] = {c.shape.nx, c.shape.ny, c.shape.nz};
  for (int a = 0; a < 3; ++a) {
    const FaceKind lo = c.faces[2 * a], hi = c.faces[2 * a + 1];
    if ((lo == FaceKind::periodic) != (hi == FaceKind::periodic))
      throw Error(std::string("boundary.") + kFaceNames[2 * a] + " and boundary." + kFaceNames[2 * a + 1] +
                  " must both be periodic or neither (got " + to_string(lo) + " and " + to_string(hi) + ")");
    const int layers = (lo == FaceKind::pml) + (hi == FaceKind::pml);
    if (layers && len[a] < layers * c.pml_width + R)
      throw Error("grid.shape: " + std::to_string(len[a]) + " points along " + "xyz"[a] + " cannot hold " +
                  std::to_string(layers) + " absorbing layer(s) of boundary.pml.width = " +
                  std::to_string(c.pml_width) + " and the " + std::to_string(R) +
                  " points of stencil radius between them: make the grid larger or the layers thinner");
  }
}

std::vector<PmlFace> pml_faces(const Config& c, double dt, double v_max, double alpha_max) {
  std::vector<PmlFace> out;
  const int len[3] = {c.shape.nx, c.shape.ny, c.shape.nz};
  for (int f = 0; f < 6; ++f) {
    if (c.faces[f] != FaceKind::pml) continue;
    const int axis = f / 2;
    const bool high = f % 2;
    PmlFace p;
    p.face = f;
    p.axis = axis;
    for (int a = 0; a < 3; ++a) p.lo[a] = 0, p.hi[a] = len[a];
    if (high) p.lo[axis] = len[axis] - c.pml_width;
    else p.hi[axis] = c.pml_width;
    const CpmlLayer L = cpml_layer(c.pml_width, high, c.spacing, dt, v_max, c.pml_reflection, c.pml_power, alpha_max);
    p.a = L.a;
    p.b = L.b;
    out.push_back(std::move(p));
  }
  return out;
}

bool in_layer(const Config& c, const Vec3& p) {
  const double q[3] = {p.x, p.y, p.z};
  const int len[3] = {c.shape.nx, c.shape.ny, c.shape.nz};
  for (int a = 0; a < 3; ++a) {
    const double i = q[a] / c.spacing - 0.5;
    if (c.faces[2 * a] == FaceKind::pml && i < c.pml_width) return true;
    if (c.faces[2 * a + 1] == FaceKind::pml && i > len[a] - 1 - c.pml_width) return true;
  }
  return false;
}

std::string resolve_device(const std::string& d) {
  if (d == "cpu") return "cpu";
  if (d == "cuda") {
    require(cuda_available(), "device \"cuda\" was requested but no GPU can be used: " + cuda_unavailable_reason());
    return "cuda";
  }
  return cuda_available() ? "cuda" : "cpu";
}

}  // namespace

template <class T>
std::string physics_digest(const Config& c, double dt, std::span<const T> velocity) {
  nlohmann::ordered_json j = nlohmann::ordered_json::parse(to_json(c));
  j.erase("output");
  j.erase("device");
  char exact[64];
  std::snprintf(exact, sizeof exact, "%a", dt);  // bit-exact, whatever the formatting of doubles
  j["time"] = {{"dt", exact}};
  if (c.model == ModelKind::npy) j["model"].erase("file");  // the values count, not the path
  io::Digest d;
  d.add(j.dump());
  d.add_bytes(velocity.data(), velocity.size_bytes());
  return d.hex();
}

template <class T>
Resolved resolve(const Config& c, std::span<const T> velocity) {
  Resolved out;
  Plan& p = out.plan;
  Setup& s = out.setup;
  const int R = c.order / 2;
  const double h = c.spacing;
  p.radius = R;
  check_faces(c, R);

  const int len[3] = {c.shape.nx, c.shape.ny, c.shape.nz};
  if (c.png_index && *c.png_index >= len[c.png_axis])
    throw Error("output.png.index = " + std::to_string(*c.png_index) + " is outside the grid: along " +
                "xyz"[c.png_axis] + " the index must be in [0, " + std::to_string(len[c.png_axis] - 1) + "]");

  // Sources and receivers must sit among grid points (no extrapolation into the ghosts).
  for (std::size_t i = 0; i < c.sources.size(); ++i)
    if (!inside_grid(c.sources[i].position, c.shape, h))
      throw Error("sources." + std::to_string(i) + ".position " + vec(c.sources[i].position) +
                  " is outside the grid: each coordinate must lie in " + grid_hull(c.shape, h));
  p.receivers = expand_receivers(c);
  for (std::size_t i = 0; i < p.receivers.size(); ++i)
    if (!inside_grid(p.receivers[i], c.shape, h))
      throw Error("receiver " + std::to_string(i) + " at " + vec(p.receivers[i]) +
                  " (receivers: points, then lines, then planes) is outside the grid: each coordinate must lie in " +
                  grid_hull(c.shape, h));

  const auto [vmin_it, vmax_it] = std::minmax_element(velocity.begin(), velocity.end());
  p.v_min = double(*vmin_it);
  p.v_max = double(*vmax_it);
  p.dt_limit = stability_limit(c.order, h, p.v_max);
  if (c.dt) {
    if (*c.dt > p.dt_limit)
      throw Error("time.dt = " + num(*c.dt) + " s violates the stability (CFL) limit " + num(p.dt_limit) +
                  " s for space order " + std::to_string(c.order) + ", v_max = " + num(p.v_max) +
                  " m/s and h = " + num(h) + " m (dt <= 2 / (v_max sqrt(lambda_max))): use dt <= " +
                  num(p.dt_limit) + " or leave time.dt null to choose it automatically");
    p.dt = *c.dt;
  } else {
    p.dt = c.cfl_safety * p.dt_limit;
  }
  p.courant = p.v_max * p.dt / h;

  double f_max = 0;
  for (const Source& src : c.sources) f_max = std::max(f_max, src.frequency);
  if (f_max > 0) {
    p.points_per_wavelength = p.v_min / (ricker_f_max(f_max) * h);
    const double need = min_points_per_wavelength(c.order);
    if (p.points_per_wavelength < need)
      p.warnings.push_back("only " + num(p.points_per_wavelength) + " grid points per shortest wavelength (v_min " +
                           num(p.v_min) + " m/s at 2.5 x the peak frequency " + num(f_max) + " Hz, h = " + num(h) +
                           " m); order " + std::to_string(c.order) + " needs about " + num(need) +
                           " to keep numerical dispersion small: refine the grid, raise the order or lower the frequency");
  }
  for (std::size_t i = 0; i < c.sources.size(); ++i)
    if (in_layer(c, c.sources[i].position))
      p.warnings.push_back("sources." + std::to_string(i) + " lies inside an absorbing layer: its energy is damped at once");

  p.trace_rows = c.steps / c.receiver_every + 1;
  p.bytes_per_point = 4.0 * sizeof(T);
  p.device = resolve_device(c.device);
  p.digest = physics_digest(c, p.dt, velocity);

  // The backend's scheme, in grid units.
  s.n = c.shape;
  s.radius = R;
  const Stencil lap = Stencil::laplacian(c.order, 1.0);
  s.lap.assign(lap.coeffs().begin(), lap.coeffs().end());
  s.d2 = second_derivative_coeffs(c.order);
  s.d1 = first_derivative_coeffs(c.order);
  s.faces = c.faces;
  const double alpha_max = c.pml_alpha ? *c.pml_alpha : std::numbers::pi * (f_max > 0 ? f_max : 0.0);
  s.pml = pml_faces(c, p.dt, p.v_max, alpha_max);
  const double inject = p.dt * p.dt / (h * h * h);  // delta(x - x_s) ~ taps / h^3
  for (const Source& src : c.sources) {
    auto taps = trilinear_taps(src.position, c.shape, h);
    for (Tap& t : taps) t.w *= inject;
    s.sources.push_back(std::move(taps));
  }
  for (const Vec3& r : p.receivers) s.receivers.push_back(trilinear_taps(r, c.shape, h));
  s.trace_rows = p.trace_rows;
  return out;
}

template Resolved resolve(const Config&, std::span<const float>);
template Resolved resolve(const Config&, std::span<const double>);
template std::string physics_digest(const Config&, double, std::span<const float>);
template std::string physics_digest(const Config&, double, std::span<const double>);

}  // namespace strata::wave

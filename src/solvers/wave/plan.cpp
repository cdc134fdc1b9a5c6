// Whole-configuration checks and the resolved scheme (see plan.hpp). Order matters
// only for which error a doubly-wrong configuration reports first: geometry, then CFL.
#include "solvers/wave/plan.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <numbers>

#include <nlohmann/json.hpp>

#include "io/digest.hpp"
#include "io/segy.hpp"
#include "solvers/wave/cpml.hpp"
#include "solvers/wave/geometry.hpp"
#include "solvers/wave/numerics.hpp"
#include "strata/device.hpp"
#include "base/host_memory.hpp"
#include "base/runtime.hpp"
#include "strata/stencil.hpp"

namespace strata::wave {

namespace {

std::string num(double v) {
  char b[64];
  std::snprintf(b, sizeof b, "%.6g", v);
  return b;
}

std::string vec(const Vec3& p) { return "[" + num(p.x) + ", " + num(p.y) + ", " + num(p.z) + "]"; }

}  // namespace

// output.segy: SEG-Y stores the recording interval in whole microseconds (16 bits), at most
// 65535 samples per trace and coordinates as int32 times a scalar. Refused here, before the
// first step, not when the results are written; the message offers the dt that fits.
void check_segy(const Config& c, const Plan& p, const std::string& what,
                const std::string& instead) {
  const double interval = p.dt * c.receiver_every, us = interval * 1e6;
  const std::string every = std::to_string(c.receiver_every);
  if (!io::segy::whole_microseconds(interval)) {
    const double below = std::floor(us);
    std::string fix;
    if (us < 1)
      fix = "raise receivers.every to at least " + std::to_string(int(std::ceil(1e-6 / p.dt)));
    else if (below > 65535)
      fix = "lower receivers.every to at most " + std::to_string(std::max(1, int(65535e-6 / p.dt)));
    else if (std::floor(p.dt * 1e6) >= 1)  // a whole number of microseconds: every interval is too
      fix = "set time.dt = " + format_number(std::floor(p.dt * 1e6) / 1e6);
    else
      fix = "set time.dt = " + format_number(below / c.receiver_every / 1e6);
    throw Error(what + ": SEG-Y stores the recording interval, time.dt x receivers.every, as a whole "
                "number of microseconds from 1 to 65535, but it is " + format_number(us) + " us (dt = " +
                format_number(p.dt) + " s" + (c.dt ? "" : ", chosen automatically") + ", every " + every +
                "): " + fix + ", or " + instead);
  }
  if (std::size_t(p.trace_rows) > io::segy::kMaxSamples)
    throw Error(what + ": the seismogram has " + std::to_string(p.trace_rows) +
                " samples per receiver (time.steps / receivers.every + 1) and a SEG-Y trace holds at most " +
                std::to_string(io::segy::kMaxSamples) + ": raise receivers.every to at least " +
                std::to_string(c.steps / int(io::segy::kMaxSamples) + 1) + ", or " + instead);
  const double extent = std::max({c.shape.nx, c.shape.ny, c.shape.nz}) * c.spacing;
  if (!io::segy::coordinate_scalar(extent))
    throw Error(what + ": the grid spans " + num(extent) + " m, beyond the coordinates SEG-Y holds (int32 x 10000)");
}

namespace {

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

}  // namespace

// Source parameters the scheme can represent: each is accepted by the schema's type and
// sign checks, but a wavelet sampled below its Nyquist rate, a peak outside the run, or an
// injection that overflows the precision gives NaN or Inf, silently (a mostly-NaN
// seismogram with exit 0). Refused with the range that works.
void check_source_parameters(const Config& c, double dt) {
  const double nyquist = 0.5 / dt, duration = c.steps * dt;
  const double largest = c.precision == Precision::f32 ? double(std::numeric_limits<float>::max())
                                                       : std::numeric_limits<double>::max();
  const double inject = dt * dt / (c.spacing * c.spacing * c.spacing);  // u+ gains A s(t) dt^2 / h^3
  for (std::size_t i = 0; i < c.sources.size(); ++i) {
    const Source& src = c.sources[i];
    const std::string key = "sources." + std::to_string(i);
    if (src.frequency > nyquist)
      throw Error(key + ".frequency = " + num(src.frequency) + " Hz is above the time step's Nyquist frequency " +
                  num(nyquist) + " Hz (1 / (2 dt), dt = " + num(dt) +
                  " s): the wavelet would be sampled less than twice per period; allowed (0, " + num(nyquist) +
                  "] Hz, or refine the grid (dt follows grid.spacing)");
    if (src.delay && c.steps > 0 && *src.delay > duration)
      throw Error(key + ".delay = " + num(*src.delay) + " s puts the wavelet's peak after the end of the run (" +
                  std::to_string(c.steps) + " steps of " + num(dt) + " s = " + num(duration) + " s): allowed [0, " +
                  num(duration) + "] s");
    // A GPU keeps each source tap's weight (its trilinear share times dt^2 / h^3) in the run's
    // precision: a factor beyond its range would inject inf (a NaN seismogram), one below its
    // smallest normal value nothing, where the CPU, in double, injects. Extreme spacings only.
    const double smallest = c.precision == Precision::f32 ? double(std::numeric_limits<float>::min())
                                                          : std::numeric_limits<double>::min();
    if (i == 0 && !(inject >= smallest && inject <= largest))
      throw Error("grid.spacing " + num(c.spacing) + " m with dt " + num(dt) +
                  " s makes the sources' injection factor dt^2 / h^3 = " + num(inject) + ", outside the range of " +
                  to_string(c.precision) + " [" + num(smallest) + ", " + num(largest) + "], in which a GPU keeps it (" +
                  (!(inject <= largest) ? "inf" : "0") + " there): " +
                  (c.precision == Precision::f32 ? "use scheme.precision f64 or " : "use ") +
                  "a grid spacing nearer the model's wavelengths");
    // Headroom of 1e6 below the largest value: the field near the source is a few times the
    // injected value, and the stencil sums a few dozen of them. And the amplitude itself: a
    // GPU keeps each step's wavelet samples (peak |amplitude|) in the run's precision, so a
    // coarse grid's small injection factor must not let through an amplitude that precision
    // cannot hold (f32 1e39 ran to a finite seismogram on the CPU, which keeps them in double;
    // a GPU converts it to inf).
    const double by_field = 1e-6 * largest / inject, bound = std::min(by_field, largest);
    if (!(std::fabs(src.amplitude) <= bound))
      throw Error(key + ".amplitude = " + num(src.amplitude) + " would overflow " + to_string(c.precision) +
                  (bound == by_field ? std::string(": each step injects amplitude x dt^2 / h^3 = amplitude x ") + num(inject) +
                                           ", which must stay 1e6 below the largest " + to_string(c.precision) +
                                           " (" + num(largest) + ")"
                                     : ": the wavelet's samples are kept in " + std::string(to_string(c.precision)) +
                                           ", whose largest value is " + num(largest)) +
                  ": allowed |amplitude| <= " + num(bound) +
                  (c.precision == Precision::f32 ? " (or scheme.precision f64)" : ""));
  }
}

void check_source_positions(const Config& c) {
  for (std::size_t i = 0; i < c.sources.size(); ++i)
    if (!inside_grid(c.sources[i].position, c.shape, c.spacing))
      throw Error("sources." + std::to_string(i) + ".position " + vec(c.sources[i].position) +
                  " is outside the grid: each coordinate must lie in " + grid_hull(c.shape, c.spacing));
}

namespace {

// Receivers of every kind, counted without expanding them (a plane may hold millions).
double receiver_count(const Config& c) {
  double n = double(c.receiver_points.size());
  for (const ReceiverLine& l : c.receiver_lines) n += l.count;
  const int len[3] = {c.shape.nx, c.shape.ny, c.shape.nz};
  for (const ReceiverPlane& p : c.receiver_planes) {
    const int a1 = p.axis == 0 ? 1 : 0, a2 = p.axis == 2 ? 1 : 2;
    n += std::ceil(double(len[a1]) / p.stride) * std::ceil(double(len[a2]) / p.stride);
  }
  return n;
}

}  // namespace

Device run_device(const Config& c) {
  if (c.device == Device::cuda)
    require(cuda_available(), "device \"cuda\" was requested but no GPU can be used: " + cuda_unavailable_reason());
  return resolve(c.device, "device");
}

MemoryEstimate host_memory_estimate(const Config& c, Device device) {
  // In double: the estimate of an absurd configuration must not overflow.
  const double e = c.precision == Precision::f32 ? 4 : 8, R = c.order / 2;
  const double nx = c.shape.nx, ny = c.shape.ny, nz = c.shape.nz, points = nx * ny * nz;
  const double pitch = double(Layout::pitch_for(c.shape.nx, int(R), std::size_t(e)));
  const double field = pitch * (ny + 2 * R) * (nz + 2 * R) * e;  // as Layout::make
  const double len[3] = {nx, ny, nz};
  double layers = 0;  // psi and zeta over each layer's box
  for (int f = 0; f < 6; ++f)
    if (c.faces[f] == FaceKind::pml) layers += 2 * c.pml_width * (points / len[f / 2]) * e;
  const double nrec = receiver_count(c), rows = double(c.steps / c.receiver_every + 1);
  const double traces = rows * nrec * e;
  const double taps = nrec * (sizeof(Vec3) + 8 * sizeof(Tap));
  // Transient copies, one at a time: a .npy model while setting up; the whole state and the traces, dense, at a snapshot, checkpoint or
  // restart; the traces and, one after the other, the seismogram picture and (output.segy) the traces
  // transposed into SEG-Y's trace order at the end.
  const double setup = c.model == ModelKind::npy ? points * e : 0;  // constant, layered: per plane
  const double state = 2 * points * e + layers + traces;
  const double picture = 2 * std::min(rows, 4096.0) * std::min(nrec, 4096.0) * 8;
  const double final_outputs = traces + std::max(picture, c.segy ? traces : 0.0);
  const double staging = std::max({setup, state, final_outputs});
  MemoryEstimate m;
  using host::format_bytes;
  if (device == Device::cpu) {
    const double c2 = points * 8;  // the CPU reference keeps (v dt/h)^2 in double
    m.bytes = 2 * field + c2 + layers + traces + taps + staging;
    m.parts = "u and u_prev " + format_bytes(2 * field) + ", (v dt/h)^2 " + format_bytes(c2) + ", CPML memory " +
              format_bytes(layers) + ", traces " + format_bytes(traces) + ", receivers " + format_bytes(taps) +
              ", staging copies for set-up and outputs " + format_bytes(staging);
  } else {
    m.bytes = taps + staging;
    m.parts = "receivers " + format_bytes(taps) + ", staging copies of the device state for set-up and outputs " +
              format_bytes(staging);
  }
  return m;
}

void require_host_memory(const Config& c, Device device) {
  const MemoryEstimate m = host_memory_estimate(c, device);
  host::require_host_memory(m.bytes, "the " + c.shape.str() + " " + to_string(c.precision) + " wave run on the " + to_string(device),
                            m.parts,
                            "use a smaller grid, fewer receivers or steps (traces are receivers x steps / "
                            "receivers.every)" + std::string(device == Device::cpu && runtime::gpu_usable_for_advice() ? ", or device cuda" : ""));
}

template <class T>
std::string physics_digest(const Config& c, double dt, std::span<const T> velocity) {
  return physics_digest(c, dt, [&](io::Digest& d) { d.add_bytes(velocity.data(), velocity.size_bytes()); });
}

std::string physics_digest(const Config& c, double dt, const std::function<void(io::Digest&)>& add_values) {
  nlohmann::ordered_json j = nlohmann::ordered_json::parse(to_json(c));
  j.erase("output");
  j.erase("device");
  char exact[64];
  std::snprintf(exact, sizeof exact, "%a", dt);  // bit-exact, whatever the formatting of doubles
  j["time"] = {{"dt", exact}};
  if (c.model == ModelKind::npy) j["model"].erase("file");  // the values count, not the path
  io::Digest d;
  d.add(j.dump());
  add_values(d);
  return d.hex();
}

template <class T>
Resolved resolve(const Config& c, std::span<const T> velocity) {
  // By value, in a loop the compiler vectorises (minmax_element's iterators kept it scalar:
  // 0.2 s of a 512^3 imaging run's set-up).
  if (velocity.empty()) throw Error("internal: resolve without a velocity model");
  T lo = velocity[0], hi = velocity[0];
  for (const T v : velocity) {
    lo = v < lo ? v : lo;
    hi = hi < v ? v : hi;
  }
  return resolve<T>(c, double(lo), double(hi),
                    [&](io::Digest& d) { d.add_bytes(velocity.data(), velocity.size_bytes()); });
}

template <class T>
Resolved resolve(const Config& c, double v_min, double v_max, const std::function<void(io::Digest&)>& add_values) {
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
  check_source_positions(c);
  p.receivers = expand_receivers(c);
  for (std::size_t i = 0; i < p.receivers.size(); ++i)
    if (!inside_grid(p.receivers[i], c.shape, h))
      throw Error("receiver " + std::to_string(i) + " at " + vec(p.receivers[i]) +
                  " (receivers: points, then lines, then planes) is outside the grid: each coordinate must lie in " +
                  grid_hull(c.shape, h));

  p.v_min = v_min;
  p.v_max = v_max;
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

  check_source_parameters(c, p.dt);
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
  if (c.segy && !p.receivers.empty()) check_segy(c, p, "output.segy", "turn output.segy off");
  p.bytes_per_point = 4.0 * sizeof(T);
  p.device = run_device(c);
  p.digest = physics_digest(c, p.dt, add_values);

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
template Resolved resolve<float>(const Config&, double, double, const std::function<void(io::Digest&)>&);
template Resolved resolve<double>(const Config&, double, double, const std::function<void(io::Digest&)>&);
template std::string physics_digest(const Config&, double, std::span<const float>);
template std::string physics_digest(const Config&, double, std::span<const double>);

}  // namespace strata::wave

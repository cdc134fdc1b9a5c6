// Velocity models: constant, layered (layer of a point = the deepest top above its depth
// (k + 1/2) h), both one value per z plane, or a (nz, ny, nx) .npy of float32/float64
// velocities in m/s.
#include "solvers/wave/model.hpp"

#include <cmath>
#include <cstdio>
#include <limits>

#include "io/npy_box.hpp"
#include "strata/npy.hpp"

namespace strata::wave {

namespace {

constexpr int kRows = 256;  // rows a streamed read holds at once (a 512-wide f32 model: 0.5 MB)

template <class T>
bool usable(T v) {
  return std::isfinite(double(v)) && v > T(0);
}

// The error for value v at point p of the grid (x fastest), as every reader of the model says it.
Error bad_velocity(double v, std::size_t p, Extent n) {
  const std::size_t x = p % std::size_t(n.nx), y = p / std::size_t(n.nx) % std::size_t(n.ny),
                    z = p / std::size_t(n.nx) / std::size_t(n.ny);
  char b[64];
  std::snprintf(b, sizeof b, "%g", v);
  return Error("velocity model: v = " + std::string(b) + " at grid point (x, y, z) = (" + std::to_string(x) + ", " +
               std::to_string(y) + ", " + std::to_string(z) + "): every velocity must be a finite number > 0 (m/s)");
}

}  // namespace

void inspect_model_file(const Config& c) {
  const Extent n = c.shape;
  NpyInfo info;
  try {
    info = npy_inspect(c.model_file);
  } catch (const Error& e) {
    throw Error(std::string("model.file: ") + e.what());
  }
  const std::vector<std::size_t> want = {std::size_t(n.nz), std::size_t(n.ny), std::size_t(n.nx)};
  if (info.shape != want) {
    std::string got;
    for (std::size_t s : info.shape) got += (got.empty() ? "" : ", ") + std::to_string(s);
    throw Error("model.file '" + c.model_file + "' has shape (" + got + "); grid.shape " + n.str() +
                " needs (nz, ny, nx) = (" + std::to_string(n.nz) + ", " + std::to_string(n.ny) +
                ", " + std::to_string(n.nx) + ")");
  }
}

template <class T>
VelocityModel<T> load_velocity(const Config& c) {
  const Extent n = c.shape;
  VelocityModel<T> m;
  if (c.model == ModelKind::constant) {
    m.planes.assign(std::size_t(n.nz), T(c.velocity));
  } else if (c.model == ModelKind::layered) {
    m.planes.resize(std::size_t(n.nz));
    for (int k = 0; k < n.nz; ++k) {
      const double depth = (k + 0.5) * c.spacing;
      double vel = c.layers.front().velocity;
      for (const Layer& l : c.layers)
        if (l.top <= depth) vel = l.velocity;
      m.planes[std::size_t(k)] = T(vel);
    }
  } else {
    inspect_model_file(c);
    std::vector<std::size_t> shape;
    m.dense = npy_read<T>(c.model_file, shape);
  }
  const std::span<const T> v = m.values();
  for (std::size_t i = 0; i < v.size(); ++i)  // a plane's value stands for its plane: its first point
    if (!usable(v[i])) throw bad_velocity(double(v[i]), m.planes.empty() ? i : i * std::size_t(n.nx) * n.ny, n);
  return m;
}

template <class T>
ModelExtremes scan_model_file(const Config& c) {
  const Extent n = c.shape;
  inspect_model_file(c);
  T lo = std::numeric_limits<T>::max(), hi = std::numeric_limits<T>::lowest();
  npy_read_box_rows<T>(c.model_file, {0, 0, 0}, n, kRows, [&](int z, int y, int rows, const T* v) {
    const std::size_t first = (std::size_t(z) * std::size_t(n.ny) + std::size_t(y)) * std::size_t(n.nx);
    for (std::size_t i = 0; i < std::size_t(rows) * std::size_t(n.nx); ++i) {
      if (!usable(v[i])) throw bad_velocity(double(v[i]), first + i, n);
      lo = std::min(lo, v[i]), hi = std::max(hi, v[i]);
    }
  });
  return {double(lo), double(hi)};
}

template <class T>
void digest_model_file(const Config& c, io::Digest& d) {
  npy_read_box_rows<T>(c.model_file, {0, 0, 0}, c.shape, kRows, [&](int, int, int rows, const T* v) {
    d.stream_bytes(v, std::size_t(rows) * std::size_t(c.shape.nx) * sizeof(T));
  });
  d.end_stream();
}

template <class T>
std::vector<T> read_model_box(const Config& c, std::array<int, 3> offset, Extent box) {
  std::vector<T> out(box.points());
  npy_read_box_rows<T>(c.model_file, offset, box, kRows, [&](int z, int y, int rows, const T* v) {
    std::copy(v, v + std::size_t(rows) * std::size_t(box.nx),
              out.begin() + std::ptrdiff_t((std::size_t(z) * std::size_t(box.ny) + std::size_t(y)) * box.nx));
  });
  return out;
}

template VelocityModel<float> load_velocity(const Config&);
template VelocityModel<double> load_velocity(const Config&);
template ModelExtremes scan_model_file<float>(const Config&);
template ModelExtremes scan_model_file<double>(const Config&);
template void digest_model_file<float>(const Config&, io::Digest&);
template void digest_model_file<double>(const Config&, io::Digest&);
template std::vector<float> read_model_box(const Config&, std::array<int, 3>, Extent);
template std::vector<double> read_model_box(const Config&, std::array<int, 3>, Extent);

}  // namespace strata::wave

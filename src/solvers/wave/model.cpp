// Velocity models: constant, layered (layer of a point = the deepest top above its depth
// (k + 1/2) h), both one value per z plane, or a (nz, ny, nx) .npy of float32/float64
// velocities in m/s.
#include "solvers/wave/model.hpp"

#include <cmath>
#include <cstdio>

#include "strata/npy.hpp"

namespace strata::wave {

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
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (std::isfinite(double(v[i])) && v[i] > T(0)) continue;
    // A plane's value stands for its whole plane: name its first point.
    const std::size_t p = m.planes.empty() ? i : i * std::size_t(n.nx) * n.ny;
    const std::size_t x = p % n.nx, y = p / n.nx % n.ny, z = p / n.nx / n.ny;
    char b[64];
    std::snprintf(b, sizeof b, "%g", double(v[i]));
    throw Error("velocity model: v = " + std::string(b) + " at grid point (x, y, z) = (" + std::to_string(x) +
                ", " + std::to_string(y) + ", " + std::to_string(z) +
                "): every velocity must be a finite number > 0 (m/s)");
  }
  return m;
}

template VelocityModel<float> load_velocity(const Config&);
template VelocityModel<double> load_velocity(const Config&);

}  // namespace strata::wave

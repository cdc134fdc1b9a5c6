// Velocity models: constant, layered (layer of a point = the deepest top above its depth
// (k + 1/2) h), both one value per z plane, or a (nz, ny, nx) .npy of float32/float64
// velocities in m/s.
#include "solvers/wave/model.hpp"

#include <array>
#include <cmath>
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
// `v` is the value as the model gave it (the file's, the configuration's); a finite positive one
// the run's precision T cannot hold (beyond f32's range, or below its smallest value) is said so.
template <class T>
Error bad_velocity(double v, std::size_t p, Extent n) {
  const std::size_t x = p % std::size_t(n.nx), y = p / std::size_t(n.nx) % std::size_t(n.ny),
                    z = p / std::size_t(n.nx) / std::size_t(n.ny);
  const bool unheld = std::isfinite(v) && v > 0;
  return Error("velocity model: v = " + format_number(v) + " at grid point (x, y, z) = (" +
               std::to_string(x) + ", " + std::to_string(y) + ", " + std::to_string(z) + "): " +
               (unheld ? "outside the range of " + std::string(to_string(precision_of<T>)) +
                             ", the run's precision; "
                       : std::string()) +
               "every velocity must be a finite number > 0 (m/s)");
}

// The file's own value at point p, for the message: a float64 file read into f32 gives inf or
// 0 where the file holds 1e300 or 1e-300 (read once, only when a value is refused).
double file_value(const Config& c, std::size_t p) {
  const Extent n = c.shape;
  const std::array<int, 3> at = {int(p % std::size_t(n.nx)),
                                 int(p / std::size_t(n.nx) % std::size_t(n.ny)),
                                 int(p / std::size_t(n.nx) / std::size_t(n.ny))};
  double v = 0;
  npy_read_box_rows<double>(c.model_file, at, {1, 1, 1}, 1,
                            [&](int, int, int, const double* d) { v = d[0]; });
  return v;
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
  std::vector<double> given;  // the planes' values as the configuration gives them
  if (c.model == ModelKind::constant) {
    given.assign(std::size_t(n.nz), c.velocity);
  } else if (c.model == ModelKind::layered) {
    given.resize(std::size_t(n.nz));
    for (int k = 0; k < n.nz; ++k) {
      const double depth = (k + 0.5) * c.spacing;
      double vel = c.layers.front().velocity;
      for (const Layer& l : c.layers)
        if (l.top <= depth) vel = l.velocity;
      given[std::size_t(k)] = vel;
    }
  } else {
    inspect_model_file(c);
    std::vector<std::size_t> shape;
    m.dense = npy_read<T>(c.model_file, shape);
  }
  for (std::size_t k = 0; k < given.size();
       ++k) {  // a plane's value stands for its plane: its first point
    m.planes.push_back(T(given[k]));
    if (!usable(m.planes.back()))
      throw bad_velocity<T>(given[k], k * std::size_t(n.nx) * std::size_t(n.ny), n);
  }
  for (std::size_t i = 0; i < m.dense.size(); ++i)
    if (!usable(m.dense[i])) throw bad_velocity<T>(file_value(c, i), i, n);
  return m;
}

template <class T>
ModelExtremes scan_model_file(const Config& c) {
  const Extent n = c.shape;
  inspect_model_file(c);
  T lo = std::numeric_limits<T>::max(), hi = std::numeric_limits<T>::lowest();
  npy_read_box_rows<T>(c.model_file, {0, 0, 0}, n, kRows, [&](int z, int y, int rows, const T* v) {
    const std::size_t first =
        (std::size_t(z) * std::size_t(n.ny) + std::size_t(y)) * std::size_t(n.nx);
    for (std::size_t i = 0; i < std::size_t(rows) * std::size_t(n.nx); ++i) {
      if (!usable(v[i])) throw bad_velocity<T>(file_value(c, first + i), first + i, n);
      lo = std::min(lo, v[i]), hi = std::max(hi, v[i]);
    }
  });
  return {double(lo), double(hi)};
}

template <class T>
void digest_model_file(const Config& c, io::Digest& d) {
  npy_read_box_rows<T>(c.model_file, {0, 0, 0}, c.shape, kRows,
                       [&](int, int, int rows, const T* v) {
                         d.stream_bytes(v, std::size_t(rows) * std::size_t(c.shape.nx) * sizeof(T));
                       });
  d.end_stream();
}

template <class T>
std::vector<T> read_model_box(const Config& c, std::array<int, 3> offset, Extent box) {
  std::vector<T> out(box.points());
  npy_read_box_rows<T>(c.model_file, offset, box, kRows, [&](int z, int y, int rows, const T* v) {
    std::copy(v, v + std::size_t(rows) * std::size_t(box.nx),
              out.begin() +
                  std::ptrdiff_t((std::size_t(z) * std::size_t(box.ny) + std::size_t(y)) * box.nx));
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

// The wave run's figures (see pictures.hpp) and the public helpers strata.plot draws from:
// the seismogram's offset axis and the model's plane. Grid points are cell-centred, so a
// plane of n points of spacing h spans [0, n h] and each point is a cell of width h.
#include "drivers/wave/pictures.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "io/colormap.hpp"
#include "io/npy_box.hpp"
#include "solvers/wave/geometry.hpp"
#include "solvers/wave/model.hpp"

namespace strata::wave {

namespace {

constexpr const char* kAxisNames = "xyz";

double coordinate(const Vec3& p, int axis) { return axis == 0 ? p.x : axis == 1 ? p.y : p.z; }

std::string metres(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%g", v);
  return b;
}

std::string axis_label(int axis) {
  return std::string(axis == 2 ? "depth " : "") + kAxisNames[axis] + " (m)";
}

// The figure of a plane of the grid: the raster in metres, the axes named, and the inner
// edge of the absorbing layers on the plane's axes outlined.
io::Figure plane_figure(const Config& c, const Slice& sl, std::vector<double> values) {
  io::Figure f;
  f.values = std::move(values);
  f.cols = sl.w;
  f.rows = sl.h;
  const double h = c.spacing;
  f.x_edges = io::even_edges(0, sl.w * h, sl.w);
  f.y_top = 0;
  f.y_bottom = sl.h * h;
  f.x_label = axis_label(sl.qa);
  f.y_label = axis_label(sl.ra);
  auto layer = [&](Face face) { return c.faces[face] == FaceKind::pml ? c.pml_width * h : 0.0; };
  const double q0 = layer(Face(2 * sl.qa)), q1 = sl.w * h - layer(Face(2 * sl.qa + 1));
  const double r0 = layer(Face(2 * sl.ra)), r1 = sl.h * h - layer(Face(2 * sl.ra + 1));
  if (q0 > 0 || r0 > 0 || q1 < sl.w * h || r1 < sl.h * h) {
    f.outlines.push_back({q0, r0, q1, r1});
    f.legend.push_back({io::Glyph::dashed, "inner edge of the absorbing layers"});
  }
  return f;
}

std::string plane_name(const Config& c, const Slice& sl) {
  return std::string(1, kAxisNames[sl.axis]) + " = " + metres((sl.index + 0.5) * c.spacing) + " m";
}

}  // namespace

Slice::Slice(const Config& c, int ax, std::optional<int> at) : axis(ax) {
  const int len[3] = {c.shape.nx, c.shape.ny, c.shape.nz};
  require(axis >= 0 && axis < 3, "a picture's plane: axis must be 0 (x), 1 (y) or 2 (z)");
  index = at ? *at : len[axis] / 2;
  require(index >= 0 && index < len[axis], "a picture's plane: index " + std::to_string(index) +
                                               " is outside [0, " + std::to_string(len[axis] - 1) +
                                               "] along " + kAxisNames[axis]);
  qa = axis == 0 ? 1 : 0;
  ra = axis == 2 ? 1 : 2;
  w = len[qa];
  h = len[ra];
}

io::Figure snapshot_figure(const Config& c, const Slice& sl, std::vector<double> u, int step,
                           double time) {
  io::Figure f = plane_figure(c, sl, std::move(u));
  const double clip = io::abs_quantile(f.values, c.png_clip);
  f.map = io::parse_colormap(c.colormap);
  f.lo = -clip;
  f.hi = clip;
  char t[64];
  std::snprintf(t, sizeof t, "%.4g", time);
  f.title = "u at " + plane_name(c, sl) + ", step " + std::to_string(step) + ", t = " + t + " s";
  f.colour_label = "u (pressure, arbitrary units)";
  return f;
}

template <class T>
io::Figure seismogram_figure(const Config& c, const std::vector<Vec3>& receivers,
                             const std::vector<T>& traces, int rows, double sample_interval) {
  // At most ~4096 samples each way (the picture has a few hundred pixels).
  const int nrec = int(receivers.size());
  const int rstep = std::max(1, (rows + 4095) / 4096), cstep = std::max(1, (nrec + 4095) / 4096);
  const int h = (rows + rstep - 1) / rstep, w = (nrec + cstep - 1) / cstep;
  io::Figure f;
  f.values.resize(std::size_t(w) * h);
  for (int r = 0; r < h; ++r)
    for (int q = 0; q < w; ++q)
      f.values[std::size_t(r) * w + q] =
          double(traces[std::size_t(r) * rstep * nrec + std::size_t(q) * cstep]);
  f.cols = w;
  f.rows = h;
  const ReceiverAxis axis = receiver_axis(receivers, c.sources);
  std::vector<double> x;  // the columns drawn
  for (int q = 0; q < w; ++q) x.push_back(axis.values[std::size_t(q) * cstep]);
  f.x_edges.resize(std::size_t(w) + 1);
  const double end = w > 1 ? 0.5 * (x[1] - x[0]) : axis.metres ? 0.5 * c.spacing : 0.5;
  f.x_edges.front() = x.front() - end;
  for (int q = 1; q < w; ++q)
    f.x_edges[std::size_t(q)] = 0.5 * (x[std::size_t(q) - 1] + x[std::size_t(q)]);
  f.x_edges.back() = x.back() + (w > 1 ? 0.5 * (x.back() - x[std::size_t(w) - 2]) : end);
  const double dt = sample_interval * rstep;
  f.y_top = -0.5 * dt;
  f.y_bottom = (h - 0.5) * dt;
  const double clip = io::abs_quantile(f.values, c.png_clip);
  f.map = io::parse_colormap(c.colormap);
  f.lo = -clip;
  f.hi = clip;
  f.equal_aspect = false;
  f.x_label = axis.label;
  f.y_label = "time (s)";
  f.colour_label = "u (pressure, arbitrary units)";
  f.title = "seismogram: " + std::to_string(nrec) + " receiver" + (nrec > 1 ? "s" : "");
  if (c.sources.size() == 1) {
    const Vec3& s = c.sources[0].position;
    f.title += ", source at (" + metres(s.x) + ", " + metres(s.y) + ", " + metres(s.z) + ") m";
  } else {
    f.title += ", " + std::to_string(c.sources.size()) + " sources";
  }
  return f;
}

template io::Figure seismogram_figure(const Config&, const std::vector<Vec3>&,
                                      const std::vector<float>&, int, double);
template io::Figure seismogram_figure(const Config&, const std::vector<Vec3>&,
                                      const std::vector<double>&, int, double);

io::Figure model_figure(const Config& c, const std::vector<Vec3>& receivers) {
  const Slice sl(c);
  ModelSlice m = model_slice(c, sl.axis, sl.index);
  io::Figure f = plane_figure(c, sl, std::move(m.velocity));
  const auto [lo, hi] = std::minmax_element(f.values.begin(), f.values.end());
  f.map = io::Colormap::viridis;
  const double pad =
      *hi > *lo ? 0.0 : std::max(1.0, 0.05 * *hi);  // a constant model: a range about it
  f.lo = *lo - pad;
  f.hi = *hi + pad;
  f.colour_label = "velocity (m/s)";
  f.title = "velocity model at " + plane_name(c, sl) + " (sources and receivers projected onto it)";
  for (const Vec3& r : receivers)
    f.markers.push_back({coordinate(r, sl.qa), coordinate(r, sl.ra), io::Glyph::triangle});
  for (const Source& s : c.sources)
    f.markers.push_back(
        {coordinate(s.position, sl.qa), coordinate(s.position, sl.ra), io::Glyph::star});
  std::vector<io::LegendEntry> legend;
  if (!c.sources.empty())
    legend.push_back({io::Glyph::star, c.sources.size() > 1 ? "sources" : "source"});
  if (!receivers.empty())
    legend.push_back({io::Glyph::triangle, receivers.size() > 1 ? "receivers" : "receiver"});
  f.legend.insert(f.legend.begin(), legend.begin(), legend.end());
  return f;
}

std::string plain_pictures_warning(const Config& c) {
  if (io::figures_annotated()) return "";
  std::vector<std::string> files;
  if (c.model_png) files.push_back("model.png");
  if (c.seismogram_png) files.push_back("seismogram.png");
  if (c.snapshot_every > 0 && c.snapshot_png) files.push_back("snapshots/u_*.png");
  if (files.empty()) return "";
  std::string list;
  for (const std::string& f : files) list += (list.empty() ? "" : ", ") + f;
  return "this strata was built without cairo, so its pictures (" + list +
         ") are plain colour images without axes, colour bar or title; for annotated pictures of "
         "this run, "
         "run: python -m strata.plot " +
         c.out_dir +
         " (matplotlib), or rebuild strata with cairo "
         "(Debian/Ubuntu: apt-get install libcairo2-dev)";
}

// ---- the public helpers ----

ReceiverAxis receiver_axis(const std::vector<Vec3>& r, const std::vector<Source>& sources) {
  ReceiverAxis a;
  const std::size_t n = r.size();
  auto columns = [&] {
    a = {};
    for (std::size_t i = 0; i < n; ++i) a.values.push_back(double(i));
    a.label = "receiver (seismogram column)";
    return a;
  };
  if (n < 2) return columns();
  const double d[3] = {r[n - 1].x - r[0].x, r[n - 1].y - r[0].y, r[n - 1].z - r[0].z};
  const double len = std::sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
  if (!(len > 0)) return columns();
  const double u[3] = {d[0] / len, d[1] / len, d[2] / len};
  const Vec3 o = sources.empty() ? r[0] : sources[0].position;
  for (std::size_t i = 0; i < n; ++i) {
    const double e[3] = {r[i].x - r[0].x, r[i].y - r[0].y, r[i].z - r[0].z};
    const double along = e[0] * u[0] + e[1] * u[1] + e[2] * u[2];
    const double off2 =
        e[0] * e[0] + e[1] * e[1] + e[2] * e[2] - along * along;  // squared distance from the line
    if (off2 > 1e-12 * len * len) return columns();
    const double v = (r[i].x - o.x) * u[0] + (r[i].y - o.y) * u[1] + (r[i].z - o.z) * u[2];
    if (i > 0 && !(v > a.values.back() + 1e-9 * len))
      return columns();  // not in order along the line
    a.values.push_back(v);
  }
  a.metres = true;
  a.label = sources.empty()       ? "distance along the receiver line (m)"
            : sources.size() == 1 ? "offset from the source (m)"
                                  : "offset from the first source (m)";
  return a;
}

std::vector<Vec3> receiver_positions(const Config& cfg) { return expand_receivers(cfg); }

ModelSlice model_slice(const Config& c, int axis, std::optional<int> index) {
  const Slice sl(c, axis, index);
  ModelSlice m;
  m.axis = sl.axis;
  m.index = sl.index;
  m.cols = sl.w;
  m.rows = sl.h;
  m.velocity.resize(std::size_t(sl.w) * sl.h);
  auto at = [&](int x, int y, int z) -> double& {  // the pixel of grid point (x, y, z)
    const int p[3] = {x, y, z};
    return m.velocity[std::size_t(p[sl.ra]) * sl.w + std::size_t(p[sl.qa])];
  };
  if (c.model != ModelKind::npy) {  // one value per z plane
    const VelocityModel<double> v = load_velocity<double>(c);
    for (int r = 0; r < sl.h; ++r)
      for (int q = 0; q < sl.w; ++q) {
        int p[3];
        p[sl.axis] = sl.index, p[sl.qa] = q, p[sl.ra] = r;
        at(p[0], p[1], p[2]) = v.planes[std::size_t(p[2])];
      }
    return m;
  }
  inspect_model_file(c);
  std::array<int, 3> offset = {0, 0, 0};
  offset[std::size_t(sl.axis)] = sl.index;
  Extent box = c.shape;
  (sl.axis == 0 ? box.nx : sl.axis == 1 ? box.ny : box.nz) = 1;
  npy_read_box_rows<double>(
      c.model_file, offset, box, 256, [&](int z, int y, int rows, const double* v) {
        for (int j = 0; j < rows; ++j)
          for (int x = 0; x < box.nx; ++x)
            at(x + offset[0], y + j + offset[1], z + offset[2]) = v[std::size_t(j) * box.nx + x];
      });
  return m;
}

std::string picture_library() { return io::figure_library(); }

}  // namespace strata::wave

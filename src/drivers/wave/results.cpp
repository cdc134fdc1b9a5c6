// A finished wave run's results (results.hpp).
#include "drivers/wave/results.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "drivers/wave/pictures.hpp"
#include "io/figure.hpp"
#include "io/atomic_file.hpp"
#include "io/segy.hpp"
#include "strata/npy.hpp"

namespace strata::wave {

namespace {

std::string g(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.6g", v);
  return b;
}

}  // namespace

template <class T>
void write_seismogram_segy(const std::string& path, const Config& c, double dt,
                           const std::vector<Vec3>& receivers, const std::vector<T>& traces,
                           int rows, const SeismogramText& text) {
  const std::size_t nrec = receivers.size(), ns = std::size_t(rows);
  const Vec3 src = c.sources.empty() ? Vec3{} : c.sources[0].position;
  std::vector<io::segy::Trace> headers(nrec);
  std::vector<T> samples(nrec * ns);
  for (std::size_t r = 0; r < nrec; ++r) {
    io::segy::Trace& t = headers[r];
    const Vec3& rec = receivers[r];
    t.sequence_line = t.sequence_file = t.record_trace = int(r + 1);
    t.field_record = 1;
    t.offset = c.sources.empty() ? 0 : int(std::lround(std::hypot(rec.x - src.x, rec.y - src.y)));
    t.source_x = src.x, t.source_y = src.y, t.source_depth = src.z;
    t.group_x = rec.x, t.group_y = rec.y, t.group_elevation = -rec.z;
    for (std::size_t i = 0; i < ns; ++i) samples[r * ns + i] = traces[i * nrec + r];
  }
  io::segy::WriteOptions o;
  o.text = {text.what,
            text.columns,
            "sample 0 at t = 0; interval time.dt x receivers.every = " + g(dt) + " s x " +
                std::to_string(c.receiver_every),
            "grid " + c.shape.str() + ", h = " + g(c.spacing) + " m, order " +
                std::to_string(c.order) + ", " + to_string(c.precision) +
                (c.precision == Precision::f64 ? " (stored as float32)" : ""),
            "coordinates in metres; z is depth below the grid's top (z = 0, the datum):",
            "  source depth (bytes 49-52) = z, receiver elevation (bytes 41-44) = -z,",
            "  offset (37-40) = horizontal source-receiver distance, whole metres",
            std::to_string(c.sources.size()) + " source(s); the headers give the first:"};
  for (std::size_t s = 0; s < c.sources.size() && s < 20; ++s) {
    const Source& q = c.sources[s];
    o.text.push_back("  (" + g(q.position.x) + ", " + g(q.position.y) + ", " + g(q.position.z) +
                     ") m, Ricker " + g(q.frequency) + " Hz, amplitude " + g(q.amplitude));
  }
  if (c.sources.size() > 20)
    o.text.push_back("  ... and " + std::to_string(c.sources.size() - 20) + " more (config.json)");
  o.text.push_back(text.configuration);
  for (std::string& line : o.text)
    line.resize(std::min<std::size_t>(line.size(), 76));  // a card's width
  io::segy::write<T>(path, headers, samples, dt * c.receiver_every, o);
}

template void write_seismogram_segy(const std::string&, const Config&, double,
                                    const std::vector<Vec3>&, const std::vector<float>&, int,
                                    const SeismogramText&);
template void write_seismogram_segy(const std::string&, const Config&, double,
                                    const std::vector<Vec3>&, const std::vector<double>&, int,
                                    const SeismogramText&);

template <class T>
void write_results(const Config& c, const Plan& p, const std::vector<T>& traces, int rows,
                   OutputList& out) {
  const int nrec = int(p.receivers.size());
  if (nrec > 0) {
    const std::size_t shape[2] = {std::size_t(rows), std::size_t(nrec)};
    const std::string seis = path_join(c.out_dir, "seismogram.npy");
    npy_write<T>(seis, traces, shape);
    out.wrote(seis);
    std::vector<double> xyz;
    for (const Vec3& r : p.receivers) xyz.insert(xyz.end(), {r.x, r.y, r.z});
    const std::size_t rshape[2] = {std::size_t(nrec), 3};
    const std::string recs = path_join(c.out_dir, "receivers.npy");
    npy_write<double>(recs, xyz, rshape);
    out.wrote(recs);
    if (c.segy) {
      const std::string sgy = path_join(c.out_dir, "seismogram.sgy");
      write_seismogram_segy(
          sgy, c, p.dt, p.receivers, traces, rows,
          {"strata wave: acoustic pressure u (arbitrary units, the sources' amplitudes)",
           "one trace per receiver: seismogram.npy's columns, receivers.npy's rows",
           "the whole configuration: config.json beside this file"});
      out.wrote(sgy);
    }
    if (c.seismogram_png) {
      const std::string png = path_join(c.out_dir, "seismogram.png");
      io::write_png(
          png, io::draw(seismogram_figure(c, p.receivers, traces, rows, p.dt * c.receiver_every)));
      out.wrote(png);
    }
  }

  // The configuration goes with the results it produced (an interrupted run leaves none).
  const std::string path = path_join(c.out_dir, "config.json");
  const std::string text = to_json(c) + "\n";
  io::AtomicFile f(path);
  f.write(text.data(), text.size());
  f.commit();
  out.wrote(path);
}

template void write_results(const Config&, const Plan&, const std::vector<float>&, int,
                            OutputList&);
template void write_results(const Config&, const Plan&, const std::vector<double>&, int,
                            OutputList&);

}  // namespace strata::wave

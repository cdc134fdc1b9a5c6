// A finished wave run's results (results.hpp).
#include "drivers/wave/results.hpp"

#include "drivers/wave/pictures.hpp"
#include "io/figure.hpp"
#include "io/atomic_file.hpp"
#include "strata/npy.hpp"

namespace strata::wave {

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

// The pictures of a wave run as io::Figure: a snapshot slice of u, the seismogram, and the
// model with its sources and receivers, each with axes in metres (or offset and time), a
// colour bar naming its quantity and a title. The run's pieces fill and write them
// (run_directory.cpp, snapshots.cpp, results.cpp); io/figure.hpp draws them (annotated
// with cairo, else the raster alone, which plain_pictures_warning says once per run). Owns
// what the pictures show; no file I/O but the model's plane (model_slice).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "io/figure.hpp"
#include "strata/wave.hpp"

namespace strata::wave {

// The plane a picture shows: normal to `axis` at grid `index`; across it runs axis `qa`
// (x, or y when axis is x), down it axis `ra` (z, or y when axis is z); w x h points.
struct Slice {
  int axis = 1, index = 0, qa = 0, ra = 2, w = 0, h = 0;
  Slice(const Config& c, int axis, std::optional<int> index);
  explicit Slice(const Config& c) : Slice(c, c.png_axis, c.png_index) {}  // output.png's plane
};

// u on the slice (h x w, row 0 at the top), at step `step`, time `time` (s).
io::Figure snapshot_figure(const Config& c, const Slice& sl, std::vector<double> u, int step,
                           double time);
// The seismogram: `traces` is rows x receivers (row r at time r * sample_interval).
template <class T>
io::Figure seismogram_figure(const Config& c, const std::vector<Vec3>& receivers,
                             const std::vector<T>& traces, int rows, double sample_interval);
// The velocity on output.png's plane, with the sources and receivers (projected onto it).
io::Figure model_figure(const Config& c, const std::vector<Vec3>& receivers);

// What a run says once when its pictures cannot be annotated (strata built without cairo)
// and it writes some; "" otherwise.
std::string plain_pictures_warning(const Config& c);

}  // namespace strata::wave

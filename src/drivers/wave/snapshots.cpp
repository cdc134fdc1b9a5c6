// A wave run's snapshots (snapshots.hpp).
#include "drivers/wave/snapshots.hpp"

#include <algorithm>
#include <cstdio>

#include "drivers/wave/pictures.hpp"
#include "io/figure.hpp"
#include "io/npy_box.hpp"
#include "io/vti.hpp"
#include "parallel/global_file.hpp"
#include "strata/npy.hpp"

namespace strata::wave {

namespace {

std::string step_name(int step, int last) {
  const int width = std::max(6, int(std::to_string(last).size()));
  char b[32];
  std::snprintf(b, sizeof b, "u_%0*d", width, step);
  return b;
}

// The slice's values in one box of the grid (dense u of that box at `offset`), as rows of
// (q, r) pixels: q0, r0, width, height, then the values, x fastest. Empty where the box
// does not meet the slice.
template <class T>
std::vector<double> slice_part(const std::vector<T>& u, Extent box, std::array<int, 3> offset,
                               const Slice& sl) {
  const int ax = sl.axis, lo = offset[ax], len[3] = {box.nx, box.ny, box.nz};
  if (sl.index < lo || sl.index >= lo + len[ax]) return {};
  const int qa = ax == 0 ? 1 : 0, ra = ax == 2 ? 1 : 2;  // the axes along q and r
  const int qw = len[qa], rh = len[ra];
  std::vector<double> out = {double(offset[qa]), double(offset[ra]), double(qw), double(rh)};
  for (int r = 0; r < rh; ++r)
    for (int q = 0; q < qw; ++q) {
      int p[3];
      p[ax] = sl.index - lo, p[qa] = q, p[ra] = r;
      out.push_back(double(u[(std::size_t(p[2]) * box.ny + p[1]) * box.nx + p[0]]));
    }
  return out;
}

// The snapshot picture from the slice's parts (slice_part of each rank's box).
void write_slice_png(const std::string& path, const std::vector<std::vector<double>>& parts,
                     const Slice& sl, const Config& c, int step, double time) {
  std::vector<double> s(std::size_t(sl.w) * sl.h);
  for (const std::vector<double>& part : parts) {
    if (part.empty()) continue;
    const int q0 = int(part[0]), r0 = int(part[1]), qw = int(part[2]), rh = int(part[3]);
    for (int r = 0; r < rh; ++r)
      std::copy_n(part.begin() + 4 + std::ptrdiff_t(r) * qw, qw,
                  s.begin() + std::ptrdiff_t(r0 + r) * sl.w + q0);
  }
  io::write_png(path, io::draw(snapshot_figure(c, sl, std::move(s), step, time)));
}

}  // namespace

SnapshotWriter::SnapshotWriter(const Config& c, const Partition* part, const Ranks& ranks,
                               OutputList& out)
    : c_(c), part_(part), ranks_(ranks), out_(out), dir_(path_join(c.out_dir, "snapshots")) {}

template <class T>
void SnapshotWriter::write(const std::vector<T>& u, int n, double t) {
  const Config& c = c_;
  const std::string base = path_join(dir_, step_name(n, c.steps));
  const std::size_t shape[3] = {std::size_t(c.shape.nz), std::size_t(c.shape.ny),
                                std::size_t(c.shape.nx)};
  const double o = 0.5 * c.spacing;
  if (part_) {
    if (c.snapshot_npy) {
      dist::global_file::write(base + ".npy", npy_preamble(precision_of<T>, shape, base + ".npy"),
                               "", part_->box, u.data(), sizeof(T));
      out_.wrote(base + ".npy");
    }
    if (c.snapshot_vti) {
      dist::global_file::write(base + ".vti", io::vti_head<T>(c.shape, {o, o, o}, c.spacing, "u"),
                               io::vti_tail(), part_->box, u.data(), sizeof(T));
      out_.wrote(base + ".vti");
    }
  } else {
    if (c.snapshot_npy) npy_write<T>(base + ".npy", u, shape), out_.wrote(base + ".npy");
    if (c.snapshot_vti)
      io::write_vti<T>(base + ".vti", u, c.shape, {o, o, o}, c.spacing, "u"),
          out_.wrote(base + ".vti");
  }
  if (c.snapshot_png) {
    const Slice sl(c);
    const Extent box = part_ ? part_->box.local : c.shape;
    const auto parts = ranks_.gather(
        slice_part(u, box, part_ ? part_->box.offset : std::array<int, 3>{0, 0, 0}, sl));
    ranks_.on_root([&] { write_slice_png(base + ".png", parts, sl, c, n, t); });
    out_.wrote(base + ".png");
  }
}

template void SnapshotWriter::write(const std::vector<float>&, int, double);
template void SnapshotWriter::write(const std::vector<double>&, int, double);

}  // namespace strata::wave

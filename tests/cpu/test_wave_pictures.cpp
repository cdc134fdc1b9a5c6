// What the wave run's pictures show: the seismogram's offsets measured from the source
// (quick.json's line: -150..+150 m), the column number where receivers are not a line in
// order; the model's plane from constant, layered and .npy models (only that plane read);
// each figure's axes, colour bar and title; and the PNGs a run writes drawn as annotated
// figures, or said once to be plain in a build without cairo.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <string>

#include "common/wave_cases.hpp"
#include "io/figure.hpp"
#include "drivers/wave/pictures.hpp"
#include "strata/npy.hpp"

using namespace strata;

namespace {

std::vector<wave::Vec3> quick_line() {  // examples/wave/quick.json's 31 receivers
  std::vector<wave::Vec3> r;
  for (int i = 0; i < 31; ++i) r.push_back({170.0 + 10 * i, 320, 20});
  return r;
}

wave::Config picture_config(const std::string& out) {
  wave::Config c = test::wave_config({24, 10, 16}, 4, Precision::f32, "cpu");
  c.spacing = 10;
  c.velocity = 2000;
  c.faces = {wave::FaceKind::pml, wave::FaceKind::pml,  wave::FaceKind::pml,
             wave::FaceKind::pml, wave::FaceKind::free, wave::FaceKind::pml};
  c.pml_width = 4;
  c.sources = {{{120, 50, 40}, 40, 1, std::nullopt}};
  c.receiver_lines = {{{60, 50, 20}, {180, 50, 20}, 7}};
  c.steps = 20;
  c.snapshot_every = 10;
  c.snapshot_npy = c.snapshot_vti = false;
  c.seismogram_png = c.model_png = true;
  c.out_dir = out;
  return c;
}

}  // namespace

TEST(WavePictures, OffsetsAreMeasuredFromTheSource) {
  const wave::ReceiverAxis a =
      wave::receiver_axis(quick_line(), {{{320, 320, 60}, 12, 1, std::nullopt}});
  ASSERT_EQ(a.values.size(), 31u);
  EXPECT_TRUE(a.metres);
  EXPECT_DOUBLE_EQ(a.values.front(), -150);
  EXPECT_DOUBLE_EQ(a.values[15], 0);
  EXPECT_DOUBLE_EQ(a.values.back(), 150);
  EXPECT_EQ(a.label, "offset from the source (m)");
  // Without a source, from the first receiver; a line laid from its far end runs the other way.
  const wave::ReceiverAxis bare = wave::receiver_axis(quick_line(), {});
  EXPECT_DOUBLE_EQ(bare.values.front(), 0);
  EXPECT_DOUBLE_EQ(bare.values.back(), 300);
  EXPECT_EQ(bare.label, "distance along the receiver line (m)");
  auto reversed = quick_line();
  std::reverse(reversed.begin(), reversed.end());
  const wave::ReceiverAxis back =
      wave::receiver_axis(reversed, {{{320, 320, 60}, 12, 1, std::nullopt}});
  EXPECT_DOUBLE_EQ(back.values.front(), -150);  // offsets along the line's own direction
  EXPECT_DOUBLE_EQ(back.values.back(), 150);
}

TEST(WavePictures, ReceiversNotInALineAreNumbered) {
  const std::vector<wave::Source> s = {{{0, 0, 0}, 10, 1, std::nullopt}};
  for (const std::vector<wave::Vec3>& r :
       {std::vector<wave::Vec3>{{0, 0, 0}, {10, 0, 0}, {10, 10, 0}},  // a corner
        std::vector<wave::Vec3>{{0, 0, 0}, {20, 0, 0}, {10, 0, 0}},   // out of order
        std::vector<wave::Vec3>{{5, 5, 5}}}) {
    const wave::ReceiverAxis a = wave::receiver_axis(r, s);
    EXPECT_FALSE(a.metres);
    EXPECT_EQ(a.label, "receiver (seismogram column)");
    ASSERT_EQ(a.values.size(), r.size());
    EXPECT_DOUBLE_EQ(a.values.back(), double(r.size() - 1));
  }
}

TEST(WavePictures, ModelSliceOfLayeredAndNpyModels) {
  wave::Config c = picture_config("unused");
  c.model = wave::ModelKind::layered;
  c.layers = {{0, 1500}, {55, 2500}};
  const wave::ModelSlice y = wave::model_slice(c, 1, std::nullopt);
  EXPECT_EQ(y.index, 5);
  ASSERT_EQ(y.cols, 24);
  ASSERT_EQ(y.rows, 16);
  EXPECT_EQ(y.velocity[0], 1500);           // depth 5 m
  EXPECT_EQ(y.velocity[4 * 24 + 3], 1500);  // depth 45 m
  EXPECT_EQ(y.velocity[5 * 24 + 3], 2500);  // depth 55 m: the cell centre (k + 1/2) h is the top
  // A .npy model: v = 1000 + x + 100 y + 10000 z (grid indices); a z plane reads (x, y).
  test::TempDir dir("wave-pictures");
  std::vector<double> v;
  for (int z = 0; z < 16; ++z)
    for (int yy = 0; yy < 10; ++yy)
      for (int x = 0; x < 24; ++x) v.push_back(1000 + x + 100 * yy + 10000 * z);
  const std::size_t shape[3] = {16, 10, 24};
  c.model = wave::ModelKind::npy;
  c.model_file = dir / "v.npy";
  npy_write<double>(c.model_file, v, shape);
  const wave::ModelSlice z = wave::model_slice(c, 2, 3);
  ASSERT_EQ(z.cols, 24);
  ASSERT_EQ(z.rows, 10);
  EXPECT_EQ(z.velocity[7 * 24 + 11], 1000 + 11 + 700 + 30000);
  const wave::ModelSlice x = wave::model_slice(c, 0, 2);  // across: y, down: z
  ASSERT_EQ(x.cols, 10);
  ASSERT_EQ(x.rows, 16);
  EXPECT_EQ(x.velocity[4 * 10 + 6], 1000 + 2 + 600 + 40000);
  c.shape = {24, 10, 17};
  EXPECT_THROW(wave::model_slice(c, 1, std::nullopt), Error);  // the file's shape is not the grid's
}

TEST(WavePictures, FiguresNameTheirAxesQuantityAndMoment) {
  const wave::Config c = picture_config("unused");
  const wave::Slice sl(c);
  const io::Figure s =
      wave::snapshot_figure(c, sl, std::vector<double>(sl.w * sl.h, 0.5), 10, 0.0125);
  EXPECT_EQ(s.x_label, "x (m)");
  EXPECT_EQ(s.y_label, "depth z (m)");
  EXPECT_EQ(s.colour_label, "u (pressure, arbitrary units)");
  EXPECT_EQ(s.title, "u at y = 55 m, step 10, t = 0.0125 s");
  EXPECT_DOUBLE_EQ(s.x_edges.back(), 240);
  EXPECT_DOUBLE_EQ(s.y_bottom, 160);
  ASSERT_EQ(s.outlines.size(), 1u);  // inside the layers: x 40..200 m, z 0 (free top)..120 m
  EXPECT_DOUBLE_EQ(s.outlines[0].x0, 40);
  EXPECT_DOUBLE_EQ(s.outlines[0].y0, 0);
  EXPECT_DOUBLE_EQ(s.outlines[0].x1, 200);
  EXPECT_DOUBLE_EQ(s.outlines[0].y1, 120);

  const std::vector<wave::Vec3> rec = wave::receiver_positions(c);
  const std::vector<float> traces(21 * rec.size(), 1.0f);
  const io::Figure g = wave::seismogram_figure(c, rec, traces, 21, 0.001);
  EXPECT_EQ(g.x_label, "offset from the source (m)");
  EXPECT_DOUBLE_EQ(g.x_edges.front(), -70);  // receivers at -60..+60 m, 20 m apart
  EXPECT_DOUBLE_EQ(g.x_edges.back(), 70);
  EXPECT_EQ(g.y_label, "time (s)");
  EXPECT_DOUBLE_EQ(g.y_bottom, 0.0205);
  EXPECT_NE(g.title.find("source at (120, 50, 40) m"), std::string::npos) << g.title;

  const io::Figure m = wave::model_figure(c, rec);
  EXPECT_EQ(m.colour_label, "velocity (m/s)");
  EXPECT_LT(m.lo, 2000);  // a constant model: a range about its value
  EXPECT_GT(m.hi, 2000);
  ASSERT_EQ(m.markers.size(), rec.size() + 1);
  EXPECT_EQ(m.markers.back().glyph, io::Glyph::star);
  EXPECT_DOUBLE_EQ(m.markers.back().x, 120);
  EXPECT_DOUBLE_EQ(m.markers.back().y, 40);
  EXPECT_EQ(m.legend.size(), 3u);  // source, receivers, the absorbing layers
}

TEST(WavePictures, ARunDrawsItsPicturesOrSaysOnceThatItCannot) {
  test::TempDir dir("wave-pictures");
  const wave::Config c = picture_config(dir / "out");
  std::vector<std::string> warnings;
  wave::RunOptions o;
  o.on_warning = [&](const std::string& w) { warnings.push_back(w); };
  const wave::Report r = wave::run(c, o);
  for (const std::string f :
       {"model.png", "seismogram.png", "snapshots/u_000010.png", "snapshots/u_000020.png"})
    EXPECT_NE(std::find(r.outputs.begin(), r.outputs.end(), dir / ("out/" + f)), r.outputs.end())
        << f;
  const auto plain = std::count_if(warnings.begin(), warnings.end(), [](const std::string& w) {
    return w.find("python -m strata.plot") != std::string::npos &&
           w.find("cairo") != std::string::npos;
  });
  EXPECT_EQ(plain, io::figures_annotated() ? 0 : 1)
      << "a build without cairo says once that its pictures are plain";
  // The PNG's size is the annotated figure's (the raster alone would be 24 x 16 cells scaled).
  std::ifstream png(dir / "out/model.png", std::ios::binary);
  unsigned char head[24] = {};
  png.read(reinterpret_cast<char*>(head), 24);
  const int width = head[16] << 24 | head[17] << 16 | head[18] << 8 | head[19];
  const int height = head[20] << 24 | head[21] << 16 | head[22] << 8 | head[23];
  const io::FigureLayout l = io::layout(wave::model_figure(c, wave::receiver_positions(c)));
  if (io::figures_annotated()) {
    EXPECT_EQ(width, l.width);
    EXPECT_EQ(height, l.height);
  } else {
    EXPECT_EQ(width, 24 * (512 / 24));
  }
}

// io/figure: an annotated picture puts each part where its layout says: the raster in the
// plot (cells of any width in their place), a colour bar that runs through the colour map,
// text in the title and axis-label bands (and nothing there when the labels are empty), the
// markers; with any sans-serif font and with cairo's built-in one. Without cairo the
// raster alone is drawn, and figures_annotated() says so.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>

#include "io/figure.hpp"
#include "strata/error.hpp"

using namespace strata;

namespace {

// 40 x 20 cells over 400 m x 200 m: the left half at the colour range's bottom, the right
// half at its top.
io::Figure halves() {
  io::Figure f;
  f.cols = 40;
  f.rows = 20;
  for (int r = 0; r < f.rows; ++r)
    for (int q = 0; q < f.cols; ++q) f.values.push_back(q < 20 ? -1.0 : 1.0);
  f.x_edges = io::even_edges(0, 400, f.cols);
  f.y_top = 0;
  f.y_bottom = 200;
  f.title = "u at y = 5 m, step 10, t = 0.01 s";
  f.x_label = "x (m)";
  f.y_label = "depth z (m)";
  f.colour_label = "u (pressure, arbitrary units)";
  return f;
}

std::array<unsigned char, 3> pixel(const io::Image& im, int x, int y) {
  const unsigned char* p = im.rgb.data() + (std::size_t(y) * im.width + x) * 3;
  return {p[0], p[1], p[2]};
}

int distance(std::array<unsigned char, 3> a, std::array<unsigned char, 3> b) {
  return std::abs(a[0] - b[0]) + std::abs(a[1] - b[1]) + std::abs(a[2] - b[2]);
}

// Pixels of text (dark and grey: black glyphs, anti-aliased) in a rectangle.
int dark_pixels(const io::Image& im, const io::Rect& r) {
  int n = 0;
  for (int y = r.y; y < r.y + r.h; ++y)
    for (int x = r.x; x < r.x + r.w; ++x) {
      const auto p = pixel(im, x, y);
      const int hi = std::max({p[0], p[1], p[2]}), lo = std::min({p[0], p[1], p[2]});
      n += hi < 110 && hi - lo < 30;
    }
  return n;
}

#define REQUIRE_CAIRO() \
  if (!io::figures_annotated()) GTEST_SKIP() << "built without cairo: pictures are not annotated"

}  // namespace

TEST(Figure, LayoutKeepsMetresSquareAndLeavesRoomForTheAnnotations) {
  const io::FigureLayout l = io::layout(halves());
  EXPECT_EQ(l.plot.w, 520);
  EXPECT_EQ(l.plot.h, 260);  // 400 m x 200 m: as long across as down
  EXPECT_GT(l.plot.x, 40) << "no room for the y axis's ticks and title";
  EXPECT_GT(l.height - (l.plot.y + l.plot.h), 40) << "no room for the x axis's ticks and title";
  EXPECT_GE(l.colour_bar.x, l.plot.x + l.plot.w);
  EXPECT_GE(l.width, l.colour_bar.x + l.colour_bar.w + 60)
      << "no room for the colour bar's ticks and title";
  EXPECT_GT(l.plot.y, 20) << "no room for the title";
}

TEST(Figure, RefusesPartsThatDoNotFit) {
  io::Figure f = halves();
  f.x_edges.pop_back();
  EXPECT_THROW(io::layout(f), Error);
  f = halves();
  f.hi = f.lo;
  EXPECT_THROW(io::draw(f), Error);
}

TEST(Figure, DrawsTheRasterColourBarAndTextWhereTheLayoutSays) {
  REQUIRE_CAIRO();
  const io::Figure f = halves();
  const io::FigureLayout l = io::layout(f);
  const io::Image im = io::draw(f);
  ASSERT_EQ(im.width, l.width);
  ASSERT_EQ(im.height, l.height);
  const io::Rect& p = l.plot;
  // The raster: lo on the left, hi on the right.
  EXPECT_LE(distance(pixel(im, p.x + p.w / 4, p.y + p.h / 2), io::colour(f.map, 0)), 3);
  EXPECT_LE(distance(pixel(im, p.x + 3 * p.w / 4, p.y + p.h / 2), io::colour(f.map, 1)), 3);
  // The colour bar runs through the map, hi at the top.
  const io::Rect& b = l.colour_bar;
  for (double t : {0.05, 0.25, 0.5, 0.75, 0.95}) {
    const int y = b.y + int((1 - t) * b.h);
    EXPECT_LE(distance(pixel(im, b.x + b.w / 2, y), io::colour(f.map, t)), 12)
        << "colour bar at " << t;
  }
  // Text in the title, the axes' titles, the colour bar's title, and the tick labels below
  // and left of the plot and right of the colour bar.
  EXPECT_GT(dark_pixels(im, l.title), 40) << "no title";
  EXPECT_GT(dark_pixels(im, l.x_label), 20) << "no x axis title";
  EXPECT_GT(dark_pixels(im, l.y_label), 20) << "no y axis title";
  EXPECT_GT(dark_pixels(im, l.colour_label), 40) << "no colour bar title";
  EXPECT_GT(dark_pixels(im, {p.x, p.y + p.h + 6, p.w, 18}), 30) << "no x tick labels";
  EXPECT_GT(dark_pixels(im, {30, p.y, p.x - 36, p.h}), 30) << "no y tick labels";
  EXPECT_GT(dark_pixels(im, {b.x + b.w + 6, b.y, 60, b.h}), 30) << "no colour bar tick labels";
}

TEST(Figure, EmptyLabelsLeaveTheirBandsBlank) {
  REQUIRE_CAIRO();  // so the text found above is the labels', not something else drawn there
  io::Figure f = halves();
  f.title = f.x_label = f.y_label = f.colour_label = "";
  const io::FigureLayout l = io::layout(f);
  const io::Image im = io::draw(f);
  EXPECT_EQ(dark_pixels(im, l.title), 0);
  EXPECT_EQ(dark_pixels(im, l.x_label), 0);
  EXPECT_EQ(dark_pixels(im, l.colour_label), 0);
}

TEST(Figure, TextNeedsNoParticularFontFile) {
  REQUIRE_CAIRO();
  EXPECT_FALSE(io::figure_font().empty());
  const io::Figure f = halves();
  const io::FigureLayout l = io::layout(f);
  for (const std::string& font :
       {std::string("@cairo:sans-serif"), io::figure_font(), std::string("no such font")}) {
    const io::Image im = io::draw(f, font);
    EXPECT_GT(dark_pixels(im, l.title), 40) << font;
    EXPECT_GT(dark_pixels(im, l.colour_label), 40) << font;
  }
}

TEST(Figure, CellsOfDifferentWidthsAndMarkersAreDrawnInPlace) {
  REQUIRE_CAIRO();
  io::Figure f;
  f.cols = 2;
  f.rows = 1;
  f.values = {-1.0, 1.0};
  f.x_edges = {-150, 120, 150};  // the first column 90% of the width
  f.y_top = 0;
  f.y_bottom = 0.5;
  f.equal_aspect = false;
  f.markers = {{-100, 0.25, io::Glyph::star}};
  f.legend = {{io::Glyph::star, "source"}};
  const io::FigureLayout l = io::layout(f);
  const io::Image im = io::draw(f);
  const io::Rect& p = l.plot;
  EXPECT_LE(distance(pixel(im, p.x + int(0.85 * p.w), p.y + p.h / 4), io::colour(f.map, 0)), 3);
  EXPECT_LE(distance(pixel(im, p.x + int(0.95 * p.w), p.y + p.h / 4), io::colour(f.map, 1)), 3);
  const int sx = p.x + int(50.0 / 300 * p.w), sy = p.y + p.h / 2;  // the star at x = -100
  EXPECT_LE(distance(pixel(im, sx, sy), {227, 26, 28}), 6) << "no source marker where it belongs";
  EXPECT_GT(l.height, p.y + p.h + 60) << "no row for the legend";
}

TEST(Figure, WithoutCairoTheRasterAloneIsDrawn) {
  if (io::figures_annotated()) GTEST_SKIP() << "built with cairo";
  EXPECT_TRUE(io::figure_library().empty());
  const io::Image im = io::draw(halves());
  EXPECT_EQ(im.width, 40 * (512 / 40));
  EXPECT_EQ(im.height, 20 * (512 / 20));
}

// Annotated pictures of 2D data: a raster placed in physical coordinates, with framed axes,
// tick labels and axis titles, a colour bar that names its quantity, a title, markers and
// dashed outlines. Drawn with cairo (text through fontconfig and FreeType, any sans-serif
// font, else cairo's built-in one) when strata is built with it; cairo is optional, and
// without it only the raster is drawn: figures_annotated() says which, so that a caller
// can tell the user how to get annotated pictures.
#pragma once

#include <string>
#include <vector>

#include "io/colormap.hpp"
#include "io/png.hpp"

namespace strata::io {

enum class Glyph { star, triangle, dashed };  // markers, and the dashed outline in a legend

struct Marker {
  double x = 0, y = 0;  // data coordinates
  Glyph glyph = Glyph::star;
};

struct Outline {
  double x0 = 0, y0 = 0, x1 = 0, y1 = 0;  // data coordinates of two opposite corners
};

struct LegendEntry {
  Glyph glyph = Glyph::star;
  std::string text;
};

struct Figure {
  // The raster: rows x cols values, row-major, row 0 at the top; NaN is drawn black.
  std::vector<double> values;
  int cols = 0, rows = 0;
  // Data coordinates of the column edges (cols + 1 values, increasing: column i spans
  // x_edges[i]..x_edges[i + 1], so columns may differ in width) and of the raster's top
  // and bottom edges (the vertical axis grows downwards: depth, time).
  std::vector<double> x_edges;
  double y_top = 0, y_bottom = 1;
  Colormap map = Colormap::seismic;
  double lo = -1, hi = 1;  // the colour range: lo at the map's start, hi at its end
  std::string title, x_label, y_label, colour_label;
  bool equal_aspect = true;  // a data unit as long across as down (metres on both axes)
  std::vector<Marker> markers;
  std::vector<Outline> outlines;  // drawn dashed
  std::vector<LegendEntry> legend;
};

// cols + 1 edges evenly spaced from lo to hi.
std::vector<double> even_edges(double lo, double hi, int cols);

struct Rect {
  int x = 0, y = 0, w = 0, h = 0;
};

// Where an annotated figure puts its parts, in pixels of the whole picture.
struct FigureLayout {
  int width = 0, height = 0;
  Rect plot, colour_bar, title, x_label, y_label, colour_label;
};
FigureLayout layout(const Figure& f);

// Whether draw() annotates (strata was built with cairo), and the library that does it
// ("cairo 1.16.0"; "" without).
bool figures_annotated();
std::string figure_library();
// The font family draw() uses by default: "sans-serif" when fontconfig finds one that
// draws, else cairo's built-in "@cairo:sans-serif" (no font file needed).
std::string figure_font();

// The picture: annotated as `layout` says (text in `font`, default figure_font()), or
// without cairo the raster alone, enlarged by whole pixels to about 512 pixels.
Image draw(const Figure& f, const std::string& font = "");

// Refuses a figure whose parts do not fit together (sizes, edges, colour range).
void check(const Figure& f);

}  // namespace strata::io

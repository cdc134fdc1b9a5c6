// Figures (see figure.hpp). The raster is resampled here to the plot's pixels (each pixel
// takes the value of the cell under its centre), so cells of any width are exact and no
// filter blurs or seams them; cairo then draws the frame, ticks, text, colour bar and
// markers around it. Tick values are 1-2-5 steps. Built without cairo (STRATA_HAVE_CAIRO
// unset), draw() returns the raster alone.
#include "io/figure.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdint>
#include <cstring>
#include <numbers>

#include "strata/error.hpp"

#if STRATA_HAVE_CAIRO
#include <cairo.h>
#endif

namespace strata::io {

std::vector<double> even_edges(double lo, double hi, int cols) {
  std::vector<double> e(std::size_t(cols) + 1);
  for (int i = 0; i <= cols; ++i) e[std::size_t(i)] = lo + (hi - lo) * i / cols;
  return e;
}

void check(const Figure& f) {
  require(f.cols > 0 && f.rows > 0 && f.values.size() == std::size_t(f.cols) * f.rows,
          "figure: " + std::to_string(f.values.size()) + " values for " + std::to_string(f.rows) +
              " x " + std::to_string(f.cols));
  require(f.x_edges.size() == std::size_t(f.cols) + 1, "figure: x_edges needs cols + 1 values");
  for (std::size_t i = 1; i < f.x_edges.size(); ++i)
    require(f.x_edges[i] > f.x_edges[i - 1], "figure: x_edges must increase");
  require(std::isfinite(f.y_top) && std::isfinite(f.y_bottom) && f.y_bottom != f.y_top,
          "figure: the raster's top and bottom must differ");
  require(std::isfinite(f.lo) && std::isfinite(f.hi) && f.hi > f.lo,
          "figure: the colour range must be lo < hi");
}

namespace {

constexpr int kLongSide = 520;  // the plot's longer side (pixels)
constexpr int kShortMin = 160;  // its shorter side at least (a thin slab still reads)
constexpr int kLeft = 84, kTop = 40, kBottom = 52, kLegend = 24;
constexpr int kBarGap = 18, kBarWidth = 20, kBarRight = 96;  // bar, tick labels, its title
constexpr double kTick = 11, kLabel = 13, kTitle = 14;       // font sizes (pixels)

// The plot's size in pixels for the data extents.
std::pair<int, int> plot_size(const Figure& f) {
  const double w = f.x_edges.back() - f.x_edges.front(), h = std::fabs(f.y_bottom - f.y_top);
  if (!f.equal_aspect) return {kLongSide, 440};
  const double s = kLongSide / std::max(w, h);
  return {std::clamp(int(std::lround(w * s)), kShortMin, kLongSide),
          std::clamp(int(std::lround(h * s)), kShortMin, kLongSide)};
}

}  // namespace

FigureLayout layout(const Figure& f) {
  check(f);
  const auto [pw, ph] = plot_size(f);
  FigureLayout l;
  l.plot = {kLeft, kTop, pw, ph};
  l.colour_bar = {kLeft + pw + kBarGap, kTop, kBarWidth, ph};
  l.width = l.colour_bar.x + kBarWidth + kBarRight;
  l.height = kTop + ph + kBottom + (f.legend.empty() ? 0 : kLegend);
  l.title = {0, 0, l.width, kTop - 6};
  l.x_label = {kLeft, kTop + ph + 26, pw, kBottom - 26};
  l.y_label = {0, kTop, 24, ph};
  l.colour_label = {l.width - 26, kTop, 26, ph};
  return l;
}

namespace {

// Up to about `most` tick values in [lo, hi] at 1, 2 or 5 times a power of ten.
std::vector<double> ticks(double lo, double hi, int most) {
  if (hi < lo) std::swap(lo, hi);
  const double raw = (hi - lo) / std::max(1, most);
  if (!(raw > 0) || !std::isfinite(raw)) return {lo};
  const double p = std::pow(10.0, std::floor(std::log10(raw)));
  double step = 10 * p;
  for (double m : {1.0, 2.0, 5.0})
    if (m * p >= raw) {
      step = m * p;
      break;
    }
  std::vector<double> t;
  for (double v = std::ceil(lo / step - 1e-9) * step; v <= hi + step * 1e-9; v += step)
    t.push_back(std::fabs(v) < step * 1e-9 ? 0.0 : v);
  return t;
}

// A tick value with the digits its step needs: 250, 0.125, 2.5e-07.
std::string tick_text(double v, double step) {
  char b[32];
  const double big = std::max(std::fabs(v), step);
  if (big >= 1e5 || big < 1e-3) {
    const int digits = std::max(1, int(std::ceil(std::log10(big / step) - 1e-9)) + 1);
    std::snprintf(b, sizeof b, "%.*g", digits, v);
  } else {
    const int decimals = std::max(0, int(std::ceil(-std::log10(step) - 1e-9)));
    std::snprintf(b, sizeof b, "%.*f", decimals, v);
  }
  return b;
}

std::size_t column_of(const std::vector<double>& edges, double x) {
  const auto it = std::upper_bound(edges.begin(), edges.end(), x);
  return std::size_t(
      std::clamp<std::ptrdiff_t>(it - edges.begin() - 1, 0, std::ptrdiff_t(edges.size()) - 2));
}

std::array<unsigned char, 3> colour_of(const Figure& f, double v) {
  if (std::isnan(v)) return {0, 0, 0};
  return colour(f.map, (v - f.lo) / (f.hi - f.lo));
}

}  // namespace

#if STRATA_HAVE_CAIRO

namespace {

struct Painter {
  cairo_t* cr;
  std::string font;

  void font_size(double px) {
    cairo_select_font_face(cr, font.c_str(), CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
    cairo_set_font_size(cr, px);
  }
  // Text at (x, y) aligned by ax (0 left, 0.5 centre, 1 right) and ay (0 top, 0.5 middle,
  // 1 baseline-ish bottom), turned by `angle` (radians) about that point.
  void text(const std::string& s, double x, double y, double ax, double ay, double px,
            double angle = 0) {
    font_size(px);
    cairo_text_extents_t e;
    cairo_text_extents(cr, s.c_str(), &e);
    cairo_save(cr);
    cairo_translate(cr, x, y);
    cairo_rotate(cr, angle);
    cairo_move_to(cr, -e.x_bearing - ax * e.width, -e.y_bearing - ay * e.height);
    cairo_show_text(cr, s.c_str());
    cairo_restore(cr);
  }
  void rgb(double r, double g, double b) { cairo_set_source_rgb(cr, r, g, b); }
  void line(double x0, double y0, double x1, double y1, double width = 1) {
    cairo_set_line_width(cr, width);
    cairo_move_to(cr, x0, y0);
    cairo_line_to(cr, x1, y1);
    cairo_stroke(cr);
  }
  void glyph(Glyph g, double x, double y) {
    cairo_save(cr);
    cairo_new_path(cr);
    if (g == Glyph::star) {
      for (int i = 0; i < 10; ++i) {
        const double r = i % 2 ? 3.2 : 8.0, a = -std::numbers::pi / 2 + i * std::numbers::pi / 5;
        cairo_line_to(cr, x + r * std::cos(a), y + r * std::sin(a));
      }
      cairo_close_path(cr);
      rgb(0.89, 0.10, 0.11);
    } else if (g == Glyph::triangle) {  // pointing down, as receivers are drawn in seismics
      cairo_move_to(cr, x - 4.5, y - 4);
      cairo_line_to(cr, x + 4.5, y - 4);
      cairo_line_to(cr, x, y + 4);
      cairo_close_path(cr);
      rgb(1, 1, 1);
    } else {
      const double dash = 5;
      cairo_set_dash(cr, &dash, 1, 0);
      rgb(0, 0, 0);
      line(x - 10, y, x + 10, y, 1.5);
      cairo_restore(cr);
      return;
    }
    cairo_fill_preserve(cr);
    rgb(0, 0, 0);
    cairo_set_line_width(cr, 1);
    cairo_stroke(cr);
    cairo_restore(cr);
  }
};

// Whether `family` draws text here: the glyphs of "0" leave dark pixels and cairo stays
// without error (a family with no font file behind it fails one or the other).
bool draws_text(const char* family) {
  cairo_surface_t* s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, 40, 24);
  cairo_t* cr = cairo_create(s);
  cairo_set_source_rgb(cr, 1, 1, 1);
  cairo_paint(cr);
  cairo_set_source_rgb(cr, 0, 0, 0);
  cairo_select_font_face(cr, family, CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
  cairo_set_font_size(cr, 16);
  cairo_move_to(cr, 4, 18);
  cairo_show_text(cr, "0");
  cairo_surface_flush(s);
  bool ok = cairo_status(cr) == CAIRO_STATUS_SUCCESS;
  bool dark = false;
  const unsigned char* d = cairo_image_surface_get_data(s);
  const int stride = cairo_image_surface_get_stride(s);
  for (int y = 0; ok && y < 24 && !dark; ++y)
    for (int x = 0; x < 40 && !dark; ++x) dark = d[y * stride + x * 4 + 1] < 128;  // green of xRGB
  cairo_destroy(cr);
  cairo_surface_destroy(s);
  return ok && dark;
}

void draw_raster(cairo_t* cr, const Figure& f, const Rect& p) {
  cairo_surface_t* s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, p.w, p.h);
  cairo_surface_flush(s);
  unsigned char* d = cairo_image_surface_get_data(s);
  const int stride = cairo_image_surface_get_stride(s);
  const double x0 = f.x_edges.front(), xw = f.x_edges.back() - x0;
  std::vector<std::size_t> col(std::size_t(p.w));
  for (int x = 0; x < p.w; ++x)
    col[std::size_t(x)] = column_of(f.x_edges, x0 + (x + 0.5) / p.w * xw);
  for (int y = 0; y < p.h; ++y) {
    const int row = std::min(f.rows - 1, int((y + 0.5) / p.h * f.rows));
    for (int x = 0; x < p.w; ++x) {
      const auto c = colour_of(f, f.values[std::size_t(row) * f.cols + col[std::size_t(x)]]);
      std::uint32_t* px = reinterpret_cast<std::uint32_t*>(d + std::ptrdiff_t(y) * stride) + x;
      *px = std::uint32_t(c[0]) << 16 | std::uint32_t(c[1]) << 8 | c[2];
    }
  }
  cairo_surface_mark_dirty(s);
  cairo_set_source_surface(cr, s, p.x, p.y);
  cairo_paint(cr);
  cairo_surface_destroy(s);
}

}  // namespace

bool figures_annotated() { return true; }
std::string figure_library() { return std::string("cairo ") + cairo_version_string(); }

std::string figure_font() {
  static const std::string family = draws_text("sans-serif") ? "sans-serif" : "@cairo:sans-serif";
  return family;
}

Image draw(const Figure& f, const std::string& font_family) {
  const FigureLayout l = layout(f);
  const Rect& p = l.plot;
  cairo_surface_t* surface = cairo_image_surface_create(CAIRO_FORMAT_RGB24, l.width, l.height);
  cairo_t* cr = cairo_create(surface);
  Painter g{cr, font_family.empty() ? figure_font() : font_family};
  g.rgb(1, 1, 1);
  cairo_paint(cr);
  draw_raster(cr, f, p);

  // Data to pixels.
  const double x0 = f.x_edges.front(), x1 = f.x_edges.back();
  auto px = [&](double x) { return p.x + (x - x0) / (x1 - x0) * p.w; };
  auto py = [&](double y) { return p.y + (y - f.y_top) / (f.y_bottom - f.y_top) * p.h; };

  cairo_save(cr);
  cairo_rectangle(cr, p.x, p.y, p.w, p.h);
  cairo_clip(cr);
  for (const Outline& o : f.outlines) {
    const double dash = 6;
    cairo_set_dash(cr, &dash, 1, 0);
    g.rgb(0, 0, 0);
    cairo_set_line_width(cr, 1.5);
    cairo_rectangle(cr, px(o.x0), py(o.y0), px(o.x1) - px(o.x0), py(o.y1) - py(o.y0));
    cairo_stroke(cr);
    cairo_set_dash(cr, nullptr, 0, 0);
  }
  for (const Marker& m : f.markers)
    if (m.glyph == Glyph::triangle) g.glyph(m.glyph, px(m.x), py(m.y));
  for (const Marker& m : f.markers)  // sources over receivers
    if (m.glyph != Glyph::triangle) g.glyph(m.glyph, px(m.x), py(m.y));
  cairo_restore(cr);

  // Frame and ticks: x below, y on the left.
  g.rgb(0, 0, 0);
  cairo_set_line_width(cr, 1);
  cairo_rectangle(cr, p.x + 0.5, p.y + 0.5, p.w - 1, p.h - 1);
  cairo_stroke(cr);
  const int most_x = std::max(2, p.w / 80), most_y = std::max(2, p.h / 50);
  const std::vector<double> tx = ticks(x0, x1, most_x);
  for (double v : tx) {
    const double x = std::round(px(v)) + 0.5;
    g.line(x, p.y + p.h, x, p.y + p.h + 5);
    g.text(tick_text(v, tx.size() > 1 ? tx[1] - tx[0] : 1), x, p.y + p.h + 8, 0.5, 0, kTick);
  }
  const std::vector<double> ty = ticks(f.y_top, f.y_bottom, most_y);
  for (double v : ty) {
    const double y = std::round(py(v)) + 0.5;
    g.line(p.x - 5, y, p.x, y);
    g.text(tick_text(v, ty.size() > 1 ? ty[1] - ty[0] : 1), p.x - 8, y, 1, 0.5, kTick);
  }
  g.text(f.x_label, p.x + p.w / 2.0, l.x_label.y, 0.5, 0, kLabel);
  g.text(f.y_label, l.y_label.x + 6, p.y + p.h / 2.0, 0.5, 0, kLabel, -std::numbers::pi / 2);
  g.text(f.title, l.width / 2.0, 12, 0.5, 0, kTitle);

  // The colour bar: hi at the top, lo at the bottom.
  const Rect& b = l.colour_bar;
  for (int y = 0; y < b.h; ++y) {
    const auto c = colour(f.map, 1.0 - (y + 0.5) / b.h);
    g.rgb(c[0] / 255.0, c[1] / 255.0, c[2] / 255.0);
    cairo_rectangle(cr, b.x, b.y + y, b.w, 1);
    cairo_fill(cr);
  }
  g.rgb(0, 0, 0);
  cairo_rectangle(cr, b.x + 0.5, b.y + 0.5, b.w - 1, b.h - 1);
  cairo_stroke(cr);
  const std::vector<double> tc = ticks(f.lo, f.hi, std::max(2, b.h / 50));
  for (double v : tc) {
    const double y = std::round(b.y + (f.hi - v) / (f.hi - f.lo) * b.h) + 0.5;
    g.line(b.x + b.w, y, b.x + b.w + 4, y);
    g.text(tick_text(v, tc.size() > 1 ? tc[1] - tc[0] : 1), b.x + b.w + 7, y, 0, 0.5, kTick);
  }
  g.text(f.colour_label, l.colour_label.x + 8, b.y + b.h / 2.0, 0.5, 0, kLabel,
         -std::numbers::pi / 2);

  // The legend, in a row under the x axis's title.
  double lx = p.x;
  const double ly = p.y + p.h + kBottom + kLegend / 2.0 - 2;
  for (const LegendEntry& e : f.legend) {
    g.glyph(e.glyph, lx + 10, ly);
    g.rgb(0, 0, 0);
    g.text(e.text, lx + 24, ly, 0, 0.5, kTick);
    cairo_text_extents_t ext;
    cairo_text_extents(cr, e.text.c_str(), &ext);
    lx += 24 + ext.x_advance + 18;
  }

  cairo_surface_flush(surface);
  const cairo_status_t status = cairo_status(cr);
  Image im;
  im.width = l.width;
  im.height = l.height;
  im.rgb.resize(std::size_t(l.width) * l.height * 3);
  const unsigned char* d = cairo_image_surface_get_data(surface);
  const int stride = cairo_image_surface_get_stride(surface);
  for (int y = 0; y < l.height; ++y)
    for (int x = 0; x < l.width; ++x) {
      const std::uint32_t v =
          reinterpret_cast<const std::uint32_t*>(d + std::ptrdiff_t(y) * stride)[x];
      unsigned char* o = im.rgb.data() + (std::size_t(y) * l.width + x) * 3;
      o[0] = (v >> 16) & 0xff, o[1] = (v >> 8) & 0xff, o[2] = v & 0xff;
    }
  cairo_destroy(cr);
  cairo_surface_destroy(surface);
  if (status != CAIRO_STATUS_SUCCESS)
    throw Error(std::string("drawing a figure failed (cairo): ") + cairo_status_to_string(status));
  return im;
}

#else

namespace {

// The raster alone, each cell a block of whole pixels (about 512 pixels on the longer side).
Image raster_only(const Figure& f) {
  const int sx = std::max(1, 512 / f.cols), sy = std::max(1, 512 / f.rows);
  Image im;
  im.width = f.cols * sx;
  im.height = f.rows * sy;
  im.rgb.resize(std::size_t(im.width) * im.height * 3);
  for (int y = 0; y < im.height; ++y)
    for (int x = 0; x < im.width; ++x) {
      const auto c = colour_of(f, f.values[std::size_t(y / sy) * f.cols + x / sx]);
      std::copy(c.begin(), c.end(), im.rgb.begin() + (std::ptrdiff_t(y) * im.width + x) * 3);
    }
  return im;
}

}  // namespace

bool figures_annotated() { return false; }
std::string figure_library() { return ""; }
std::string figure_font() { return ""; }

Image draw(const Figure& f, const std::string&) {
  check(f);
  return raster_only(f);
}

#endif

}  // namespace strata::io

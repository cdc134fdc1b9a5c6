// The `strata wave` configuration: JSON text + "key.path=value" overrides -> wave::Config,
// its canonical dump and its commented defaults, all from one schema table per section
// below (io/schema.hpp walks them). Defaults are Config's member initializers. Checks that need
// the model or the grid as a whole live in plan.cpp. Owns the keys, their ranges, names and
// comments; uses io/schema.hpp and io/json_reader.hpp only (no model, plan, backend or file).
#include <charconv>
#include <cmath>
#include <limits>

#include "io/json_reader.hpp"
#include "solvers/wave/config_keys.hpp"
#include "io/schema.hpp"
#include "strata/wave.hpp"

namespace strata::wave {

namespace {

using json = nlohmann::json;
using schema::Key;
using schema::Keys;
using schema::Names;
using schema::ObjectReader;
using schema::ordered;
using schema::Range;

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr Range kPositive{0, kInf, true, true};  // (0, inf)
constexpr Range kFinite{-kInf, kInf, true, true};

// ---- the names of each enum, both ways ---------------------------------------------------

const Names<ModelKind> kModelKinds = {
    {ModelKind::constant, "constant"}, {ModelKind::layered, "layered"}, {ModelKind::npy, "npy"}};
const Names<Precision> kPrecisions = {{Precision::f32, to_string(Precision::f32)},
                                      {Precision::f64, to_string(Precision::f64)}};
const Names<FaceKind> kFaceKinds = {{FaceKind::pml, "pml"},
                                    {FaceKind::free, "free"},
                                    {FaceKind::rigid, "rigid"},
                                    {FaceKind::periodic, "periodic"}};
const Names<int> kAxes = {{0, "x"}, {1, "y"}, {2, "z"}};
// strata::Device's words (strata/device.hpp), in the configuration's order.
const Names<Device> kDevices = {{Device::automatic, to_string(Device::automatic)},
                                {Device::cpu, to_string(Device::cpu)},
                                {Device::cuda, to_string(Device::cuda)}};

// ---- the schema: one table per section -------------------------------------------------

ordered vec3_json(const Vec3& v) { return ordered::array({v.x, v.y, v.z}); }

// [x, y, z] in metres: three finite numbers.
template <class S>
Key<S> vec3(std::string name, Vec3 S::*m, std::string doc = "") {
  return schema::custom<S>(
      name,
      [name, m](ObjectReader& in, S& s, const std::string&) {
        const auto v = in.numbers(name, {(s.*m).x, (s.*m).y, (s.*m).z}, 3);
        s.*m = {v[0], v[1], v[2]};
      },
      [m](const S& s) { return vec3_json(s.*m); }, std::move(doc));
}

const Keys<Config>& grid_keys() {
  static const Keys<Config> k = {
      schema::custom<Config>(
          "shape",
          [](ObjectReader& g, Config& c, const std::string&) {
            const auto s =
                g.numbers("shape", {double(c.shape.nx), double(c.shape.ny), double(c.shape.nz)}, 3);
            for (double d : s)
              if (!(d >= 1 && d <= (1 << 20) && d == std::floor(d)))
                g.fail("shape",
                       "must be three whole numbers [nx, ny, nz], each in [1, 1048576], got [" +
                           format_number(s[0]) + ", " + format_number(s[1]) + ", " +
                           format_number(s[2]) + "]");
            c.shape = {int(s[0]), int(s[1]), int(s[2])};
          },
          [](const Config& c) {
            return ordered::array({c.shape.nx, c.shape.ny, c.shape.nz});
          },
          "interior points [nx, ny, nz]"),
      schema::number<Config>("spacing", &Config::spacing, kPositive,
                             "h (m), the same on every axis"),
  };
  return k;
}

const Keys<Layer>& layer_keys() {
  static const Keys<Layer> k = {
      schema::number<Layer>("top", &Layer::top, {-kInf, kInf}, ""),
      schema::required(schema::number<Layer>("velocity", &Layer::velocity, kPositive, ""),
                       "m/s, > 0"),
  };
  return k;
}

// Tops start at the surface and go down.
void check_layer(ObjectReader& l, const Layer& L, const std::vector<Layer>& before) {
  if (before.empty() && L.top != 0) l.fail("top", "of the first layer must be 0 (the surface)");
  if (!before.empty() && !(L.top > before.back().top))
    l.fail("top",
           "must be deeper than the previous layer's top (" + json(before.back().top).dump() + ")");
}

const Keys<Config>& model_keys() {
  static const Keys<Config> k = {
      schema::choice<Config>("type", &Config::model, kModelKinds, "{choices}"),
      schema::number<Config>("velocity", &Config::velocity, kPositive, "constant: v (m/s)"),
      schema::list<Config, Layer>(
          "layers", &Config::layers, layer_keys(),
          "layered: [{\"top\": 0, \"velocity\": 1500}, {\"top\": 200, \"velocity\": 2500}]\n"
          "tops in m, ascending, the first at 0",
          check_layer),
      schema::text<Config>("file", &Config::model_file, true,
                           "npy: (nz, ny, nx) float32/float64 array of v (m/s)"),
  };
  return k;
}

// What each model type needs beside it.
void check_model(ObjectReader& m, const Config& c) {
  if (c.model == ModelKind::layered && c.layers.empty())
    m.missing("layers", "model.type \"layered\" needs [{\"top\": 0, \"velocity\": V}, ...]");
  if (c.model == ModelKind::npy && c.model_file.empty())
    m.missing("file", "model.type \"npy\" needs a (nz, ny, nx) float32/float64 .npy of velocities");
}

const Keys<Config>& time_keys() {
  static const Keys<Config> k = {
      schema::integer<Config>("steps", &Config::steps, 0, 100000000,
                              "time steps to run (total, counting from step 0)"),
      schema::optional_number<Config>("dt", &Config::dt, kPositive,
                                      "s; null: cfl_safety * the stability limit"),
      schema::number<Config>("cfl_safety", &Config::cfl_safety, {0, 1, true, false},
                             "fraction of the limit dt <= 2 / (v_max sqrt(lambda_max))"),
  };
  return k;
}

const Keys<Config>& scheme_keys() {
  static const Keys<Config> k = {
      schema::custom<Config>(
          "order",
          [](ObjectReader& s, Config& c, const std::string&) {
            const long long order = s.integer("order", c.order, 2, 8);
            if (order % 2) s.fail("order", "must be 2, 4, 6 or 8, got " + std::to_string(order));
            c.order = int(order);
          },
          [](const Config& c) { return ordered(c.order); },
          "space order 2 | 4 | 6 | 8 (stencil radius order/2)"),
      schema::choice<Config>("precision", &Config::precision, kPrecisions, "{choices}"),
  };
  return k;
}

const Keys<ReceiverLine>& line_keys() {
  static const Keys<ReceiverLine> k = {
      schema::required(vec3<ReceiverLine>("start", &ReceiverLine::start), "[x, y, z] in metres"),
      schema::required(vec3<ReceiverLine>("end", &ReceiverLine::end), "[x, y, z] in metres"),
      schema::integer<ReceiverLine>("count", &ReceiverLine::count, 1, 10000000, ""),
  };
  return k;
}

const Keys<ReceiverPlane>& plane_keys() {
  static const Keys<ReceiverPlane> k = {
      schema::choice<ReceiverPlane>("axis", &ReceiverPlane::axis, kAxes, ""),
      schema::required(
          schema::number<ReceiverPlane>("position", &ReceiverPlane::position, kFinite, ""),
          "the plane's coordinate along its axis (m)"),
      schema::integer<ReceiverPlane>("stride", &ReceiverPlane::stride, 1, 1 << 20, ""),
  };
  return k;
}

const Keys<Config>& receiver_keys() {
  static const Keys<Config> k = {
      schema::integer<Config>("every", &Config::receiver_every, 1, 100000000,
                              "sample u every this many steps (row 0 is step 0)"),
      schema::custom<Config>(
          "points",
          [](ObjectReader& r, Config& c, const std::string&) {
            const json* pts = r.array("points");
            if (!pts) return;
            c.receiver_points.clear();
            for (std::size_t i = 0; i < pts->size(); ++i) {
              const json& p = (*pts)[i];
              bool ok = p.is_array() && p.size() == 3;
              for (std::size_t a = 0; ok && a < 3; ++a)
                ok = p[a].is_number() && std::isfinite(p[a].get<double>());
              if (!ok)
                r.fail("points." + std::to_string(i),
                       "must be [x, y, z]: three finite numbers (m), got " + p.dump());
              c.receiver_points.push_back(
                  {p[0].get<double>(), p[1].get<double>(), p[2].get<double>()});
            }
          },
          [](const Config& c) {
            ordered a = ordered::array();
            for (const Vec3& p : c.receiver_points) a.push_back(vec3_json(p));
            return a;
          },
          "[[x, y, z], ...]", schema::Layout::list),
      schema::list<Config, ReceiverLine>("lines", &Config::receiver_lines, line_keys(),
                                         "count points evenly from start to end (both included)"),
      schema::list<Config, ReceiverPlane>(
          "planes", &Config::receiver_planes, plane_keys(),
          "[{\"axis\": \"z\", \"position\": 100.0, \"stride\": 4}]: every\n"
          "stride-th grid point of the plane, interpolated along axis"),
  };
  return k;
}

const Keys<Config>& pml_keys() {
  static const Keys<Config> k = {
      schema::integer<Config>("width", &Config::pml_width, 1, 1000, "points per absorbing layer"),
      schema::number<Config>("reflection", &Config::pml_reflection, {0, 1, true, true},
                             "target reflection coefficient at normal incidence"),
      schema::number<Config>("power", &Config::pml_power, {1, 6},
                             "damping profile d0 * (depth in layer)^power"),
      schema::optional_number<Config>("alpha", &Config::pml_alpha, {0, kInf},
                                      "frequency shift (1/s) at the inner edge; null: pi * f_peak"),
  };
  return k;
}

const Keys<Config>& boundary_keys() {
  static const Keys<Config> k = [] {
    Keys<Config> keys;
    for (int f = 0; f < 6; ++f)
      keys.push_back(schema::choice<Config>(
          kFaceNames[f], [f](auto& c) -> auto& { return c.faces[f]; }, kFaceKinds,
          f == zmin ? "the top: a free surface" : ""));
    keys[0] = schema::with_note(
        keys[0],
        "pml: absorbing (convolutional PML); free: u = 0 on the face (pressure release);\n"
        "rigid: du/dn = 0 on the face; periodic: wraps (both faces of the axis).");
    keys.push_back(schema::section<Config>("pml", pml_keys()));
    return keys;
  }();
  return k;
}

const Keys<Config>& snapshot_keys() {
  static const Keys<Config> k = {
      schema::integer<Config>("every", &Config::snapshot_every, 0, 100000000,
                              "u every N steps (0: none) as:"),
      schema::boolean<Config>("npy", &Config::snapshot_npy, "  snapshots/u_STEP.npy  (nz, ny, nx)"),
      schema::boolean<Config>("vti", &Config::snapshot_vti,
                              "  snapshots/u_STEP.vti  (VTK image data for ParaView)"),
      schema::boolean<Config>("png", &Config::snapshot_png,
                              "  snapshots/u_STEP.png  (the plane below)"),
  };
  return k;
}

const Keys<Config>& png_keys() {
  static const Keys<Config> k = {
      schema::choice<Config>("axis", &Config::png_axis, kAxes,
                             "the pictures' plane (snapshots, model): normal {choices}"),
      schema::optional_integer<Config>("index", &Config::png_index, 0, 1 << 20,
                                       "grid index along axis; null: the middle"),
      schema::one_of<Config>("colormap", &Config::colormap, {"seismic", "viridis", "gray"},
                             "{choices}"),
      schema::number<Config>("clip", &Config::png_clip, {0, 1, true, false},
                             "colour range: this quantile of |u|"),
  };
  return k;
}

const Keys<Config>& output_keys() {
  static const Keys<Config> k = {
      schema::text<Config>("dir", &Config::out_dir, false,
                           "created if missing; every file written atomically"),
      schema::section<Config>("snapshots", snapshot_keys()),
      schema::section<Config>("png", png_keys()),
      schema::boolean<Config>("seismogram_png", &Config::seismogram_png,
                              "seismogram.png next to seismogram.npy"),
      schema::boolean<Config>(
          "segy", &Config::segy,
          "seismogram.sgy too: SEG-Y rev 1, IEEE float32, one trace per receiver,\n"
          "coordinates in metres (dt x receivers.every: whole microseconds)"),
      schema::boolean<Config>("model_png", &Config::model_png,
                              "model.png: the velocity on png's plane, the sources and receivers"),
      schema::integer<Config>("checkpoint_every", &Config::checkpoint_every, 0, 100000000,
                              "checkpoint.strata every N steps and at the last (0: none)"),
  };
  return k;
}

// The whole configuration, in the order it is read, written and documented.
const Keys<Config>& config_keys() {
  static const Keys<Config> k = {
      schema::section<Config>("grid", grid_keys()),
      schema::section<Config>("model", model_keys(), check_model),
      schema::section<Config>("time", time_keys()),
      schema::section<Config>("scheme", scheme_keys()),
      schema::with_note(
          schema::list<Config, Source>("sources", &Config::sources, source_keys(), ""),
          "Ricker wavelets at off-grid points (trilinear injection); delay null: 1.5 / frequency."),
      schema::section<Config>("receivers", receiver_keys()),
      schema::section<Config>("boundary", boundary_keys()),
      schema::section<Config>("output", output_keys()),
      schema::choice<Config>("device", &Config::device, kDevices, "{choices}"),
  };
  return k;
}

// The commented defaults open with this, and carry one example source and receiver line so
// that they run as they stand (a few seconds on a CPU).
constexpr const char* kDefaultTextHeader =
    "strata wave: acoustic waves u_tt = v(x)^2 Lap(u) + sum_s s(t) delta(x - x_s).\n"
    "Comments are allowed. Every key below is optional (this is its default); an unknown\n"
    "key is an error. Override any key from the command line: --set time.steps=500.\n"
    "Coordinates are metres; grid point (i, j, k) sits at ((i+0.5)h, (j+0.5)h, (k+0.5)h),\n"
    "so the domain is [0, n*h] per axis. z is depth: k = 0 is the top.";

Config default_text_config() {
  Config c;
  c.sources = {{{320.0, 320.0, 200.0}, 15.0, 1.0, std::nullopt}};
  c.receiver_lines = {{{170.0, 320.0, 20.0}, {470.0, 320.0, 20.0}, 31}};
  return c;
}

// "a.b.0.c=value": walks (and creates) the path, then stores value parsed as JSON, or as a
// string when it is not JSON (so boundary.zmin=free needs no quotes) unless it opens as an
// array or object does (then the parser's message says what is wrong where). Records in `origins`
// the path written and every object or element created on the way, with o.origin.
void apply_override(json& root, const Override& o, json_reader::Origins& origins) {
  const std::string& text = o.text;
  const std::string& origin = o.origin;
  const auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0) throw Error(origin + ": must look like key.path=VALUE");
  const std::string path = text.substr(0, eq), value = text.substr(eq + 1);
  if (!json_reader::valid_utf8(text))
    throw Error(origin + ": the override of '" +
                json(path).dump(-1, ' ', false, json::error_handler_t::replace) +
                "' is not valid UTF-8 text; configuration values (paths included) are recorded in "
                "JSON, which is UTF-8: rename the file or directory");
  json parsed = json::parse(value, nullptr, false);
  const std::size_t first = value.find_first_not_of(" \t");
  const bool looks_structured =
      first != std::string::npos && (value[first] == '[' || value[first] == '{');
  if (parsed.is_discarded() && !looks_structured)
    parsed = value;
  else if (parsed.is_discarded() || parsed.is_structured())  // a bad array or object says where
    parsed = json_reader::parse(value, origin);
  json* cur = &root;
  std::size_t start = 0;
  bool created = false;  // from here down the path is new: the override's
  while (true) {
    const auto dot = path.find('.', start);
    const std::string part =
        path.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    const std::string here = path.substr(0, dot);
    if (part.empty()) throw Error(origin + ": the key path '" + path + "' has an empty key");
    const bool index = part.find_first_not_of("0123456789") == std::string::npos;
    if (index && cur->is_null()) *cur = json::array();
    if (index && cur->is_array()) {
      std::size_t i = 0;
      const auto [end, ec] = std::from_chars(part.data(), part.data() + part.size(), i);
      if (ec != std::errc() || end != part.data() + part.size() || i > cur->size())
        throw Error(origin + ": index " + part + " is past the end of an array of " +
                    std::to_string(cur->size()) +
                    " (an index may be at most the array's length, which appends)");
      if (i == cur->size()) cur->push_back(nullptr), created = true;
      cur = &(*cur)[i];
    } else {
      if (cur->is_null()) *cur = json::object();
      if (!cur->is_object())
        throw Error(origin + ": '" + path.substr(0, start ? start - 1 : 0) + "' is not an object");
      created = created || !cur->contains(part);
      cur = &(*cur)[part];
    }
    if (created && dot != std::string::npos) origins.emplace_back(here, origin);
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  *cur = parsed;
  origins.emplace_back(path, origin);
}

Config parse(std::string_view text, std::span<const Override> overrides,
             const std::string& origin) {
  json root = json_reader::parse(text, origin);
  if (!root.is_object())  // before the overrides, which would turn a null into an object
    ObjectReader(root, "", origin);
  auto origins = std::make_shared<json_reader::Origins>();
  for (const Override& o : overrides) apply_override(root, o, *origins);
  Config c;
  ObjectReader top(root, "", origin, origins);
  schema::read_keys(config_keys(), top, c, origin);
  top.finish();
  return c;
}

std::vector<Override> named(std::span<const std::string> overrides) {
  std::vector<Override> o;
  for (const std::string& t : overrides) o.push_back({t, "override '" + t + "'"});
  return o;
}

}  // namespace

const Keys<Source>& source_keys() {
  static const Keys<Source> k = {
      schema::required(vec3<Source>("position", &Source::position), "[x, y, z] in metres"),
      schema::number<Source>("frequency", &Source::frequency, kPositive, ""),
      schema::number<Source>("amplitude", &Source::amplitude, kFinite, ""),
      schema::optional_number<Source>("delay", &Source::delay, {0, kInf}, ""),
  };
  return k;
}

const char* to_string(FaceKind k) { return kFaceKinds.name(k); }

Config parse_config(std::string_view text, std::span<const std::string> overrides,
                    const std::string& origin) {
  return parse(text, named(overrides), origin);
}

Config parse_config_file(const std::string& path, std::span<const std::string> overrides) {
  return parse_config_file(path, named(overrides));
}

Config parse_config_file(const std::string& path, std::span<const Override> overrides) {
  return parse(json_reader::read_file(path, "configuration"), overrides, path);
}

std::string to_json(const Config& c) { return schema::write_keys(config_keys(), c).dump(2); }

std::string default_config_text() {
  std::string out = "{\n";
  schema::comment_lines(kDefaultTextHeader, "  ", out);
  schema::render_keys(config_keys(), schema::write_keys(config_keys(), default_text_config()), "  ",
                      out);
  return out + "}\n";
}

}  // namespace strata::wave

// The `strata wave` configuration: JSON text + "key.path=value" overrides -> wave::Config.
// The reads below are the schema (key, type, default, range); anything not read is an
// unknown key. Checks that need the model or the grid as a whole live in plan.cpp.
#include <charconv>
#include <cmath>
#include <limits>

#include "io/json_reader.hpp"
#include "strata/wave.hpp"

namespace strata::wave {

namespace {

using json = nlohmann::json;
using ordered = nlohmann::ordered_json;
using json_reader::ObjectReader;

constexpr double kInf = std::numeric_limits<double>::infinity();
const char* const kAxes[3] = {"x", "y", "z"};

int axis_of(const std::string& s) { return s == "x" ? 0 : s == "y" ? 1 : 2; }

FaceKind face_kind(const std::string& s) {
  if (s == "pml") return FaceKind::pml;
  if (s == "free") return FaceKind::free;
  if (s == "rigid") return FaceKind::rigid;
  return FaceKind::periodic;
}

Vec3 vec3(ObjectReader& r, const std::string& key, Vec3 def) {
  const auto v = r.numbers(key, {def.x, def.y, def.z}, 3);
  return {v[0], v[1], v[2]};
}

// "a.b.0.c=value": walks (and creates) the path, then stores value parsed as JSON, or as a
// string when it is not JSON (so boundary.zmin=free needs no quotes).
void apply_override(json& root, const std::string& text, const std::string& origin) {
  const auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0)
    throw Error(origin + ": override '" + text + "' must look like key.path=VALUE");
  const std::string path = text.substr(0, eq), value = text.substr(eq + 1);
  if (!json_reader::valid_utf8(text))
    throw Error(origin + ": override of '" + json(path).dump(-1, ' ', false, json::error_handler_t::replace) +
                "' is not valid UTF-8 text; configuration values (paths included) are recorded in JSON, which is "
                "UTF-8: rename the file or directory");
  json parsed = json::parse(value, nullptr, false);
  if (parsed.is_discarded()) parsed = value;
  else if (parsed.is_structured()) parsed = json_reader::parse(value, origin + ": override '" + path + "'");
  json* cur = &root;
  std::size_t start = 0;
  while (true) {
    const auto dot = path.find('.', start);
    const std::string part = path.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    if (part.empty()) throw Error(origin + ": override '" + text + "' has an empty key in its path");
    const bool index = part.find_first_not_of("0123456789") == std::string::npos;
    if (index && cur->is_null()) *cur = json::array();
    if (index && cur->is_array()) {
      std::size_t i = 0;
      const auto [end, ec] = std::from_chars(part.data(), part.data() + part.size(), i);
      if (ec != std::errc() || end != part.data() + part.size() || i > cur->size())
        throw Error(origin + ": override '" + text + "': index " + part + " is past the end of an array of " +
                    std::to_string(cur->size()) + " (an index may be at most the array's length, which appends)");
      if (i == cur->size()) cur->push_back(nullptr);
      cur = &(*cur)[i];
    } else {
      if (cur->is_null()) *cur = json::object();
      if (!cur->is_object())
        throw Error(origin + ": override '" + text + "': '" + path.substr(0, start ? start - 1 : 0) +
                    "' is not an object");
      cur = &(*cur)[part];
    }
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  *cur = parsed;
}

}  // namespace

const char* to_string(FaceKind k) {
  switch (k) {
    case FaceKind::pml: return "pml";
    case FaceKind::free: return "free";
    case FaceKind::rigid: return "rigid";
    case FaceKind::periodic: return "periodic";
  }
  return "?";
}

Config parse_config(std::string_view text, std::span<const std::string> overrides,
                    const std::string& origin) {
  json root = json_reader::parse(text, origin);
  if (!root.is_object())  // before the overrides, which would turn a null into an object
    ObjectReader(root, "", origin);
  for (const std::string& o : overrides) apply_override(root, o, origin);

  Config c;
  ObjectReader top(root, "", origin);
  auto sub = [&](ObjectReader& parent, const std::string& key) -> std::optional<ObjectReader> {
    const json* v = parent.find(key);
    if (!v) return std::nullopt;
    return ObjectReader(*v, parent.key_path(key), origin);
  };

  if (auto g = sub(top, "grid")) {
    const auto s = g->numbers("shape", {64, 64, 64}, 3);
    for (double d : s)
      if (!(d >= 1 && d <= (1 << 20) && d == std::floor(d)))
        g->fail("shape", "must be three whole numbers [nx, ny, nz], each in [1, 1048576], got " +
                             json(s).dump());
    c.shape = {int(s[0]), int(s[1]), int(s[2])};
    c.spacing = g->number("spacing", c.spacing, 0, kInf, true, true);
    g->finish();
  }

  if (auto m = sub(top, "model")) {
    const std::string type = m->choice("type", "constant", {"constant", "layered", "npy"});
    c.model = type == "constant" ? ModelKind::constant : type == "layered" ? ModelKind::layered : ModelKind::npy;
    c.velocity = m->number("velocity", c.velocity, 0, kInf, true, true);
    if (const json* layers = m->array("layers")) {
      for (std::size_t i = 0; i < layers->size(); ++i) {
        ObjectReader l((*layers)[i], m->key_path("layers") + "." + std::to_string(i), origin);
        Layer L;
        L.top = l.number("top", 0, -kInf, kInf, false, false);
        L.velocity = l.number("velocity", 0, 0, kInf, true, true);
        if (!l.find("velocity")) l.missing("velocity", "m/s, > 0");
        l.finish();
        if (i == 0 && L.top != 0) l.fail("top", "of the first layer must be 0 (the surface)");
        if (i > 0 && !(L.top > c.layers.back().top))
          l.fail("top", "must be deeper than the previous layer's top (" + json(c.layers.back().top).dump() + ")");
        c.layers.push_back(L);
      }
    }
    c.model_file = m->string("file", "", true);
    m->finish();
    if (c.model == ModelKind::layered && c.layers.empty())
      m->missing("layers", "model.type \"layered\" needs [{\"top\": 0, \"velocity\": V}, ...]");
    if (c.model == ModelKind::npy && c.model_file.empty())
      m->missing("file", "model.type \"npy\" needs a (nz, ny, nx) float32/float64 .npy of velocities");
  }

  if (auto t = sub(top, "time")) {
    c.steps = int(t->integer("steps", c.steps, 0, 100000000));
    c.dt = t->optional_number("dt", std::nullopt, 0, kInf, true);
    c.cfl_safety = t->number("cfl_safety", c.cfl_safety, 0, 1, true, false);
    t->finish();
  }

  if (auto s = sub(top, "scheme")) {
    const long long order = s->integer("order", c.order, 2, 8);
    if (order % 2) s->fail("order", "must be 2, 4, 6 or 8, got " + std::to_string(order));
    c.order = int(order);
    c.precision = s->choice("precision", "f32", {"f32", "f64"}) == "f32" ? Precision::f32 : Precision::f64;
    s->finish();
  }

  if (const json* srcs = top.array("sources")) {
    for (std::size_t i = 0; i < srcs->size(); ++i) {
      ObjectReader s((*srcs)[i], "sources." + std::to_string(i), origin);
      Source src;
      if (!s.find("position")) s.missing("position", "[x, y, z] in metres");
      src.position = vec3(s, "position", {});
      src.frequency = s.number("frequency", src.frequency, 0, kInf, true, true);
      src.amplitude = s.number("amplitude", src.amplitude, -kInf, kInf, true, true);
      src.delay = s.optional_number("delay", std::nullopt, 0, kInf);
      s.finish();
      c.sources.push_back(src);
    }
  }

  if (auto r = sub(top, "receivers")) {
    c.receiver_every = int(r->integer("every", c.receiver_every, 1, 100000000));
    if (const json* pts = r->array("points"))
      for (std::size_t i = 0; i < pts->size(); ++i) {
        const json& p = (*pts)[i];
        bool ok = p.is_array() && p.size() == 3;
        for (std::size_t k = 0; ok && k < 3; ++k) ok = p[k].is_number() && std::isfinite(p[k].get<double>());
        if (!ok) r->fail("points." + std::to_string(i), "must be [x, y, z]: three finite numbers (m), got " + p.dump());
        c.receiver_points.push_back({p[0].get<double>(), p[1].get<double>(), p[2].get<double>()});
      }
    if (const json* lines = r->array("lines"))
      for (std::size_t i = 0; i < lines->size(); ++i) {
        ObjectReader l((*lines)[i], r->key_path("lines") + "." + std::to_string(i), origin);
        ReceiverLine L;
        if (!l.find("start") || !l.find("end")) l.missing(l.find("start") ? "end" : "start", "[x, y, z] in metres");
        L.start = vec3(l, "start", {});
        L.end = vec3(l, "end", {});
        L.count = int(l.integer("count", L.count, 1, 10000000));
        l.finish();
        c.receiver_lines.push_back(L);
      }
    if (const json* planes = r->array("planes"))
      for (std::size_t i = 0; i < planes->size(); ++i) {
        ObjectReader p((*planes)[i], r->key_path("planes") + "." + std::to_string(i), origin);
        ReceiverPlane P;
        P.axis = axis_of(p.choice("axis", "z", {"x", "y", "z"}));
        if (!p.find("position")) p.missing("position", "the plane's coordinate along its axis (m)");
        P.position = p.number("position", 0, -kInf, kInf, true, true);
        P.stride = int(p.integer("stride", P.stride, 1, 1 << 20));
        p.finish();
        c.receiver_planes.push_back(P);
      }
    r->finish();
  }

  if (auto b = sub(top, "boundary")) {
    for (int f = 0; f < 6; ++f)
      c.faces[f] = face_kind(b->choice(kFaceNames[f], to_string(c.faces[f]), {"pml", "free", "rigid", "periodic"}));
    if (auto p = sub(*b, "pml")) {
      c.pml_width = int(p->integer("width", c.pml_width, 1, 1000));
      c.pml_reflection = p->number("reflection", c.pml_reflection, 0, 1, true, true);
      c.pml_power = p->number("power", c.pml_power, 1, 6);
      c.pml_alpha = p->optional_number("alpha", std::nullopt, 0, kInf);
      p->finish();
    }
    b->finish();
  }

  if (auto o = sub(top, "output")) {
    c.out_dir = o->string("dir", c.out_dir);
    if (auto s = sub(*o, "snapshots")) {
      c.snapshot_every = int(s->integer("every", c.snapshot_every, 0, 100000000));
      c.snapshot_npy = s->boolean("npy", c.snapshot_npy);
      c.snapshot_vti = s->boolean("vti", c.snapshot_vti);
      c.snapshot_png = s->boolean("png", c.snapshot_png);
      s->finish();
    }
    if (auto p = sub(*o, "png")) {
      c.png_axis = axis_of(p->choice("axis", kAxes[c.png_axis], {"x", "y", "z"}));
      if (auto i = p->optional_integer("index", std::nullopt, 0, 1 << 20)) c.png_index = int(*i);
      c.colormap = p->choice("colormap", c.colormap, {"seismic", "viridis", "gray"});
      c.png_clip = p->number("clip", c.png_clip, 0, 1, true, false);
      p->finish();
    }
    c.seismogram_png = o->boolean("seismogram_png", c.seismogram_png);
    c.checkpoint_every = int(o->integer("checkpoint_every", c.checkpoint_every, 0, 100000000));
    o->finish();
  }

  c.device = top.choice("device", c.device, {"auto", "cpu", "cuda"});
  top.finish();
  return c;
}

Config parse_config_file(const std::string& path, std::span<const std::string> overrides) {
  return parse_config(json_reader::read_file(path, "configuration"), overrides, path);
}

std::string to_json(const Config& c) {
  auto v3 = [](const Vec3& v) { return ordered::array({v.x, v.y, v.z}); };
  auto opt = [](const std::optional<double>& d) { return d ? ordered(*d) : ordered(nullptr); };
  ordered j;
  j["grid"] = {{"shape", {c.shape.nx, c.shape.ny, c.shape.nz}}, {"spacing", c.spacing}};
  ordered layers = ordered::array();
  for (const Layer& l : c.layers) layers.push_back({{"top", l.top}, {"velocity", l.velocity}});
  const char* types[] = {"constant", "layered", "npy"};
  j["model"] = {{"type", types[int(c.model)]}, {"velocity", c.velocity}, {"layers", layers}, {"file", c.model_file}};
  j["time"] = {{"steps", c.steps}, {"dt", opt(c.dt)}, {"cfl_safety", c.cfl_safety}};
  j["scheme"] = {{"order", c.order}, {"precision", to_string(c.precision)}};
  ordered srcs = ordered::array();
  for (const Source& s : c.sources)
    srcs.push_back({{"position", v3(s.position)}, {"frequency", s.frequency}, {"amplitude", s.amplitude},
                    {"delay", opt(s.delay)}});
  j["sources"] = srcs;
  ordered pts = ordered::array(), lines = ordered::array(), planes = ordered::array();
  for (const Vec3& p : c.receiver_points) pts.push_back(v3(p));
  for (const ReceiverLine& l : c.receiver_lines)
    lines.push_back({{"start", v3(l.start)}, {"end", v3(l.end)}, {"count", l.count}});
  for (const ReceiverPlane& p : c.receiver_planes)
    planes.push_back({{"axis", kAxes[p.axis]}, {"position", p.position}, {"stride", p.stride}});
  j["receivers"] = {{"every", c.receiver_every}, {"points", pts}, {"lines", lines}, {"planes", planes}};
  ordered b;
  for (int f = 0; f < 6; ++f) b[kFaceNames[f]] = to_string(c.faces[f]);
  b["pml"] = {{"width", c.pml_width}, {"reflection", c.pml_reflection}, {"power", c.pml_power},
              {"alpha", opt(c.pml_alpha)}};
  j["boundary"] = b;
  j["output"] = {
      {"dir", c.out_dir},
      {"snapshots", {{"every", c.snapshot_every}, {"npy", c.snapshot_npy}, {"vti", c.snapshot_vti}, {"png", c.snapshot_png}}},
      {"png", {{"axis", kAxes[c.png_axis]}, {"index", c.png_index ? ordered(*c.png_index) : ordered(nullptr)},
               {"colormap", c.colormap}, {"clip", c.png_clip}}},
      {"seismogram_png", c.seismogram_png},
      {"checkpoint_every", c.checkpoint_every}};
  j["device"] = c.device;
  return j.dump(2);
}

}  // namespace strata::wave

// Many shots over one model (see "Many shots" in strata/wave.hpp): the shots file, read with
// the configuration's own source keys; the checks every shot's run would make, done once
// for all before any work (the model is read once); the shots' output directory and the
// manifest that lists them. Running the shots is run()'s, once per shot, and dealing them to
// processes is run_shots.cpp's: nothing here knows about ranks beyond the number it is given.
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <map>

#include <nlohmann/json.hpp>

#include "drivers/wave/run_directory.hpp"
#include "io/json_reader.hpp"
#include "io/run_directory.hpp"
#include "solvers/wave/config_keys.hpp"
#include "solvers/wave/geometry.hpp"
#include "solvers/wave/model.hpp"
#include "solvers/wave/plan.hpp"
#include "io/atomic_file.hpp"
#include "strata/wave.hpp"

namespace strata::wave {

namespace {

using json = nlohmann::json;
using ordered = nlohmann::ordered_json;
using json_reader::ObjectReader;

constexpr const char* kManifest = "manifest.json";
constexpr std::size_t kMaxName = 100;

std::string default_name(std::size_t i) {
  char b[32];
  std::snprintf(b, sizeof b, "shot%04zu", i);
  return b;
}

// A name is a directory name in OUT_DIR: one plain path component, portable, never hidden
// (RunDirectory's temporaries and lock are dot files) and never the manifest's.
std::string name_problem(const std::string& name) {
  if (name.size() > kMaxName) return "is longer than " + std::to_string(kMaxName) + " characters";
  if (name[0] == '.') return "starts with '.'";
  for (char ch : name)
    if (!(std::isalnum(static_cast<unsigned char>(ch)) || ch == '.' || ch == '_' || ch == '-'))
      return "holds '" + std::string(1, ch) + "'";
  if (name == kManifest) return std::string("is the manifest's file name");
  return "";
}

std::string vec(const Vec3& p) {
  char b[128];
  std::snprintf(b, sizeof b, "[%.6g, %.6g, %.6g]", p.x, p.y, p.z);
  return b;
}

// What a shots run offers for a directory that is not empty (it takes no --restart).
constexpr const char* kShotsNotEmpty =
    "use --overwrite to run the shots again (it replaces a previous run's files), or another --out-dir";

// The OUT_DIR files of a shots run: the manifest beside the shots' directories.
io::RunFiles shots_files(const Config& cfg, const std::vector<Shot>& shots, const RunInputs& inputs) {
  io::RunFiles f;
  f.files = {kManifest};
  for (const Shot& s : shots) f.run_dirs.push_back(s.name);
  f.inputs = run_inputs(cfg, inputs);
  f.when_not_empty = kShotsNotEmpty;
  return f;
}

// A shot's directory's files, as run() takes them, none of them an input under overwrite. A
// shots run takes no --restart: a finished shot with a checkpoint (and its config.json, which
// an interrupted run does not write) continues as a run of its own, for more steps.
io::RunFiles shot_dir_files(const Config& cfg, const RunInputs& inputs, const std::string& dir) {
  io::RunFiles f = run_files();
  f.inputs = run_inputs(cfg, inputs);
  f.when_not_empty = kShotsNotEmpty;
  const std::filesystem::path d(dir);
  std::error_code ec;
  if (std::filesystem::exists(d / "checkpoint.strata", ec) && std::filesystem::exists(d / "config.json", ec))
    f.when_not_empty += "; this shot continues alone, for more steps: strata wave --config " +
                        (d / "config.json").string() + " --restart";
  return f;
}

io::RunDirectory::Mode mode_of(bool overwrite) {
  return overwrite ? io::RunDirectory::Mode::overwrite : io::RunDirectory::Mode::fresh;
}

std::string shot_dir(const Config& cfg, const Shot& s) { return (std::filesystem::path(cfg.out_dir) / s.name).string(); }

template <class T>
Plan plan_without_sources(const Config& bare) {
  const VelocityModel<T> v = load_velocity<T>(bare);
  return resolve<T>(bare, v.values()).plan;
}

ordered sources_json(const std::vector<Source>& sources) {
  ordered a = ordered::array();
  for (const Source& s : sources) a.push_back(schema::write_keys(source_keys(), s));
  return a;
}

}  // namespace

std::vector<Shot> parse_shots(std::string_view text, const Config& cfg, const std::string& origin) {
  const std::string form =
      "[{\"name\": \"s1\", \"position\": [x, y, z]}, {\"sources\": [{\"position\": [x, y, z], \"frequency\": f}]}, ...]";
  const json root = json_reader::parse(text, origin, "a list of shots " + form);
  if (!root.is_array())
    throw Error(origin + ": must be a list of shots " + form + ", got " + json_reader::show(root).substr(0, 200));
  if (root.empty()) throw Error(origin + ": the list of shots is empty: give at least one shot, " + form);
  // A shot's "sources" read as the configuration's are (same keys, ranges and messages).
  const schema::Key<Shot> sources_key = schema::list<Shot, Source>("sources", &Shot::sources, source_keys(), "");
  std::vector<Shot> shots;
  std::map<std::string, std::size_t> names;
  for (std::size_t i = 0; i < root.size(); ++i) {
    ObjectReader r(root[i], std::to_string(i), origin);
    Shot shot;
    shot.name = r.string("name", default_name(i));
    if (const std::string why = name_problem(shot.name); !why.empty())
      r.fail("name", "\"" + shot.name + "\" " + why + ": a shot's name is its directory in output.dir, made of "
                     "letters, digits, '.', '_' and '-', not starting with '.', at most " + std::to_string(kMaxName) +
                     " characters, and not \"" + kManifest + "\"");
    const bool has_position = r.find("position") != nullptr, has_sources = r.find("sources") != nullptr;
    if (has_position && has_sources)
      r.fail_at("shot " + std::to_string(i),
                "gives both \"position\" and \"sources\": give \"position\" to move the configuration's source, or "
                "\"sources\" to replace the configuration's sources, not both");
    if (!has_position && !has_sources) {
      r.finish();  // a misspelt "position" is named as such, not reported as missing
      r.missing("position", "each shot needs \"position\": [x, y, z] (the configuration's source moved there) or "
                            "\"sources\": [{\"position\": [x, y, z], ...}, ...]");
    }
    if (has_position) {
      if (cfg.sources.size() != 1)
        r.fail("position", "moves the configuration's one source, but the configuration has " +
                               std::to_string(cfg.sources.size()) +
                               " sources: give this shot \"sources\": [{\"position\": [x, y, z], \"frequency\": f, "
                               "...}] instead, or one source in the configuration (its wavelet is every shot's)");
      const std::vector<double> p = r.numbers("position", {}, 3);
      Source s = cfg.sources[0];
      s.position = {p[0], p[1], p[2]};
      shot.sources = {s};
    } else {
      sources_key.read(r, shot, origin);
      if (shot.sources.empty()) r.fail("sources", "must hold at least one source [{\"position\": [x, y, z], ...}]");
    }
    r.finish();
    for (std::size_t j = 0; j < shot.sources.size(); ++j)
      if (!inside_grid(shot.sources[j].position, cfg.shape, cfg.spacing))
        r.fail(has_position ? std::string("position") : "sources." + std::to_string(j) + ".position",
               vec(shot.sources[j].position) + " is outside the grid: each coordinate must lie in " +
                   grid_hull(cfg.shape, cfg.spacing));
    if (const auto [at, fresh] = names.emplace(shot.name, i); !fresh)
      throw Error(origin + ": shots " + std::to_string(at->second) + " and " + std::to_string(i) +
                  " are both named \"" + shot.name +
                  "\": each shot needs a name of its own (it names the shot's directory in output.dir; "
                  "a shot without \"name\" is called shotNNNN after its place in the list)");
    shots.push_back(std::move(shot));
  }
  return shots;
}

std::vector<Shot> parse_shots_file(const std::string& path, const Config& cfg) {
  return parse_shots(json_reader::read_file(path, "shots file"), cfg, path);
}

Config shot_config(const Config& cfg, const Shot& shot) {
  Config c = cfg;
  c.sources = shot.sources;
  c.out_dir = shot_dir(cfg, shot);
  return c;
}

Plan check_shots(const Config& cfg, const std::vector<Shot>& shots, bool overwrite, const RunInputs& inputs) {
  require(!shots.empty(), "check_shots: no shots");
  const io::RunDirectory::Mode mode = mode_of(overwrite);
  io::RunDirectory::preflight(cfg.out_dir, shots_files(cfg, shots, inputs), mode);
  for (const Shot& s : shots) {
    const std::string dir = shot_dir(cfg, s);
    io::RunDirectory::preflight(dir, shot_dir_files(cfg, inputs, dir), mode);
  }
  // What every shot shares: memory, model, grid, dt, receivers (a shot changes only sources).
  Config bare = cfg;
  bare.sources.clear();
  require_host_memory(bare, run_device(bare));
  const Plan p = cfg.precision == Precision::f32 ? plan_without_sources<float>(bare) : plan_without_sources<double>(bare);
  for (std::size_t i = 0; i < shots.size(); ++i) {
    const Config c = shot_config(cfg, shots[i]);
    try {
      check_source_positions(c);
      check_source_parameters(c, p.dt);
    } catch (const Error& e) {
      throw Error("shot " + std::to_string(i) + " (\"" + shots[i].name + "\"): " + e.what());
    }
  }
  return p;
}

std::string shot_results_json(const Config& cfg, const std::vector<Shot>& shots, const std::vector<ShotResult>& results) {
  ordered a = ordered::array();
  for (const ShotResult& r : results) {
    require(r.index < shots.size(), "shot_results_json: shot index " + std::to_string(r.index) + " is not in the list");
    const Shot& s = shots[r.index];
    const std::filesystem::path dir = shot_dir(cfg, s);
    ordered e;
    e["index"] = r.index;
    e["name"] = s.name;
    e["rank"] = r.rank;
    e["dir"] = s.name;
    e["sources"] = sources_json(s.sources);
    e["device"] = to_string(r.report.device);
    e["steps"] = r.report.last_step;
    e["wall_s"] = r.report.wall_s;
    e["compute_s"] = r.report.compute_s;
    e["gpts_per_s"] = r.report.gpts_per_s;
    e["digest"] = r.report.plan.digest;
    ordered files = ordered::array();
    for (const std::string& o : r.report.outputs)
      files.push_back((std::filesystem::path(s.name) / std::filesystem::path(o).lexically_relative(dir)).string());
    e["files"] = files;
    e["warnings"] = r.report.warnings;
    a.push_back(e);
  }
  return a.dump();
}

struct ShotsDirectory::Impl {
  Config cfg;
  std::vector<Shot> shots;
  io::RunDirectory dir;
  Impl(const Config& c, const std::vector<Shot>& s, bool overwrite, const RunInputs& inputs)
      : cfg(c), shots(s), dir(c.out_dir, shots_files(c, s, inputs), mode_of(overwrite)) {}
};

ShotsDirectory::ShotsDirectory(const Config& cfg, const std::vector<Shot>& shots, bool overwrite,
                               const RunInputs& inputs)
    : impl_(std::make_unique<Impl>(cfg, shots, overwrite, inputs)) {}
ShotsDirectory::~ShotsDirectory() = default;

std::string ShotsDirectory::write_manifest(const std::vector<std::string>& results_json, int ranks, double wall_s) const {
  const std::vector<Shot>& shots = impl_->shots;
  std::vector<ordered> entries(shots.size());
  for (const std::string& text : results_json) {
    const ordered a = ordered::parse(text);
    for (const ordered& e : a) {
      const std::size_t i = e.at("index").get<std::size_t>();
      require(i < shots.size() && entries[i].is_null(),
              "internal: shot " + std::to_string(i) + " was reported twice or is not in the list");
      entries[i] = e;
    }
  }
  for (std::size_t i = 0; i < shots.size(); ++i)
    require(!entries[i].is_null(), "internal: no process reported shot " + std::to_string(i) + " (\"" + shots[i].name + "\")");
  ordered m;
  m["ranks"] = ranks;
  m["wall_s"] = wall_s;
  m["config"] = ordered::parse(to_json(impl_->cfg));
  m["config"].erase("sources");  // each shot's are below
  m["shots"] = entries;
  const std::string path = (std::filesystem::path(impl_->cfg.out_dir) / kManifest).string();
  const std::string text = m.dump(2) + "\n";
  io::AtomicFile f(path);
  f.write(text.data(), text.size());
  f.commit();
  return path;
}

}  // namespace strata::wave

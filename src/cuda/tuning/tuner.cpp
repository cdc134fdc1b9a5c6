// The tuner (tuner.hpp) and the device-independent half of the public API (strata/tuning.hpp):
// modes, the cache's location, notes, the process's choices.
#include "cuda/tuning/tuner.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <map>
#include <mutex>
#include <set>

#include "cuda/tuning/shipped_shapes.hpp"
#include "strata/error.hpp"

namespace strata::tuning {

namespace {

// The on-demand measurement's grid: far larger than L2, like `strata bench`'s default.
constexpr int kTuneSize = 512;

struct DeviceState {
  DeviceKey key;
  bool cache_read = false;
  CacheEntry entry;  // this device's measurements: from the cache, then what this process adds
  std::map<std::string, Choice> chosen;
};

struct State {
  std::mutex m;
  std::map<int, DeviceState> devices;
  std::vector<Choice> order;
  std::set<std::string> said;  // notes that are said once per process
  std::atomic<int> mode{-1};   // set_mode's, or -1: STRATA_TUNE's
  std::mutex handler_m;
  std::function<void(const std::string&)> handler;
};

State& state() {
  static State s;
  return s;
}

void emit(const std::vector<std::string>& notes) {
  std::function<void(const std::string&)> h;
  {
    std::lock_guard<std::mutex> lock(state().handler_m);
    h = state().handler;
  }
  if (h)
    for (const std::string& n : notes) h(n);
}

// Appends `note` unless this process said it already (st.m held).
void once(std::vector<std::string>& notes, const std::string& note) {
  if (state().said.insert(note).second) notes.push_back(note);
}

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? std::string(v) : std::string();
}

std::string utc_now() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char b[32];
  std::strftime(b, sizeof b, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return b;
}

std::string fixed(double v, int digits) {
  char b[64];
  std::snprintf(b, sizeof b, "%.*f", digits, v);
  return b;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n == 0 ? 0 : n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

int index_of(const FamilySpec& f, const std::string& variant) {
  const auto it = std::find(f.variants.begin(), f.variants.end(), variant);
  return it == f.variants.end() ? 0 : int(it - f.variants.begin());
}

// The first word of a GPU's name that holds a letter and a digit ("H200" in "NVIDIA H200"):
// the model a new shipped row serves as the nearest.
std::string model_token(const std::string& name) {
  std::size_t start = 0;
  while (start < name.size()) {
    std::size_t end = name.find(' ', start);
    if (end == std::string::npos) end = name.size();
    const std::string w = name.substr(start, end - start);
    if (std::any_of(w.begin(), w.end(), ::isdigit) && std::any_of(w.begin(), w.end(), ::isalpha))
      return w;
    start = end + 1;
  }
  return name;
}

// The timing, sized down when the grid does not fit in free memory.
FamilyTiming measure(const DeviceOps& ops, const FamilySpec& f, const Fallback& fb, void* stream,
                     int size, const Budget& budget) {
  std::vector<int> sizes{size};
  for (int s : {384, 256, 128})
    if (s < size) sizes.push_back(s);
  for (std::size_t i = 0;; ++i) {
    std::unique_ptr<CandidateTimer> timer;
    try {
      timer = ops.timer(f, Extent{sizes[i], sizes[i], sizes[i]}, stream);
    } catch (const Error&) {
      if (i + 1 == sizes.size()) throw;
      continue;
    }
    const auto t0 = std::chrono::steady_clock::now();
    FamilyTiming t = time_family(f, index_of(f, fb.variant), *timer, budget);
    t.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return t;
  }
}

FamilyRecord record_of(const FamilyTiming& t) {
  FamilyRecord r{t.chosen, nlohmann::json::object()};
  r.detail["when"] = utc_now();
  r.detail["grid"] = {t.shape.nx, t.shape.ny, t.shape.nz};
  r.detail["incumbent"] = t.incumbent;
  nlohmann::json ms = nlohmann::json::object(), refused = nlohmann::json::object();
  for (const CandidateTime& c : t.candidates)
    if (c.refused.empty())
      ms[c.variant] = c.median_ms;
    else
      refused[c.variant] = c.refused;
  r.detail["median_ms"] = ms;
  if (!refused.empty()) r.detail["refused"] = refused;
  return r;
}

double speedup(const FamilyTiming& t) {
  double inc = 0, won = 0;
  for (const CandidateTime& c : t.candidates) {
    if (c.variant == t.incumbent) inc = c.median_ms;
    if (c.variant == t.chosen) won = c.median_ms;
  }
  return won > 0 ? inc / won : 1;
}

DeviceState& device_state(const DeviceOps& ops, int device, Mode md,
                          std::vector<std::string>& notes) {
  State& st = state();
  auto [it, fresh] = st.devices.try_emplace(device);
  DeviceState& d = it->second;
  if (fresh) {
    d.key = ops.key(device);
    d.entry.key = d.key;
  }
  if (!d.cache_read && md != Mode::off) {
    d.cache_read = true;
    const CacheFile file = read_cache(cache_path());
    for (const std::string& n : file.notes) once(notes, n);
    if (const CacheEntry* e = file.find(d.key))
      for (const auto& [family, rec] : e->families) d.entry.families.emplace(family, rec);
  }
  return d;
}

// This device's cached record of a family, when it names one of this build's candidates.
const FamilyRecord* usable_record(const DeviceState& d, const FamilySpec& f,
                                  std::vector<std::string>& notes) {
  const auto it = d.entry.families.find(f.name);
  if (it == d.entry.families.end()) return nullptr;
  if (f.has(it->second.variant)) return &it->second;
  once(notes, "tuning cache " + cache_path() + ": " + f.name + " names " + it->second.variant +
                  ", not a shape of this build: ignored");
  return nullptr;
}

std::atomic<int> g_generation{0};

}  // namespace

// ---- the public API's device-independent half --------------------------------------

std::string_view to_string(Mode mode) {
  switch (mode) {
    case Mode::automatic:
      return "auto";
    case Mode::measure:
      return "measure";
    case Mode::cached:
      return "cached";
    case Mode::off:
      return "off";
  }
  return "auto";
}

Mode parse_mode(std::string_view text, std::string_view source) {
  for (Mode m : {Mode::automatic, Mode::measure, Mode::cached, Mode::off})
    if (text == to_string(m)) return m;
  throw Error(std::string(source) + "='" + std::string(text) +
              "': allowed auto (cache, else shapes shipped for this GPU model, else measure at "
              "first use; the default), measure (cache, else measure at first use), cached (never "
              "measure), off (shipped shapes or the policy; no cache)");
}

Mode mode() {
  const int set = state().mode.load();
  if (set >= 0) return Mode(set);
  const std::string v = env("STRATA_TUNE");
  return v.empty() ? Mode::automatic : parse_mode(v, "STRATA_TUNE");
}

void set_mode(Mode m) { state().mode.store(int(m)); }

std::string cache_path() {
  if (std::string p = env("STRATA_TUNE_CACHE"); !p.empty()) return p;
  // The XDG base directory rules: a relative XDG_CACHE_HOME is ignored.
  if (std::string x = env("XDG_CACHE_HOME"); !x.empty() && x[0] == '/')
    return x + "/strata/tuning.json";
  if (std::string h = env("HOME"); !h.empty()) return h + "/.cache/strata/tuning.json";
  return "";
}

void set_note_handler(std::function<void(const std::string&)> handler) {
  std::lock_guard<std::mutex> lock(state().handler_m);
  state().handler = std::move(handler);
}

std::vector<Choice> choices() {
  std::lock_guard<std::mutex> lock(state().m);
  return state().order;
}

std::vector<std::string> families() {
  std::vector<std::string> out;
  for (const FamilySpec& f : tuned_families()) out.push_back(f.name);
  return out;
}

CacheStatus cache_status() {
  CacheStatus s;
  s.path = cache_path();
  const CacheFile f = read_cache(s.path);
  s.exists = f.exists;
  s.usable = f.ours;
  s.entries = int(f.entries.size());
  s.notes = f.notes;
  return s;
}

// ---- the rules ---------------------------------------------------------------------

FamilyTiming time_family(const FamilySpec& f, int incumbent, CandidateTimer& timer,
                         const Budget& budget) {
  const auto steady = [] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
  };
  const std::function<double()> now = budget.clock ? budget.clock : std::function<double()>(steady);
  const double t0 = now();
  const int n = int(f.variants.size());
  FamilyTiming t;
  t.family = f.name;
  t.shape = timer.shape();
  t.incumbent = f.variants.at(std::size_t(incumbent));
  t.candidates.resize(std::size_t(n));
  std::vector<int> usable;
  for (int i = 0; i < n; ++i) {
    CandidateTime& c = t.candidates[std::size_t(i)];
    c.variant = f.variants[std::size_t(i)];
    if (i != incumbent) {
      try {
        c.refused = timer.check_bits(i, incumbent);
      } catch (const Error& e) {
        c.refused = e.what();
      }
      if (!c.refused.empty()) continue;
    }
    usable.push_back(i);
  }
  // Warm-up (module loading, first-launch costs) that also says how long one launch takes.
  double per_launch = 0;
  for (int i : usable) {
    try {
      per_launch = std::max(per_launch, timer.time_ms(i, 2) / 2);
    } catch (const Error& e) {
      if (i == incumbent) throw;
      t.candidates[std::size_t(i)].refused = e.what();
    }
  }
  std::erase_if(usable, [&](int i) { return !t.candidates[std::size_t(i)].refused.empty(); });
  const int launches =
      std::clamp(int(std::lround(budget.batch_ms / std::max(per_launch, 1e-3))), 1, 100);
  std::vector<std::vector<double>> samples(static_cast<std::size_t>(n));
  for (int round = 0; round < budget.max_rounds; ++round) {
    // Rotated order each round, so that a drift of the clocks falls on every candidate alike.
    for (std::size_t k = 0; k < usable.size(); ++k) {
      const int i = usable[(k + std::size_t(round)) % usable.size()];
      samples[std::size_t(i)].push_back(timer.time_ms(i, launches) / launches);
    }
    if (round + 1 >= budget.min_rounds && now() - t0 > budget.seconds) break;
  }
  for (int i : usable) {
    CandidateTime& c = t.candidates[std::size_t(i)];
    c.median_ms = median(samples[std::size_t(i)]);
    c.rounds = int(samples[std::size_t(i)].size());
  }
  int best = incumbent;
  for (int i : usable)
    if (t.candidates[std::size_t(i)].median_ms < t.candidates[std::size_t(best)].median_ms)
      best = i;
  const double inc = t.candidates[std::size_t(incumbent)].median_ms;
  t.chosen = inc <= t.candidates[std::size_t(best)].median_ms * (1 + budget.margin)
                 ? t.incumbent
                 : f.variants[std::size_t(best)];
  return t;
}

Fallback fallback_for(const FamilySpec& f, std::string_view device_name) {
  const ShippedMatch m = match_shipped(device_name);
  if (m.row) {
    const auto shapes = parse_shapes(m.row->shapes);
    const auto it = shapes.find(f.name);
    if (it != shapes.end() && f.has(it->second)) {
      if (m.exact)
        return {it->second, "shipped", std::string("measured on ") + m.row->device, true};
      return {it->second, "nearest",
              std::string("shipped for ") + m.row->device +
                  (*m.row->measured ? "" : ", not measured there yet"),
              false};
    }
  }
  return {f.variants.front(), "policy", "tuning/stencil_policy.hpp, measured on an H100", false};
}

Decision decide(Mode mode, const FamilyRecord* cached, const Fallback& fb) {
  const Decision use_fallback{false, fb.variant, fb.source, fb.detail};
  const Decision use_cache =
      cached ? Decision{false, cached->variant, "cache", cache_path()} : Decision{};
  switch (mode) {
    case Mode::off:
      return use_fallback;
    case Mode::cached:
      return cached ? use_cache : use_fallback;
    case Mode::automatic:
      if (cached) return use_cache;
      return fb.measured_here ? use_fallback : Decision{true, "", "", ""};
    case Mode::measure:
      return cached ? use_cache : Decision{true, "", "", ""};
  }
  return use_fallback;
}

Resolved resolve(const DeviceOps& ops, int device, const std::string& family, bool may_measure,
                 void* stream) {
  State& st = state();
  std::vector<std::string> notes;
  Resolved out;
  {
    std::lock_guard<std::mutex> lock(st.m);
    const FamilySpec* f = find_family(family);
    require(f != nullptr, "internal: no tuned family '" + family + "': allowed " + family_list());
    const Mode md = mode();
    DeviceState& d = device_state(ops, device, md, notes);
    if (const auto it = d.chosen.find(family); it != d.chosen.end())
      return {it->second.variant, true};
    const Fallback fb = fallback_for(*f, d.key.name);
    const Decision dec = decide(md, md == Mode::off ? nullptr : usable_record(d, *f, notes), fb);
    Choice c{device, family, dec.variant, dec.source, dec.detail};
    if (dec.measure && !may_measure) {
      out = {fb.variant, false};
    } else {
      if (dec.measure) {
        try {
          const FamilyTiming t = measure(ops, *f, fb, stream, kTuneSize, Budget{});
          d.entry.families[family] = record_of(t);
          const std::string why = save_entry(cache_path(), d.entry);
          c = {device, family, t.chosen, "measured", "at first use, " + utc_now()};
          notes.push_back("measured the launch shapes of " + family + " on " + d.key.name +
                          " at first use (" + fixed(t.seconds, 2) + " s, " +
                          std::to_string(t.candidates.size()) + " shapes on " + t.shape.str() +
                          "): " + t.chosen +
                          (t.chosen == t.incumbent
                               ? ", the default"
                               : ", " + fixed(speedup(t), 3) + "x the default " + t.incumbent) +
                          "; " + (why.empty() ? "saved in " + cache_path() : "not saved: " + why));
          once(notes,
               "(`strata tune` measures every family ahead of time; STRATA_TUNE=off never "
               "measures)");
        } catch (const Error& e) {
          notes.push_back("could not measure the launch shapes of " + family + " on " + d.key.name +
                          ": " + e.what() + "; running " + fb.variant + " (" + fb.source + ")");
          c = {device, family, fb.variant, fb.source, fb.detail};
        }
      }
      d.chosen[family] = c;
      st.order.push_back(c);
      out = {c.variant, true};
    }
  }
  emit(notes);
  return out;
}

TuneReport tune(const DeviceOps& ops, int device, const TuneOptions& opt,
                const std::function<void(const FamilyTiming&)>& on_family) {
  std::vector<const FamilySpec*> selected;
  for (const std::string& name : opt.families) {
    const FamilySpec* f = find_family(name);
    require(f != nullptr, "unknown family '" + name + "': allowed " + family_list());
    selected.push_back(f);
  }
  if (selected.empty())
    for (const FamilySpec& f : tuned_families()) selected.push_back(&f);
  require(opt.size >= 16 && opt.size <= 2048, "tuning grid edge " + std::to_string(opt.size) +
                                                  ": allowed 16 .. 2048 (512 is the default)");
  const auto t0 = std::chrono::steady_clock::now();
  TuneReport r;
  const DeviceKey key = ops.key(device);
  r.device = key.name;
  r.key = key.str();
  const std::string path = cache_path();
  const CacheFile file = read_cache(path);
  emit(file.notes);
  CacheEntry entry = file.find(key) ? *file.find(key) : CacheEntry{key, {}};
  std::map<std::string, std::string> shapes;
  for (const FamilySpec* f : selected) {
    const FamilyTiming t =
        measure(ops, *f, fallback_for(*f, key.name), nullptr, opt.size, Budget{});
    entry.families[f->name] = record_of(t);
    shapes[f->name] = t.chosen;
    {
      // From now on this process runs what was measured.
      std::lock_guard<std::mutex> lock(state().m);
      DeviceState& d = state().devices[device];
      d.key = key;
      d.entry.key = key;
      d.entry.families[f->name] = entry.families[f->name];
      const Choice c{device, f->name, t.chosen, "measured", "strata tune, " + utc_now()};
      if (d.chosen.count(f->name))
        std::erase_if(state().order,
                      [&](const Choice& o) { return o.device == device && o.family == f->name; });
      d.chosen[f->name] = c;
      state().order.push_back(c);
      ++g_generation;
    }
    if (on_family) on_family(t);
    r.families.push_back(t);
  }
  if (!opt.save) {
    r.cache = "not saved (asked not to)";
  } else {
    const std::string why = save_entry(path, entry);
    r.saved = why.empty();
    r.cache = why.empty() ? path : why;
  }
  if (shapes.size() == tuned_families().size())
    r.shipped_row =
        format_row(key.name, model_token(key.name),
                   "strata tune at " + std::to_string(opt.size) + "^3 on one " + key.name + " (" +
                       std::to_string(key.multiprocessors) + " SMs, driver " + key.driver +
                       "), strata " + key.strata + ", " + utc_now().substr(0, 10),
                   shapes);
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

DeviceStatus device_status(const DeviceOps& ops, int device) {
  DeviceStatus s;
  const DeviceKey key = ops.key(device);
  s.key = key.str();
  s.families = int(tuned_families().size());
  const Mode md = mode();
  const CacheFile file = md == Mode::off ? CacheFile{} : read_cache(cache_path());  // off: unread
  if (const CacheEntry* e = file.find(key))
    for (const FamilySpec& f : tuned_families())
      if (const auto it = e->families.find(f.name);
          it != e->families.end() && f.has(it->second.variant))
        ++s.cached_families;
  const Fallback fb = fallback_for(tuned_families().front(), key.name);
  const std::string without = fb.source == "policy" ? "the compiled policy (measured on an H100)"
                                                    : "the shapes " + fb.detail;
  switch (md) {
    case Mode::automatic:
      s.otherwise = fb.measured_here
                        ? "the shapes " + fb.detail + " (STRATA_TUNE=auto)"
                        : "measured at first use of each family and cached (STRATA_TUNE=auto)";
      break;
    case Mode::measure:
      s.otherwise = "measured at first use of each family and cached (STRATA_TUNE=measure)";
      break;
    case Mode::cached:
      s.otherwise = without + " (STRATA_TUNE=cached: never measures)";
      break;
    case Mode::off:
      s.otherwise = without + " for every family (STRATA_TUNE=off: the cache is not read)";
      break;
  }
  return s;
}

void reset() {
  std::lock_guard<std::mutex> lock(state().m);
  state().devices.clear();
  state().order.clear();
  state().said.clear();
  state().mode.store(-1);
  ++g_generation;
}

int generation() { return g_generation.load(); }

}  // namespace strata::tuning

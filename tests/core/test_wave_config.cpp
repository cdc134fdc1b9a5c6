// The wave configuration: the commented default parses to exactly the defaults and
// documents every key; overrides; every kind of invalid key or value is named in the error;
// the CFL limit and the automatic dt; the physics digest (what a checkpoint must match).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/error_of.hpp"
#include "solvers/wave/numerics.hpp"
#include "strata/wave.hpp"

using namespace strata;
using test::error_of;
using json = nlohmann::json;

namespace {

void leaf_keys(const json& j, const std::string& prefix, std::vector<std::string>& out) {
  for (auto it = j.begin(); it != j.end(); ++it) {
    if (it.value().is_object())
      leaf_keys(it.value(), prefix + it.key() + ".", out);
    else
      out.push_back(prefix + it.key());
  }
}

wave::Config tiny() {
  wave::Config c;
  c.shape = {16, 16, 16};
  c.device = Device::cpu;
  c.pml_width = 4;
  c.steps = 10;
  return c;
}

}  // namespace

TEST(WaveConfig, DefaultTextParsesToTheDefaults) {
  const wave::Config parsed = wave::parse_config(wave::default_config_text(), {}, "default");
  json a = json::parse(wave::to_json(parsed)), b = json::parse(wave::to_json(wave::Config{}));
  // The default text adds an example source and receiver line; everything else is default.
  EXPECT_EQ(parsed.sources.size(), 1u);
  EXPECT_EQ(parsed.receiver_lines.size(), 1u);
  a.erase("sources"), b.erase("sources");
  a["receivers"].erase("lines"), b["receivers"].erase("lines");
  EXPECT_EQ(a, b) << "the commented default configuration drifted from wave::Config's defaults";
}

TEST(WaveConfig, EveryKeyIsDocumentedInTheDefaultText) {
  const std::string text = wave::default_config_text();
  std::vector<std::string> keys;
  leaf_keys(json::parse(wave::to_json(wave::Config{})), "", keys);
  for (const std::string& k : keys) {
    const std::string leaf = k.substr(k.rfind('.') + 1);
    EXPECT_NE(text.find("\"" + leaf + "\""), std::string::npos)
        << k << " is not in the default text";
  }
}

TEST(WaveConfig, OverridesReachNestedKeysAndArrayElements) {
  const std::vector<std::string> sets = {"grid.shape=[8,9,10]",    "boundary.zmin=rigid",
                                         "sources.0.frequency=20", "receivers.points.0=[1,2,3]",
                                         "time.dt=0.001",          "scheme.precision=f64",
                                         "output.png.index=3"};
  const wave::Config c = wave::parse_config(wave::default_config_text(), sets);
  EXPECT_EQ(c.shape, (Extent{8, 9, 10}));
  EXPECT_EQ(c.faces[wave::zmin], wave::FaceKind::rigid);
  EXPECT_EQ(c.sources.at(0).frequency, 20.0);
  ASSERT_EQ(c.receiver_points.size(), 1u);
  EXPECT_EQ(c.receiver_points[0], (wave::Vec3{1, 2, 3}));
  EXPECT_EQ(*c.dt, 0.001);
  EXPECT_EQ(c.precision, Precision::f64);
  EXPECT_EQ(*c.png_index, 3);
  // dt back to automatic
  EXPECT_FALSE(wave::parse_config("{}", std::vector<std::string>{"time.dt=null"}).dt.has_value());
  EXPECT_NE(error_of([] {
              wave::parse_config("{}", std::vector<std::string>{"grid.shape"});
            }).find("key.path=VALUE"),
            std::string::npos);
  EXPECT_NE(error_of([] {
              wave::parse_config("{}", std::vector<std::string>{"sources.3.frequency=1"});
            }).find("past the end"),
            std::string::npos);
}

TEST(WaveConfig, InvalidKeysAndValuesAreNamed) {
  struct Case {
    std::string text, needle;
  };
  const Case cases[] = {
      {R"({"gird": {}})", "unknown key 'gird'"},
      {R"({"gird": {}})",
       "allowed keys at the top level: boundary, device, grid, model, output, receivers, scheme, "
       "sources, time"},
      {R"({"boundary": {"pml": {"widht": 3}}})",
       "unknown key 'boundary.pml.widht': allowed keys in 'boundary.pml': alpha, power, "
       "reflection, width"},
      {R"({"sources": [{"position": [1, 2, 3], "freq": 3}]})", "unknown key 'sources.0.freq'"},
      {R"({"grid": {"spacing": "ten"}})", "key 'grid.spacing': must be a number in (0, inf)"},
      {R"({"grid": {"spacing": -2}})", "grid.spacing"},
      {R"({"grid": {"shape": [8, 8]}})", "key 'grid.shape'"},
      {R"({"grid": {"shape": [8, 8, 0]}})", "each in [1, 1048576]"},
      {R"({"grid": {"shape": [0, 64, 64.5]}})", "got [0, 64, 64.5]"},  // as given, not [0.0, ...]
      {R"({"model": {"velocity": -1500}})", "key 'model.velocity'"},
      {R"({"model": {"type": "layered"}})", "model.layers' is required"},
      {R"({"model": {"type": "layered", "layers": [{"top": 5, "velocity": 2}]}})",
       "of the first layer must be 0"},
      {R"({"model": {"type": "layered", "layers": [{"top": 0, "velocity": 2}, {"top": 0, "velocity": 3}]}})",
       "deeper than the previous"},
      {R"({"model": {"type": "npy"}})", "model.file' is required"},
      {R"({"model": {"type": "granite"}})", "must be one of constant, layered, npy"},
      {R"({"scheme": {"order": 3}})", "must be 2, 4, 6 or 8"},
      {R"({"scheme": {"order": 10}})", "scheme.order"},
      {R"({"scheme": {"precision": "f16"}})", "must be one of f32, f64"},
      {R"({"time": {"dt": -1}})", "time.dt"},
      {R"({"time": {"dt": 0}})", "key 'time.dt': must be a number in (0, inf), got 0"},
      {R"({"time": {"cfl_safety": 1.5}})", "time.cfl_safety"},
      {R"({"time": {"steps": 2.5}})", "must be a whole number"},
      {R"({"boundary": {"zmin": "absorbing"}})", "must be one of pml, free, rigid, periodic"},
      {R"({"sources": [{"frequency": 3}]})", "sources.0.position' is required"},
      {R"({"sources": [{"position": [1, 2], "frequency": 3}]})", "sources.0.position"},
      {R"({"receivers": {"points": [[1, 2]]}})", "receivers.points.0"},
      {R"({"receivers": {"every": 0}})", "receivers.every"},
      {R"({"output": {"png": {"colormap": "jet"}}})", "seismic, viridis, gray"},
      {R"({"device": "tpu"})", "must be one of auto, cpu, cuda"},
      {R"({"grid": )", "not valid JSON"},
      {R"([1, 2])", "must be an object"},
  };
  for (const Case& c : cases) {
    const std::string m = error_of([&] { wave::parse_config(c.text, {}, "test.json"); });
    EXPECT_NE(m.find(c.needle), std::string::npos)
        << c.text << "\n  gave: " << m << "\n  wanted: " << c.needle;
    EXPECT_EQ(m.rfind("test.json", 0), 0u) << "the message should start with the file name: " << m;
  }
}

// What JSON allows but a configuration must not: a key given twice (the last would silently
// win), a top level that is null (it ran the defaults), empty text; parser jargon stays out
// of the message.
TEST(WaveConfig, DuplicateKeysNullAndEmptyTextAreRefused) {
  const struct {
    std::string text, needle;
  } cases[] = {
      {R"({"time": {"steps": 10, "steps": 20}})", "key 'time.steps' appears twice"},
      {R"({"grid": {}, "grid": {}})", "key 'grid' appears twice"},
      {R"({"sources": [{"position": [1, 2, 3]}, {"position": [1, 2, 3], "frequency": 1, "frequency": 2}]})",
       "key 'sources.1.frequency' appears twice"},
      {R"({"receivers": {"planes": [[], {"axis": "z", "axis": "y"}]}})",
       "'receivers.planes.1.axis' appears twice"},
      {"null", "the top level: must be an object"},
      {"  \n", "is empty"},
      {R"({"grid": {"shape": [8, 8, 8],})", "not valid JSON: parse error at line 1"},
  };
  for (const auto& c : cases) {
    const std::string m = error_of([&] { wave::parse_config(c.text, {}, "test.json"); });
    EXPECT_NE(m.find(c.needle), std::string::npos) << c.text << "\n  gave: " << m;
    EXPECT_EQ(m.rfind("test.json", 0), 0u) << m;
    EXPECT_EQ(m.find("json.exception"), std::string::npos) << m;
  }
  // Overrides do not turn a null top level into an object.
  EXPECT_NE(error_of([] {
              wave::parse_config("null", std::vector<std::string>{"time.steps=3"});
            }).find("must be an object"),
            std::string::npos);
  // An override whose value is an object is held to the same rule.
  EXPECT_NE(error_of([] {
              wave::parse_config("{}",
                                 std::vector<std::string>{R"(grid={"spacing": 1, "spacing": 2})"});
            }).find("appears twice"),
            std::string::npos);
}

TEST(WaveConfig, OverrideIndicesAndTextThatCannotBeUsedAreNamed) {
  const std::string huge = error_of([] {
    wave::parse_config("{}",
                       std::vector<std::string>{"sources.99999999999999999999999.frequency=20"});
  });
  EXPECT_NE(huge.find("index 99999999999999999999999 is past the end of an array of 0"),
            std::string::npos)
      << huge;
  const std::string bad_utf8 = error_of(
      [] { wave::parse_config("{}", std::vector<std::string>{"output.dir=out\xff\xfe"}); });
  EXPECT_NE(bad_utf8.find("not valid UTF-8"), std::string::npos) << bad_utf8;
  EXPECT_EQ(bad_utf8.find("type_error"), std::string::npos) << bad_utf8;
  // Valid UTF-8 beyond ASCII is fine.
  EXPECT_EQ(
      wave::parse_config("{}", std::vector<std::string>{"output.dir=r\xc3\xa9sultats"}).out_dir,
      "r\xc3\xa9sultats");
}

TEST(WaveConfig, ConfigurationFileMustBeAFile) {
  const std::string dir = ::testing::TempDir();
  const std::string m = error_of([&] { wave::parse_config_file(dir); });
  EXPECT_NE(m.find("is a directory"), std::string::npos) << m;
  const std::string missing =
      error_of([&] { wave::parse_config_file(dir + "/no-such-config.json"); });
  EXPECT_NE(missing.find("no-such-config.json"), std::string::npos) << missing;
  EXPECT_NE(missing.find("No such file"), std::string::npos) << missing;
}

// A bad value is blamed on what gave it: an override's own words ("--set time.steps=-5",
// "--dt -1"), also for what it created on its way (a new source without a position); the
// file's values stay the file's.
TEST(WaveConfig, ErrorsFromAnOverrideNameTheOverrideNotTheFile) {
  const std::string path = ::testing::TempDir() + "/strata_origin.json";
  { std::ofstream(path) << R"({"time": {"steps": 5}, "sources": [{"position": [1, 2, 3]}]})"; }
  const auto set = [](const std::string& text) { return wave::Override{text, "--set " + text}; };
  const std::vector<wave::Override> steps = {set("time.steps=-5")};
  const std::string m = error_of([&] { wave::parse_config_file(path, steps); });
  EXPECT_EQ(m.rfind("--set time.steps=-5: key 'time.steps': must be a whole number", 0), 0u) << m;
  const std::vector<wave::Override> dt = {{"time.dt=-1", "--dt -1"}};
  EXPECT_EQ(error_of([&] { wave::parse_config_file(path, dt); }).rfind("--dt -1: key 'time.dt'", 0),
            0u);
  const std::vector<wave::Override> new_source = {set("sources.1.frequency=12")};
  const std::string created = error_of([&] { wave::parse_config_file(path, new_source); });
  EXPECT_EQ(created.rfind("--set sources.1.frequency=12: key 'sources.1.position' is required", 0),
            0u)
      << created;
  const std::vector<wave::Override> unknown = {set("time.stepz=3")};
  EXPECT_EQ(error_of([&] {
              wave::parse_config_file(path, unknown);
            }).rfind("--set time.stepz=3: unknown key", 0),
            0u);
  const std::vector<wave::Override> shape = {set("grid.shape")};
  EXPECT_EQ(error_of([&] {
              wave::parse_config_file(path, shape);
            }).rfind("--set grid.shape: must look like", 0),
            0u);
  // The file's own mistake, beside a good override, is the file's.
  { std::ofstream(path) << R"({"time": {"steps": -5}})"; }
  const std::vector<wave::Override> order = {set("scheme.order=4")};
  EXPECT_EQ(
      error_of([&] { wave::parse_config_file(path, order); }).rfind(path + ": key 'time.steps'", 0),
      0u);
  // Plain strings (Python's overrides=) are named as overrides.
  const std::string plain =
      error_of([] { wave::parse_config("{}", std::vector<std::string>{"time.steps=-5"}); });
  EXPECT_EQ(plain.rfind("override 'time.steps=-5': key 'time.steps'", 0), 0u) << plain;
  std::remove(path.c_str());
}

TEST(WaveConfig, CommentsAreAllowed) {
  const wave::Config c =
      wave::parse_config("{ /* block */ \"grid\": {\"spacing\": 2.5} // line\n}");
  EXPECT_EQ(c.spacing, 2.5);
}

TEST(WaveConfig, StabilityLimitAndAutomaticDt) {
  // lambda_max = (3 / h^2) * (|a0| + 2 sum |a_r|): the symbol peaks at k = pi.
  EXPECT_NEAR(wave::laplacian_lambda_max(2, 1.0), 12.0, 1e-12);
  EXPECT_NEAR(wave::laplacian_lambda_max(4, 1.0), 16.0, 1e-12);
  const double s8 = 205.0 / 72 + 2 * (8.0 / 5 + 1.0 / 5 + 8.0 / 315 + 1.0 / 560);
  EXPECT_NEAR(wave::laplacian_lambda_max(8, 2.0), 3 * s8 / 4, 1e-12);
  EXPECT_NEAR(wave::stability_limit(4, 10.0, 2000.0), 2.0 / (2000.0 * std::sqrt(0.16)), 1e-15);

  wave::Config c = tiny();
  c.order = 8;
  c.spacing = 10;
  c.velocity = 2500;
  c.cfl_safety = 0.7;
  wave::Solver s(c);
  EXPECT_NEAR(s.plan().dt_limit, wave::stability_limit(8, 10.0, 2500.0), 1e-15);
  EXPECT_NEAR(s.plan().dt, 0.7 * s.plan().dt_limit, 1e-15);
  EXPECT_NEAR(s.plan().courant, 2500 * s.plan().dt / 10, 1e-12);
}

TEST(WaveConfig, DispersionWarning) {
  wave::Config c = tiny();
  c.sources = {{{80.0, 80.0, 80.0}, 40.0, 1.0, std::nullopt}};  // 2000 / (2.5 * 40 * 10) = 2 points
  EXPECT_FALSE(wave::Solver(c).plan().warnings.empty());
  c.sources[0].frequency = 5.0;  // 16 points
  EXPECT_TRUE(wave::Solver(c).plan().warnings.empty());
}

TEST(WaveConfig, DigestCoversThePhysicsOnly) {
  const wave::Config c = tiny();
  const std::string d = wave::Solver(c).plan().digest;
  EXPECT_EQ(d.size(), 16u);
  EXPECT_EQ(wave::Solver(c).plan().digest, d) << "not deterministic";
  auto same = [&](auto change) {
    wave::Config o = c;
    change(o);
    return wave::Solver(o).plan().digest == d;
  };
  EXPECT_TRUE(same([](wave::Config& o) { o.steps = 99; }));
  EXPECT_TRUE(same([](wave::Config& o) {
    o.out_dir = "elsewhere";
    o.snapshot_every = 3;
    o.checkpoint_every = 4;
  }));
  EXPECT_TRUE(same([](wave::Config& o) {
    o.device = Device::automatic;
    o.colormap = "gray";
  }));
  EXPECT_FALSE(same([](wave::Config& o) { o.velocity = 2001; }));
  EXPECT_FALSE(same([](wave::Config& o) { o.dt = 1e-4; }));
  EXPECT_FALSE(same([](wave::Config& o) { o.cfl_safety = 0.5; }));  // through the resolved dt
  EXPECT_FALSE(same([](wave::Config& o) { o.order = 4; }));
  EXPECT_FALSE(same([](wave::Config& o) { o.precision = Precision::f64; }));
  EXPECT_FALSE(same([](wave::Config& o) { o.faces[wave::zmin] = wave::FaceKind::rigid; }));
  EXPECT_FALSE(same([](wave::Config& o) { o.receiver_points = {{50, 50, 50}}; }));
  EXPECT_FALSE(same([](wave::Config& o) { o.sources = {{{50, 50, 50}, 5, 1, std::nullopt}}; }));
}

// output.segy: SEG-Y stores the recording interval in whole microseconds and at most 65535
// samples per trace. The plan refuses anything else before the first step, giving the dt
// to set; the key leaves the physics digest alone.
TEST(WaveConfig, SegyNeedsWholeMicrosecondsAndAtMost65535Rows) {
  EXPECT_FALSE(wave::Config{}.segy);
  EXPECT_TRUE(wave::parse_config("{}", std::vector<std::string>{"output.segy=true"}).segy);
  EXPECT_EQ(json::parse(wave::to_json(wave::Config{}))["output"]["segy"], false);

  wave::Config c = tiny();
  c.receiver_points = {{80, 80, 20}};
  c.segy = true;
  const double automatic = 0.8 * wave::stability_limit(c.order, c.spacing, c.velocity);
  ASSERT_NE(automatic * 1e6, std::round(automatic * 1e6));  // the case under test
  char want[64];
  std::snprintf(want, sizeof want, "set time.dt = %g,", std::floor(automatic * 1e6) / 1e6);
  const std::string m = error_of([&] { wave::Solver s(c); });
  EXPECT_NE(m.find("output.segy"), std::string::npos) << m;
  EXPECT_NE(m.find("chosen automatically"), std::string::npos) << m;
  EXPECT_NE(m.find(want), std::string::npos) << want << " not in: " << m;

  c.dt = 1e-3;
  const std::string digest = wave::Solver(c).plan().digest;
  c.segy = false;
  EXPECT_EQ(wave::Solver(c).plan().digest, digest) << "output.segy changed the physics digest";
  c.segy = true;
  c.dt = 0.00123456;
  c.receiver_every = 3;  // 3703.68 us: a whole-microsecond dt makes every interval whole
  EXPECT_NE(error_of([&] { wave::Solver s(c); }).find("set time.dt = 0.001234,"),
            std::string::npos);
  c.dt = 1e-4;
  c.receiver_every = 1;
  c.steps = 65534;  // 65535 rows: the most a trace holds
  EXPECT_EQ(error_of([&] { wave::Solver s(c); }), "");
  c.steps = 65535;
  EXPECT_NE(error_of([&] { wave::Solver s(c); }).find("65536 samples per receiver"),
            std::string::npos);
}

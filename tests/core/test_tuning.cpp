// Tuning's rules without a GPU: modes and STRATA_TUNE, the cache's location, its key, reading
// (corrupt, foreign, other-version files ignored and left alone) and merged writing, the
// shipped table against the compiled candidates and policy, the timing rounds, the time
// bound and the margin (fake timers), and which source each mode takes (fake devices).
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "common/error_of.hpp"
#include "common/tuning_env.hpp"
#include "cuda/tuning/cache.hpp"
#include "cuda/tuning/families.hpp"
#include "cuda/tuning/shipped_shapes.hpp"
#include "cuda/tuning/stencil_candidates.hpp"
#include "cuda/tuning/tuner.hpp"
#include "cuda/tuning/wave_policy.hpp"
#include "strata/tuning.hpp"

namespace fs = std::filesystem;
using namespace strata;
using namespace strata::tuning;
using strata::test::error_of;

namespace {

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

void spit(const fs::path& p, const std::string& text) {
  std::ofstream out(p, std::ios::binary);
  out << text;
}

// Each test: its own cache file and a fresh tuner (TuningEnv), notes collected.
class Tuning : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = env_.dir;
    cache_ = env_.cache;
    set_note_handler([this](const std::string& n) { notes_.push_back(n); });
  }
  bool noted(const std::string& part) const {
    for (const std::string& n : notes_)
      if (n.find(part) != std::string::npos) return true;
    return false;
  }

  test::TuningEnv env_;
  fs::path dir_;
  std::string cache_;
  std::vector<std::string> notes_;
};

DeviceKey key_of(const std::string& name, int sms = 132) {
  return {name, 85017493504ull, 2619000, sms, "580.159.04", strata_key()};
}

// A timer whose candidates take fixed times; the clock advances by what is "timed".
class FakeTimer : public CandidateTimer {
 public:
  FakeTimer(std::vector<double> ms, double* clock) : ms_(std::move(ms)), clock_(clock) {}
  Extent shape() const override { return {64, 64, 64}; }
  std::string check_bits(int i, int reference) override {
    checked.push_back({i, reference});
    if (throws == i) throw Error("candidate cannot be resident here");
    return i == wrong_bits ? "its output differs" : "";
  }
  double time_ms(int i, int launches) override {
    timed.push_back(i);
    const double t = ms_.at(std::size_t(i)) * launches;
    if (clock_) *clock_ += t * 1e-3;
    return t;
  }
  std::vector<std::pair<int, int>> checked;
  std::vector<int> timed;
  int wrong_bits = -1, throws = -1;

 private:
  std::vector<double> ms_;
  double* clock_;
};

// A device backend of fake GPUs: names by index, candidate times per family (the policy
// 1.0 ms, the second candidate `fast` ms, the others 2 ms), and fields that fit only up to
// `max_edge`.
class FakeOps : public DeviceOps {
 public:
  explicit FakeOps(std::vector<std::string> names) : names_(std::move(names)) {}
  DeviceKey key(int device) const override { return key_of(names_.at(std::size_t(device))); }
  std::unique_ptr<CandidateTimer> timer(const FamilySpec& f, Extent shape, void*) const override {
    ++timers;
    shapes.push_back(shape);
    if (shape.nx > max_edge) throw Error("needs more device memory than is free");
    std::vector<double> ms(f.variants.size(), 2.0);
    ms[0] = 1.0;
    if (ms.size() > 1) ms[1] = fast;
    return std::make_unique<FakeTimer>(ms, nullptr);
  }
  mutable int timers = 0;
  mutable std::vector<Extent> shapes;
  double fast = 0.5;
  int max_edge = 1 << 20;

 private:
  std::vector<std::string> names_;
};

const FamilySpec& family(const std::string& name) {
  const FamilySpec* f = find_family(name);
  EXPECT_NE(f, nullptr) << name;
  return *f;
}

}  // namespace

// ---- modes and the environment -------------------------------------------------------

TEST_F(Tuning, ModesParseAndUnknownValuesAreRefusedNamingTheAllowedOnes) {
  EXPECT_EQ(parse_mode("auto", "x"), Mode::automatic);
  EXPECT_EQ(parse_mode("measure", "x"), Mode::measure);
  EXPECT_EQ(parse_mode("cached", "x"), Mode::cached);
  EXPECT_EQ(parse_mode("off", "x"), Mode::off);
  for (Mode m : {Mode::automatic, Mode::measure, Mode::cached, Mode::off})
    EXPECT_EQ(parse_mode(to_string(m), "x"), m);
  const std::string why = error_of([] { parse_mode("fast", "STRATA_TUNE"); });
  EXPECT_NE(why.find("STRATA_TUNE='fast'"), std::string::npos) << why;
  for (const char* allowed : {"auto", "measure", "cached", "off"})
    EXPECT_NE(why.find(allowed), std::string::npos) << why;
  EXPECT_NE(error_of([] { parse_mode("OFF", "x"); }), "");
}

TEST_F(Tuning, ModeComesFromStrataTuneUnlessSet) {
  EXPECT_EQ(mode(), Mode::automatic);
  ::setenv("STRATA_TUNE", "", 1);
  EXPECT_EQ(mode(), Mode::automatic);
  ::setenv("STRATA_TUNE", "off", 1);
  EXPECT_EQ(mode(), Mode::off);
  ::setenv("STRATA_TUNE", "sometimes", 1);
  EXPECT_NE(error_of([] { mode(); }).find("STRATA_TUNE='sometimes'"), std::string::npos);
  set_mode(Mode::cached);  // --tune wins over the environment, even a bad one
  EXPECT_EQ(mode(), Mode::cached);
}

TEST_F(Tuning, CachePathFollowsStrataTuneCacheThenXdgThenHome) {
  EXPECT_EQ(cache_path(), cache_);
  ::unsetenv("STRATA_TUNE_CACHE");
  EXPECT_EQ(cache_path(), "");  // nothing to go by: nothing is cached
  ::setenv("HOME", "/home/someone", 1);
  EXPECT_EQ(cache_path(), "/home/someone/.cache/strata/tuning.json");
  ::setenv("XDG_CACHE_HOME", "relative/cache", 1);  // not absolute: ignored, as the spec says
  EXPECT_EQ(cache_path(), "/home/someone/.cache/strata/tuning.json");
  ::setenv("XDG_CACHE_HOME", "/var/cache/me", 1);
  EXPECT_EQ(cache_path(), "/var/cache/me/strata/tuning.json");
}

// ---- families, candidates and the shipped table --------------------------------------

TEST_F(Tuning, EveryFamilyHasItsPolicyFirstAndDistinctCandidates) {
  const auto& all = tuned_families();
  ASSERT_EQ(all.size(), 18u);  // 8 stencil kernels and the wave update x 2 precisions
  EXPECT_EQ(family("7pt.f32").variants.front(), cuda::StencilPolicy<float>::radius1::name());
  EXPECT_EQ(family("box27.f64").variants.front(), cuda::StencilPolicy<double>::radius1::name());
  EXPECT_EQ(family("copy.f32").variants.front(), cuda::StencilPolicy<float>::copy::name());
  EXPECT_EQ(family("star4.f32").variants.front(), cuda::StencilPolicy<float>::star34::name());
  EXPECT_EQ(family("star2.f64").variants.front(), cuda::StencilPolicy<double>::star2::name());
  EXPECT_EQ(family("wave4.f32").variants.front(), (cuda::WavePolicyShape<float, 4>::name()));
  EXPECT_EQ(family("wave4.f64").variants.front(), (cuda::WavePolicyShape<double, 4>::name()));
  for (const FamilySpec& f : all) {
    EXPECT_GE(f.variants.size(), 3u) << f.name;
    EXPECT_LE(f.variants.size(), 4u) << f.name << ": a handful, not a sweep (compile time)";
    std::set<std::string> unique(f.variants.begin(), f.variants.end());
    EXPECT_EQ(unique.size(), f.variants.size()) << f.name;
    EXPECT_EQ(f.name, family_name(f.kernel, f.precision));
  }
  EXPECT_EQ(find_family("7pt.f16"), nullptr);
  EXPECT_NE(family_list().find("star3.f64"), std::string::npos);
}

// The H100's row was measured there; filling a row again from `strata tune` (which may move
// it away from the compiled policy) keeps these true.
TEST_F(Tuning, ShippedRowsNameACandidateForEveryFamilyAndUnmeasuredRowsAreTheH100s) {
  ASSERT_GE(shipped_rows().size(), 2u);
  const std::map<std::string, std::string>* h100 = nullptr;
  std::map<std::string, std::map<std::string, std::string>> parsed;
  for (const ShippedRow& r : shipped_rows()) {
    parsed[r.device] = parse_shapes(r.shapes);
    const auto& shapes = parsed[r.device];
    EXPECT_EQ(shapes.size(), tuned_families().size()) << r.device;
    for (const FamilySpec& f : tuned_families()) {
      ASSERT_TRUE(shapes.count(f.name)) << r.device << " lacks " << f.name;
      EXPECT_TRUE(f.has(shapes.at(f.name))) << r.device << ": " << f.name << "="
                                            << shapes.at(f.name) << " is not a compiled candidate";
    }
    if (std::string(r.device) == "NVIDIA H100 80GB HBM3") {
      h100 = &shapes;
      EXPECT_STRNE(r.measured, "") << "the H100's row says where it was measured";
    }
  }
  ASSERT_NE(h100, nullptr);
  // A row not measured on its model yet carries the H100's shapes.
  for (const ShippedRow& r : shipped_rows())
    if (*r.measured == '\0') {
      EXPECT_EQ(parsed[r.device], *h100) << r.device;
    }
}

TEST_F(Tuning, ShippedRowsMatchTheExactNameFirstThenAWordOfIt) {
  const ShippedMatch h100 = match_shipped("NVIDIA H100 80GB HBM3");
  ASSERT_NE(h100.row, nullptr);
  EXPECT_TRUE(h100.exact);
  const ShippedMatch pcie = match_shipped("NVIDIA H100 PCIe");
  ASSERT_NE(pcie.row, nullptr);
  EXPECT_STREQ(pcie.row->device, "NVIDIA H100 80GB HBM3");
  EXPECT_FALSE(pcie.exact);
  const ShippedMatch h200 = match_shipped("NVIDIA H200");
  ASSERT_NE(h200.row, nullptr);
  EXPECT_STREQ(h200.row->device, "NVIDIA H200");
  EXPECT_EQ(h200.exact, *h200.row->measured != '\0');  // exact only once measured there
  const ShippedMatch nvl = match_shipped("NVIDIA H200 NVL");
  ASSERT_NE(nvl.row, nullptr);
  EXPECT_FALSE(nvl.exact);
  EXPECT_EQ(match_shipped("NVIDIA GH200 480GB").row, nullptr);  // "H200" is not a word of it
  EXPECT_EQ(match_shipped("NVIDIA A100-SXM4-80GB").row, nullptr);
  const ShippedRow rows[] = {{"GPU X", "X", "measured", "a.f32=v"}};
  EXPECT_TRUE(match_shipped("GPU X", rows).exact);
  EXPECT_FALSE(match_shipped("Other X", rows).exact);
}

TEST_F(Tuning, ShapesParseAndMalformedOnesAreRefused) {
  const auto m = parse_shapes("  a.f32=x  b.f64=y\n c.f32=z ");
  EXPECT_EQ(m.size(), 3u);
  EXPECT_EQ(m.at("b.f64"), "y");
  EXPECT_NE(error_of([] { parse_shapes("a.f32=x a.f32=y"); }).find("twice"), std::string::npos);
  EXPECT_NE(error_of([] { parse_shapes("a.f32"); }).find("family=variant"), std::string::npos);
  EXPECT_NE(error_of([] { parse_shapes("=x"); }), "");
}

TEST_F(Tuning, AFormattedRowIsSourceThatReadsBackToTheSameShapes) {
  std::map<std::string, std::string> shapes;
  for (const FamilySpec& f : tuned_families()) shapes[f.name] = f.variants.back();
  const std::string row =
      format_row("NVIDIA B200", "B200", "strata tune at 512^3, a \"quoted\" note", shapes);
  // Collect the string literals of each field (adjacent literals concatenate).
  std::vector<std::string> fields(1);
  bool in = false;
  for (std::size_t i = 0; i < row.size(); ++i) {
    const char c = row[i];
    if (in && c == '\\') {
      fields.back() += row[++i];
    } else if (c == '"') {
      in = !in;
    } else if (in) {
      fields.back() += c;
    } else if (c == ',') {
      fields.emplace_back();
    }
  }
  ASSERT_GE(fields.size(), 4u) << row;
  EXPECT_EQ(fields[0], "NVIDIA B200");
  EXPECT_EQ(fields[1], "B200");
  EXPECT_EQ(fields[2], "strata tune at 512^3, a \"quoted\" note");
  EXPECT_EQ(parse_shapes(fields[3]), shapes);
  std::istringstream lines(row);
  for (std::string line; std::getline(lines, line);) EXPECT_LE(line.size(), 100u) << line;
}

// ---- the cache file ------------------------------------------------------------------

TEST_F(Tuning, ACacheEntryIsWrittenAtomicallyAndReadBack) {
  EXPECT_FALSE(read_cache(cache_).exists);
  CacheEntry e{key_of("GPU A"), {{"7pt.f32", {"tma-128x32v8s3", {{"median_ms", 0.41}}}}}};
  EXPECT_EQ(save_entry(cache_, e), "");  // creates the directory
  const CacheFile c = read_cache(cache_);
  EXPECT_TRUE(c.exists && c.ours);
  EXPECT_TRUE(c.notes.empty());
  ASSERT_EQ(c.entries.size(), 1u);
  EXPECT_EQ(c.entries[0].key, e.key);
  EXPECT_EQ(c.entries[0].families.at("7pt.f32").variant, "tma-128x32v8s3");
  EXPECT_EQ(c.entries[0].families.at("7pt.f32").detail.at("median_ms"), 0.41);
  const auto doc = nlohmann::json::parse(slurp(cache_));
  EXPECT_EQ(doc.at("format"), kCacheFormat);
  EXPECT_EQ(doc.at("version"), kCacheVersion);
  for (const auto& f : fs::directory_iterator(fs::path(cache_).parent_path()))
    EXPECT_EQ(f.path().filename(), "tuning.json") << "a temporary was left behind";
}

TEST_F(Tuning, SavingMergesKeepsOtherDevicesAndReplacesStaleEntriesOfTheSameCard) {
  const CacheEntry a{key_of("GPU A"), {{"7pt.f32", {"v1", {}}}}};
  const CacheEntry b{key_of("GPU B"), {{"copy.f64", {"v2", {}}}}};
  ASSERT_EQ(save_entry(cache_, a), "");
  ASSERT_EQ(save_entry(cache_, b), "");
  CacheEntry a_more{a.key, {{"star4.f32", {"v3", {}}}}};  // another family, same key: merged
  ASSERT_EQ(save_entry(cache_, a_more), "");
  CacheFile c = read_cache(cache_);
  ASSERT_EQ(c.entries.size(), 2u);
  ASSERT_NE(c.find(a.key), nullptr);
  EXPECT_EQ(c.find(a.key)->families.size(), 2u);
  EXPECT_EQ(c.find(b.key)->families.at("copy.f64").variant, "v2");
  CacheEntry a_new_driver = a;
  a_new_driver.key.driver = "590.1";
  ASSERT_EQ(save_entry(cache_, a_new_driver), "");
  c = read_cache(cache_);
  EXPECT_EQ(c.entries.size(), 2u);
  EXPECT_EQ(c.find(a.key), nullptr) << "the same card under an old driver is stale";
  EXPECT_NE(c.find(a_new_driver.key), nullptr);
  EXPECT_NE(c.find(b.key), nullptr);
}

TEST_F(Tuning, KeysDifferByEveryField) {
  const DeviceKey k = key_of("GPU A");
  DeviceKey o = k;
  EXPECT_EQ(o, k);
  for (int field = 0; field < 6; ++field) {
    o = k;
    if (field == 0) o.name = "GPU B";
    if (field == 1) o.memory_bytes += 1;
    if (field == 2) o.memory_clock_khz += 1;
    if (field == 3) o.multiprocessors += 1;
    if (field == 4) o.driver = "1.2.3";
    if (field == 5) o.strata = "9.9.9 abc";
    EXPECT_NE(o, k) << field;
    EXPECT_EQ(o.same_card(k), field >= 4) << field;
  }
  EXPECT_NE(k.str().find("GPU A"), std::string::npos);
  EXPECT_NE(k.str().find("580.159.04"), std::string::npos);
}

TEST_F(Tuning, FilesThatAreNotStrataCachesAreIgnoredWithANoteAndNeverOverwritten) {
  const CacheEntry e{key_of("GPU A"), {{"7pt.f32", {"v1", {}}}}};
  fs::create_directories(fs::path(cache_).parent_path());
  const std::pair<std::string, std::string> cases[] = {
      {"{\"format\": \"strata-tuning\", \"version\": 1, \"entries\": [", "not JSON"},
      {"\x01\x02 binary", "not JSON"},
      {"", "not JSON"},
      {"{\"somebody\": \"else\"}", "not a strata tuning cache"},
      {"[1, 2, 3]", "not a strata tuning cache"},
      {"{\"format\": \"strata-tuning\", \"version\": 2, \"entries\": []}", "format version 2"},
  };
  for (const auto& [text, why] : cases) {
    spit(cache_, text);
    const CacheFile c = read_cache(cache_);
    EXPECT_TRUE(c.exists);
    EXPECT_FALSE(c.ours) << text;
    EXPECT_TRUE(c.entries.empty());
    ASSERT_EQ(c.notes.size(), 1u) << text;
    EXPECT_NE(c.notes[0].find(why), std::string::npos) << c.notes[0];
    EXPECT_NE(c.notes[0].find("left as it is"), std::string::npos) << c.notes[0];
    EXPECT_NE(save_entry(cache_, e), "") << text;
    EXPECT_EQ(slurp(cache_), text) << "a file strata does not own was changed";
  }
  fs::remove(cache_);
  fs::create_directories(cache_);  // a directory at the path
  EXPECT_NE(read_cache(cache_).notes.at(0).find("not a regular file"), std::string::npos);
  EXPECT_NE(save_entry(cache_, e), "");
}

TEST_F(Tuning, MalformedEntriesAreSkippedWithANoteAndTheRestIsRead) {
  fs::create_directories(fs::path(cache_).parent_path());
  nlohmann::json good = {{"key",
                          {{"name", "GPU A"},
                           {"memory_bytes", 1},
                           {"memory_clock_khz", 2},
                           {"multiprocessors", 3},
                           {"driver", "d"},
                           {"strata", "s"}}},
                         {"families", {{"7pt.f32", {{"variant", "v1"}}}}}};
  nlohmann::json no_key = {{"families", nlohmann::json::object()}};
  nlohmann::json bad_family = good;
  bad_family["families"]["7pt.f32"] = {{"median_ms", 1}};
  nlohmann::json bad_field = good;
  bad_field["key"]["multiprocessors"] = "many";
  spit(cache_, nlohmann::json{{"format", kCacheFormat},
                              {"version", kCacheVersion},
                              {"entries", {no_key, good, bad_family, bad_field, 7}}}
                   .dump());
  const CacheFile c = read_cache(cache_);
  EXPECT_TRUE(c.ours);
  ASSERT_EQ(c.entries.size(), 1u);
  EXPECT_EQ(c.entries[0].families.at("7pt.f32").variant, "v1");
  EXPECT_EQ(c.notes.size(), 4u);
  for (const std::string& n : c.notes) EXPECT_NE(n.find("ignored"), std::string::npos) << n;
  EXPECT_EQ(save_entry(cache_, {key_of("GPU B"), {}}),
            "");  // our format: rewritten, bad entries gone
  EXPECT_EQ(read_cache(cache_).entries.size(), 2u);
  EXPECT_TRUE(read_cache(cache_).notes.empty());
}

// ---- timing a family -----------------------------------------------------------------

TEST_F(Tuning, TheFastestCandidateWinsOnlyByMoreThanTheMargin) {
  const FamilySpec& f = family("7pt.f32");
  ASSERT_EQ(f.variants.size(), 4u);
  double clock = 0;
  Budget b;
  b.clock = [&] { return clock; };
  {
    FakeTimer t({1.0, 0.95, 1.2, 1.1}, &clock);
    const FamilyTiming r = time_family(f, 0, t, b);
    EXPECT_EQ(r.chosen, f.variants[1]);
    EXPECT_EQ(r.incumbent, f.variants[0]);
    EXPECT_NEAR(r.candidates[1].median_ms, 0.95, 1e-12);
    EXPECT_NEAR(r.candidates[2].median_ms, 1.2, 1e-12);
  }
  {
    FakeTimer t({1.0, 0.995, 1.2, 1.1}, &clock);  // 0.5% faster: within the 1% margin
    EXPECT_EQ(time_family(f, 0, t, b).chosen, f.variants[0]);
  }
  {
    FakeTimer t({1.0, 0.8, 1.2, 0.995}, &clock);  // the incumbent need not be the policy
    EXPECT_EQ(time_family(f, 3, t, b).chosen, f.variants[1]);
    FakeTimer u({1.0, 0.99, 1.2, 0.995}, &clock);
    EXPECT_EQ(time_family(f, 3, u, b).chosen, f.variants[3]);
  }
}

TEST_F(Tuning, CandidatesWhoseBitsDifferOrThatCannotRunAreNeverChosen) {
  const FamilySpec& f = family("7pt.f64");
  FakeTimer t({1.0, 0.5, 0.6, 0.9}, nullptr);
  t.wrong_bits = 1;
  t.throws = 2;
  const FamilyTiming r = time_family(f, 0, t, Budget{});
  EXPECT_EQ(r.chosen, f.variants[3]);
  EXPECT_EQ(r.candidates[1].refused, "its output differs");
  EXPECT_EQ(r.candidates[2].refused, "candidate cannot be resident here");
  EXPECT_EQ(r.candidates[1].rounds, 0);
  for (int i : t.timed) EXPECT_TRUE(i == 0 || i == 3) << i;
  // Every other candidate was checked against the incumbent, the incumbent never.
  ASSERT_EQ(t.checked.size(), 3u);
  for (const auto& [i, ref] : t.checked) EXPECT_TRUE(i != 0 && ref == 0);
}

TEST_F(Tuning, RoundsInterleaveTheCandidatesAndStopAtTheTimeBound) {
  const FamilySpec& f = family("copy.f32");
  const int n = int(f.variants.size());
  double clock = 0;
  Budget b;
  b.clock = [&] { return clock; };
  b.seconds = 1e9;  // no bound: every round
  FakeTimer all(std::vector<double>(std::size_t(n), 1.0), &clock);
  const FamilyTiming r = time_family(f, 0, all, b);
  for (const CandidateTime& c : r.candidates) EXPECT_EQ(c.rounds, b.max_rounds);
  // After the warm-up (two launches each), each round times every candidate once, starting
  // one further each round.
  ASSERT_EQ(all.timed.size(), std::size_t(n * (1 + b.max_rounds)));
  for (int round = 0; round < b.max_rounds; ++round) {
    std::set<int> seen;
    for (int k = 0; k < n; ++k) seen.insert(all.timed[std::size_t(n * (1 + round) + k)]);
    EXPECT_EQ(int(seen.size()), n) << round;
    EXPECT_EQ(all.timed[std::size_t(n * (1 + round))], round % n) << round;
  }
  // A batch lasts about batch_ms: 1 ms a launch -> 8 launches, so a round is 8 ms a candidate.
  clock = 0;
  b.seconds = 0.05;  // three rounds take 4 x 3 x 8 ms = 96 ms: the bound stops after the minimum
  FakeTimer bounded(std::vector<double>(std::size_t(n), 1.0), &clock);
  const FamilyTiming s = time_family(f, 0, bounded, b);
  for (const CandidateTime& c : s.candidates) EXPECT_EQ(c.rounds, b.min_rounds);
  EXPECT_LT(clock, 0.2);
}

// ---- which shape a mode takes --------------------------------------------------------

TEST_F(Tuning, FallbacksAreTheExactShippedRowThenTheNearestThenThePolicy) {
  const FamilySpec& f = family("star4.f32");
  const Fallback h100 = fallback_for(f, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(h100.source, "shipped");
  EXPECT_TRUE(h100.measured_here);
  const Fallback pcie = fallback_for(f, "NVIDIA H100 PCIe");
  EXPECT_EQ(pcie.source, "nearest");
  EXPECT_FALSE(pcie.measured_here);
  const Fallback other = fallback_for(f, "Some Future GPU");
  EXPECT_EQ(other.source, "policy");
  EXPECT_EQ(other.variant, f.variants.front());
}

TEST_F(Tuning, EachModeTakesItsSources) {
  const FamilyRecord cached{"v-cache", {}};
  const Fallback measured_here{"v-ship", "shipped", "", true},
      nearest{"v-near", "nearest", "", false};
  auto d = [](Mode m, const FamilyRecord* c, const Fallback& fb) { return decide(m, c, fb); };
  EXPECT_EQ(d(Mode::automatic, &cached, nearest).variant, "v-cache");
  EXPECT_EQ(d(Mode::automatic, nullptr, measured_here).variant, "v-ship");
  EXPECT_TRUE(d(Mode::automatic, nullptr, nearest).measure);
  EXPECT_EQ(d(Mode::measure, &cached, measured_here).source, "cache");
  EXPECT_TRUE(d(Mode::measure, nullptr, measured_here).measure);
  EXPECT_EQ(d(Mode::cached, &cached, nearest).variant, "v-cache");
  EXPECT_EQ(d(Mode::cached, nullptr, nearest).variant, "v-near");
  EXPECT_FALSE(d(Mode::cached, nullptr, nearest).measure);
  EXPECT_EQ(d(Mode::off, &cached, nearest).variant, "v-near");
  EXPECT_FALSE(d(Mode::off, nullptr, nearest).measure);
}

TEST_F(Tuning, ANewDeviceIsMeasuredOnceAtFirstUseSavedAndReadBackByTheNextProcess) {
  FakeOps ops({"Fake GPU X1"});
  const FamilySpec& f = family("7pt.f32");
  const Resolved r = resolve(ops, 0, "7pt.f32", true, nullptr);
  EXPECT_EQ(r.variant, f.variants[1]);  // the fake's fastest
  EXPECT_TRUE(r.remembered);
  EXPECT_EQ(ops.timers, 1);
  EXPECT_EQ(resolve(ops, 0, "7pt.f32", true, nullptr).variant, f.variants[1]);
  EXPECT_EQ(ops.timers, 1) << "measured once per process";
  ASSERT_EQ(choices().size(), 1u);
  EXPECT_EQ(choices()[0].source, "measured");
  EXPECT_TRUE(noted("measured the launch shapes of 7pt.f32 on Fake GPU X1")) << notes_.at(0);
  EXPECT_TRUE(noted("saved in " + cache_));
  const CacheFile c = read_cache(cache_);
  ASSERT_NE(c.find(ops.key(0)), nullptr);
  const FamilyRecord& rec = c.find(ops.key(0))->families.at("7pt.f32");
  EXPECT_EQ(rec.variant, f.variants[1]);
  EXPECT_EQ(rec.detail.at("median_ms").size(), f.variants.size());

  reset();  // the next process
  const Resolved again = resolve(ops, 0, "7pt.f32", true, nullptr);
  EXPECT_EQ(again.variant, f.variants[1]);
  EXPECT_EQ(ops.timers, 1) << "the cache answered";
  EXPECT_EQ(choices().at(0).source, "cache");
}

TEST_F(Tuning, OffNeitherMeasuresNorReadsTheCache) {
  FakeOps ops({"Fake GPU X1"});
  ASSERT_EQ(resolve(ops, 0, "box27.f64", true, nullptr).variant, family("box27.f64").variants[1]);
  reset();
  ::setenv("STRATA_TUNE", "off", 1);
  EXPECT_EQ(resolve(ops, 0, "box27.f64", true, nullptr).variant,
            family("box27.f64").variants.front());
  EXPECT_EQ(resolve(ops, 0, "sym27.f32", true, nullptr).variant,
            family("sym27.f32").variants.front());
  EXPECT_EQ(ops.timers, 1);
  EXPECT_EQ(choices().at(0).source, "policy");
  reset();
  ::setenv("STRATA_TUNE", "cached", 1);  // reads the cache, never measures
  EXPECT_EQ(resolve(ops, 0, "box27.f64", true, nullptr).variant, family("box27.f64").variants[1]);
  EXPECT_EQ(resolve(ops, 0, "sym27.f32", true, nullptr).variant,
            family("sym27.f32").variants.front());
  EXPECT_EQ(ops.timers, 1);
}

TEST_F(Tuning, AutoTakesShapesMeasuredOnThisModelAndMeasureMeasuresAnyway) {
  FakeOps ops({"NVIDIA H100 80GB HBM3", "NVIDIA H100 PCIe"});
  EXPECT_EQ(resolve(ops, 0, "star2.f32", true, nullptr).variant,
            family("star2.f32").variants.front());
  EXPECT_EQ(ops.timers, 0);
  EXPECT_EQ(choices().at(0).source, "shipped");
  EXPECT_EQ(resolve(ops, 1, "star2.f32", true, nullptr).variant, family("star2.f32").variants[1]);
  EXPECT_EQ(ops.timers, 1) << "a model with no row of its own is measured";
  reset();
  set_mode(Mode::measure);
  EXPECT_EQ(resolve(ops, 0, "star2.f32", true, nullptr).variant, family("star2.f32").variants[1]);
  EXPECT_EQ(ops.timers, 2);
}

TEST_F(Tuning, NothingIsMeasuredWhileTheStreamIsCapturedAndTheNextCallMeasures) {
  FakeOps ops({"Fake GPU X1"});
  const Resolved r = resolve(ops, 0, "copy.f32", false, nullptr);
  EXPECT_EQ(r.variant, family("copy.f32").variants.front());
  EXPECT_FALSE(r.remembered);
  EXPECT_EQ(ops.timers, 0);
  EXPECT_TRUE(choices().empty());
  EXPECT_EQ(resolve(ops, 0, "copy.f32", true, nullptr).variant, family("copy.f32").variants[1]);
  EXPECT_EQ(ops.timers, 1);
}

TEST_F(Tuning, AGridThatDoesNotFitIsMeasuredSmallerAndOneThatNeverFitsFallsBack) {
  FakeOps ops({"Fake GPU X1"});
  ops.max_edge = 300;
  EXPECT_EQ(resolve(ops, 0, "7pt.f32", true, nullptr).variant, family("7pt.f32").variants[1]);
  ASSERT_EQ(ops.shapes.size(), 3u);
  EXPECT_EQ(ops.shapes[0].nx, 512);
  EXPECT_EQ(ops.shapes[1].nx, 384);
  EXPECT_EQ(ops.shapes[2].nx, 256);
  ops.max_edge = 100;
  const Resolved r = resolve(ops, 0, "7pt.f64", true, nullptr);
  EXPECT_EQ(r.variant, family("7pt.f64").variants.front());
  EXPECT_TRUE(r.remembered) << "not retried at every call";
  EXPECT_TRUE(noted("could not measure the launch shapes of 7pt.f64"));
  EXPECT_TRUE(noted("needs more device memory"));
}

TEST_F(Tuning, ACorruptCacheIsNotedOnceAndMeasurementsAreKeptInTheProcessOnly) {
  fs::create_directories(fs::path(cache_).parent_path());
  spit(cache_, "{ not json");
  FakeOps ops({"Fake GPU X1"});
  EXPECT_EQ(resolve(ops, 0, "7pt.f32", true, nullptr).variant, family("7pt.f32").variants[1]);
  EXPECT_EQ(resolve(ops, 0, "star3.f32", true, nullptr).variant, family("star3.f32").variants[1]);
  int said = 0;
  for (const std::string& n : notes_)
    said += n.find("not JSON") != std::string::npos && n.find("tuning cache") == 0;
  EXPECT_EQ(said, 1) << "said once";
  EXPECT_TRUE(noted("not saved"));
  EXPECT_EQ(slurp(cache_), "{ not json");
}

TEST_F(Tuning, ACachedShapeThisBuildDoesNotHaveIsIgnored) {
  FakeOps ops({"Fake GPU X1"});
  ASSERT_EQ(save_entry(cache_, {ops.key(0), {{"7pt.f32", {"tma-999x1v1s9", {}}}}}), "");
  EXPECT_EQ(resolve(ops, 0, "7pt.f32", true, nullptr).variant, family("7pt.f32").variants[1]);
  EXPECT_EQ(ops.timers, 1);
  EXPECT_TRUE(noted("tma-999x1v1s9, not a shape of this build"));
}

TEST_F(Tuning, TuneMeasuresEveryFamilySavesThemAndPrintsAShippedRow) {
  FakeOps ops({"NVIDIA H100 80GB HBM3"});
  std::vector<std::string> seen;
  const int before = generation();
  const TuneReport r =
      tune(ops, 0, TuneOptions{}, [&](const FamilyTiming& t) { seen.push_back(t.family); });
  EXPECT_EQ(seen.size(), tuned_families().size());
  EXPECT_EQ(r.families.size(), tuned_families().size());
  EXPECT_TRUE(r.saved);
  EXPECT_EQ(r.cache, cache_);
  EXPECT_NE(generation(), before);
  EXPECT_EQ(r.device, "NVIDIA H100 80GB HBM3");
  ASSERT_NE(r.shipped_row.find("{\"NVIDIA H100 80GB HBM3\", \"H100\""), std::string::npos)
      << r.shipped_row;
  const CacheFile c = read_cache(cache_);
  ASSERT_NE(c.find(ops.key(0)), nullptr);
  EXPECT_EQ(c.find(ops.key(0))->families.size(), tuned_families().size());
  // This process now runs what was measured, even where a shipped row exists.
  EXPECT_EQ(resolve(ops, 0, "7pt.f32", true, nullptr).variant, family("7pt.f32").variants[1]);
  EXPECT_EQ(choices().size(), tuned_families().size());
  const DeviceStatus s = device_status(ops, 0);
  EXPECT_EQ(s.cached_families, s.families);
  EXPECT_NE(s.key.find("NVIDIA H100 80GB HBM3"), std::string::npos);
  set_mode(Mode::off);  // the cache is not read
  EXPECT_EQ(device_status(ops, 0).cached_families, 0);
  set_mode(Mode::automatic);

  TuneOptions some;
  some.families = {"7pt.f32", "box27.f64"};
  some.save = false;
  const TuneReport p = tune(ops, 0, some, {});
  EXPECT_EQ(p.families.size(), 2u);
  EXPECT_FALSE(p.saved);
  EXPECT_EQ(p.shipped_row, "") << "a row needs every family";
  some.families = {"7pt.f16"};
  const std::string why = error_of([&] { tune(ops, 0, some, {}); });
  EXPECT_NE(why.find("unknown family '7pt.f16'"), std::string::npos) << why;
  EXPECT_NE(why.find("box27.f64"), std::string::npos) << why;
  some.families = {};
  some.size = 8;
  EXPECT_NE(error_of([&] { tune(ops, 0, some, {}); }).find("16 .. 2048"), std::string::npos);
}

TEST_F(Tuning, DeviceStatusSaysWhereShapesComeFromInEachMode) {
  FakeOps ops({"NVIDIA H100 80GB HBM3", "Fake GPU X1"});
  EXPECT_EQ(device_status(ops, 1).cached_families, 0);
  EXPECT_NE(device_status(ops, 1).otherwise.find("measured at first use"), std::string::npos);
  EXPECT_NE(device_status(ops, 0).otherwise.find("measured on NVIDIA H100 80GB HBM3"),
            std::string::npos);
  ::setenv("STRATA_TUNE", "off", 1);
  EXPECT_NE(device_status(ops, 1).otherwise.find("the compiled policy"), std::string::npos);
  EXPECT_NE(device_status(ops, 1).otherwise.find("STRATA_TUNE=off"), std::string::npos);
  EXPECT_EQ(device_status(ops, 0).families, int(tuned_families().size()));
}

TEST_F(Tuning, CacheStatusReportsTheFileAndWhyItIsIgnored) {
  CacheStatus s = cache_status();
  EXPECT_EQ(s.path, cache_);
  EXPECT_FALSE(s.exists);
  ASSERT_EQ(save_entry(cache_, {key_of("GPU A"), {}}), "");
  s = cache_status();
  EXPECT_TRUE(s.exists && s.usable);
  EXPECT_EQ(s.entries, 1);
  spit(cache_, "[]");
  s = cache_status();
  EXPECT_FALSE(s.usable);
  ASSERT_EQ(s.notes.size(), 1u);
}

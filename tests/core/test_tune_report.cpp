// What `strata tune` prints and writes, and the benchmark's record of the launch shapes it ran
// (bench/tune_report.hpp, bench/report.cpp), from made-up reports: no GPU needed.
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "bench/bench.hpp"
#include "bench/tune_report.hpp"
#include "cuda/tuning/tuner.hpp"

using namespace strata;

namespace {

tuning::TuneReport report() {
  tuning::TuneReport r;
  r.device = "Fake GPU";
  r.key = "Fake GPU, 1024 MiB";
  r.cache = "/tmp/x/tuning.json";
  r.saved = true;
  r.shipped_row = "    {\"Fake GPU\", ...},\n";
  tuning::FamilyTiming t;
  t.family = "7pt.f64";
  t.shape = {100, 100, 100};
  t.incumbent = "tma-a";
  t.chosen = "tma-b";
  t.candidates = {
      {"tma-a", 2.0, 5, ""}, {"tma-b", 1.6, 5, ""}, {"tma-c", 0, 0, "its output differs"}};
  r.families.push_back(t);
  return r;
}

}  // namespace

TEST(TuneReport, TheTableGivesRatesRatiosTheChoiceAndWhyACandidateWasRefused) {
  std::ostringstream os;
  bench::print_tuning(os, report());
  const std::string text = os.str();
  std::istringstream lines(text);
  std::string header, a, b, c;
  std::getline(lines, header);
  std::getline(lines, a);
  std::getline(lines, b);
  std::getline(lines, c);
  EXPECT_NE(header.find("vs default"), std::string::npos) << text;
  EXPECT_NE(a.find("7pt.f64"), std::string::npos) << a;
  EXPECT_NE(a.find("default"), std::string::npos) << a;
  EXPECT_NE(a.find(" 0.5 "), std::string::npos) << a;  // 1e6 points in 2 ms: 0.5 Gpts/s
  EXPECT_NE(a.find(" 8.0 "), std::string::npos) << a;  // 16 bytes a point in f64
  EXPECT_EQ(b.find("7pt.f64"), std::string::npos) << "the family is named once";
  EXPECT_NE(b.find("1.250"), std::string::npos) << b;  // 2.0 / 1.6
  EXPECT_NE(b.find("chosen"), std::string::npos) << b;
  EXPECT_NE(c.find("refused: its output differs"), std::string::npos) << c;
}

TEST(TuneReport, TheWaveUpdateMovesFourValuesAPoint) {
  tuning::TuneReport r = report();
  r.families[0].family = "wave4.f32";
  const nlohmann::json j = bench::tuning_json(r);
  const auto& c = j.at("families").at(0).at("candidates").at(0);  // 1e6 points in 2 ms
  EXPECT_DOUBLE_EQ(c.at("gb_per_s").get<double>(), 0.5 * 16);
}

TEST(TuneReport, TheJsonHoldsEveryCandidateAndTheShippedRow) {
  const nlohmann::json j = bench::tuning_json(report());
  EXPECT_EQ(j.at("device"), "Fake GPU");
  EXPECT_EQ(j.at("saved"), true);
  EXPECT_EQ(j.at("shipped_row"), "    {\"Fake GPU\", ...},\n");
  const auto& f = j.at("families").at(0);
  EXPECT_EQ(f.at("chosen"), "tma-b");
  EXPECT_EQ(f.at("shape"), nlohmann::json::array({100, 100, 100}));
  EXPECT_EQ(f.at("candidates").size(), 3u);
  EXPECT_DOUBLE_EQ(f.at("candidates").at(1).at("gpts_per_s").get<double>(), 1e6 / 1.6e-3 / 1e9);
  EXPECT_EQ(f.at("candidates").at(2).at("refused"), "its output differs");
  EXPECT_FALSE(f.at("candidates").at(2).contains("gpts_per_s"));
}

TEST(TuneReport, BenchmarkRowsSayWhereTheirShapeCameFromAndTheJsonRecordsTheTuningState) {
  tuning::reset();
  tuning::set_mode(tuning::Mode::off);
  bench::Result r =
      bench::result_row("cuda", "7pt", "tma-128x64v8s2", Precision::f32, {8, 8, 8}, 8);
  r.extra["choice"] = "shipped";
  bench::Result other = bench::result_row("cpu", "sum", "ref", Precision::f32, {8, 1, 1}, 4);
  std::ostringstream os;
  bench::print_table(os, {r, other});
  std::istringstream lines(os.str());
  std::string header, row, plain;
  std::getline(lines, header);
  std::getline(lines, row);
  std::getline(lines, plain);
  EXPECT_NE(header.find("shape from"), std::string::npos) << header;
  EXPECT_NE(row.find("tma-128x64v8s2"), std::string::npos) << row;
  EXPECT_EQ(row.substr(row.size() - 7), "shipped") << row;
  EXPECT_NE(plain.back(), ' ') << "no trailing blanks: '" << plain << "'";
  const nlohmann::json doc = bench::to_json({other});
  EXPECT_EQ(doc.at("tuning").at("mode"), "off");
  EXPECT_TRUE(doc.at("tuning").at("choices").is_array());
  EXPECT_TRUE(doc.at("tuning").contains("cache"));
  tuning::reset();
}

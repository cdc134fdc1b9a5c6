#include "bench/tune_report.hpp"

#include <cstdio>
#include <ostream>

#include "cuda/tuning/families.hpp"
#include "strata/device.hpp"

namespace strata::bench {

namespace {

// Bytes per point at the optimal footprint: a stencil pass reads and writes one value, the
// wave update reads three (u, u_prev, c2) and writes one.
double bytes_per_point(const std::string& family) {
  const tuning::FamilySpec* f = tuning::find_family(family);
  const double values = f && f->kernel == "wave4" ? 4.0 : 2.0;
  return values * double(bytes_of(f ? f->precision : Precision::f32));
}

double gpts(const tuning::FamilyTiming& t, const tuning::CandidateTime& c) {
  return c.median_ms > 0 ? double(t.shape.points()) / (c.median_ms * 1e-3) / 1e9 : 0;
}

double incumbent_ms(const tuning::FamilyTiming& t) {
  for (const auto& c : t.candidates)
    if (c.variant == t.incumbent) return c.median_ms;
  return 0;
}

}  // namespace

void print_tuning(std::ostream& os, const tuning::TuneReport& r) {
  char line[512];
  std::snprintf(line, sizeof line, "%-14s %-18s %10s %9s %9s %11s\n", "family", "shape",
                "ms/launch", "Gpts/s", "GB/s", "vs default");
  os << line;
  for (const tuning::FamilyTiming& t : r.families) {
    bool first = true;
    for (const tuning::CandidateTime& c : t.candidates) {
      const char* family = first ? t.family.c_str() : "";
      first = false;
      if (!c.refused.empty()) {
        std::snprintf(line, sizeof line, "%-14s %-18s refused: %s\n", family, c.variant.c_str(),
                      c.refused.c_str());
        os << line;
        continue;
      }
      const double g = gpts(t, c), inc = incumbent_ms(t);
      std::string mark;
      if (c.variant == t.incumbent) mark = "default";
      if (c.variant == t.chosen) mark += mark.empty() ? "chosen" : ", chosen";
      std::snprintf(line, sizeof line, "%-14s %-18s %10.4f %9.1f %9.1f %11.3f  %s\n", family,
                    c.variant.c_str(), c.median_ms, g, g * bytes_per_point(t.family),
                    c.median_ms > 0 ? inc / c.median_ms : 0.0, mark.c_str());
      os << line;
    }
  }
}

nlohmann::json tuning_json(const tuning::TuneReport& r) {
  const BuildInfo& b = build_info();
  nlohmann::json doc = {{"device", r.device},
                        {"key", r.key},
                        {"commit", b.commit},
                        {"strata_version", b.version},
                        {"seconds", r.seconds},
                        {"cache", r.cache},
                        {"saved", r.saved},
                        {"shipped_row", r.shipped_row},
                        {"families", nlohmann::json::array()}};
  for (const tuning::FamilyTiming& t : r.families) {
    nlohmann::json cands = nlohmann::json::array();
    for (const tuning::CandidateTime& c : t.candidates) {
      nlohmann::json j = {{"variant", c.variant}, {"median_ms", c.median_ms}, {"rounds", c.rounds}};
      if (c.refused.empty()) {
        j["gpts_per_s"] = gpts(t, c);
        j["gb_per_s"] = gpts(t, c) * bytes_per_point(t.family);
      } else {
        j["refused"] = c.refused;
      }
      cands.push_back(j);
    }
    doc["families"].push_back({{"family", t.family},
                               {"shape", {t.shape.nx, t.shape.ny, t.shape.nz}},
                               {"incumbent", t.incumbent},
                               {"chosen", t.chosen},
                               {"seconds", t.seconds},
                               {"candidates", cands}});
  }
  return doc;
}

std::string choice_source(const std::string& family) {
  std::string source;
  for (const tuning::Choice& c : tuning::choices())
    if (c.family == family) source = c.source;
  return source;
}

}  // namespace strata::bench

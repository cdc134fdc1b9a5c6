// A wave run's report, piece by piece: what is known before the first step (start_report),
// the warnings as they arise (Warnings: each into the report and to on_warning), the rates
// once stepping is done (finish_rates), and report.json, written last (write_report).
// report.cpp also holds to_json(Report), to_text(Report) and Interrupted's message.
#pragma once

#include <string>

#include "drivers/wave/progress.hpp"
#include "strata/wave.hpp"

namespace strata::wave {

Report start_report(const Config& c, const Plan& p);

struct Warnings {
  Report& rep;
  const RunOptions& opt;
  void operator()(const std::string& w) const;
};
// What a run says before its first step: the plan's warnings, no sources, no receivers,
// pictures without annotation.
void warn_before_run(const Config& c, const Plan& p, const Warnings& warn);

// gpts_per_s, gb_per_s and ratio_to_copy from steps_run and compute_s; `points` per step.
void finish_rates(Report& rep, double points);

// report.json in OUT_DIR, listed in its own outputs, with the phases up to now ("results"
// from t_results) and the wall time since t_start.
void write_report(Report& rep, const std::string& out_dir, PhaseTimes& times,
                  Clock::time_point t_results, Clock::time_point t_start);

}  // namespace strata::wave

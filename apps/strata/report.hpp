// What the verbs report about their own run: where the wall time went, phase by phase, and
// the JSON report (--json), written atomically, with the launch shapes the run took.
#pragma once

#include <chrono>
#include <string>

#include <nlohmann/json.hpp>

#include "apps/strata/commands.hpp"
#include "bench/tune_report.hpp"
#include "strata/atomic_file.hpp"
#include "strata/dist.hpp"
#include "strata/tuning.hpp"

namespace strata::cli {

using Clock = std::chrono::steady_clock;

// Where a run's wall time goes, phase by phase (ms), from the process start: the first
// entries are the time before the verb began, MPI's start under mpirun (mpi_start) and the
// rest (process_start: loading, option parsing, binding the GPU), each end() the time since
// the last, and total() everything up to now.
struct Phases {
  Clock::time_point start = process_start(), mark = Clock::now();
  nlohmann::ordered_json ms = first_entries(since(start, mark));
  static nlohmann::ordered_json first_entries(double before) {
    const double mpi = dist::Job::get().start_ms();
    if (mpi <= 0) return nlohmann::ordered_json::object({{"process_start", before}});
    return nlohmann::ordered_json::object({{"mpi_start", mpi}, {"process_start", before - mpi}});
  }
  void end(const char* phase) {
    const Clock::time_point now = Clock::now();
    ms[phase] = ms.value(phase, 0.0) + since(mark, now);  // a phase met twice adds up
    mark = now;
  }
  double of(const char* phase) const { return ms.value(phase, 0.0); }
  void total() { ms["total"] = since(start, Clock::now()); }
  static double since(Clock::time_point a, Clock::time_point b) {
    return std::chrono::duration<double, std::milli>(b - a).count();
  }
};

// The report as JSON at `path`, atomically: a failed write leaves what was there. Where the
// run's GPU kernels took tuned launch shapes, which and why ("launch_shapes").
template <class Json>
void write_report(const std::string& path, Json j) {
  if (!tuning::choices().empty()) j["launch_shapes"] = Json(bench::tuning_state());
  const std::string text = j.dump(2) + "\n";
  io::AtomicFile file(path);
  file.write(text.data(), text.size());
  file.commit();
}

}  // namespace strata::cli

// What a run reports about itself, for every verb and for Python alike: where its wall time
// went, phase by phase, and the JSON report, written atomically with the launch shapes the
// run's GPU kernels took.
#pragma once

#include <chrono>
#include <string>

#include <nlohmann/json.hpp>

#include "drivers/outputs.hpp"

namespace strata::drivers {

using Clock = std::chrono::steady_clock;

// Where a run's wall time goes, phase by phase (ms), from `start` (the process's start for
// the CLI): the first entries are the time before the run began, MPI's start under mpirun
// (mpi_start) and the rest (process_start: loading, option parsing, binding the GPU), each
// end() the time since the last, and total() everything up to now.
struct Phases {
  explicit Phases(Clock::time_point start = Clock::now());
  Clock::time_point start, mark;
  nlohmann::ordered_json ms;
  void end(const char* phase);  // a phase met twice adds up
  double of(const char* phase) const { return ms.value(phase, 0.0); }
  void total();
  static double since(Clock::time_point a, Clock::time_point b) {
    return std::chrono::duration<double, std::milli>(b - a).count();
  }
};

// The report as JSON at `path`, atomically: a failed write leaves what was there. Where the
// run's GPU kernels took tuned launch shapes, which and why ("launch_shapes").
void write_report(const std::string& path, nlohmann::ordered_json j);
void write_report(const std::string& path, nlohmann::json j);

}  // namespace strata::drivers

// A run's clocks. ProgressClock calls RunOptions::on_progress at most every
// progress_interval_s (each call synchronises the device, so the interval bounds what
// progress costs) and once more after the last step; PhaseTimes adds up where the wall time
// went (Report::phases_s). progress.cpp also holds to_text(Progress), the progress line the
// CLI and Python print.
#pragma once

#include <chrono>
#include <string>
#include <utility>
#include <vector>

#include "strata/wave.hpp"

namespace strata::wave {

using Clock = std::chrono::steady_clock;
inline double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

struct ProgressClock {
  const RunOptions& opt;
  int first = 0, total = 0;
  double points = 0;  // interior points per step
  Clock::time_point start = Clock::now(), last = Clock::now();

  bool due() const {
    return opt.on_progress && opt.progress_interval_s > 0 &&
           seconds_since(last) >= opt.progress_interval_s;
  }
  void report(int n, bool final);
};

// Seconds spent per phase of a run, accumulated, in the order the phases first appear.
struct PhaseTimes {
  std::vector<std::pair<std::string, double>> s;
  void add(const std::string& phase, double seconds) {
    for (auto& [name, v] : s)
      if (name == phase) return void(v += seconds);
    s.push_back({phase, seconds});
  }
  void add_since(const std::string& phase, Clock::time_point t0) { add(phase, seconds_since(t0)); }
};

}  // namespace strata::wave

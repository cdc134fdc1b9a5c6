// Where a V-cycle's time goes, level by level (STRATA_POISSON_LEVELS=1, a diagnostic): a mark
// at the cycle's start, after each level's way down (pre-smoothing, the residual restricted
// to the next level), after the coarsest level's solve and after each level's way up
// (prolongation, post-smoothing). On the GPU the marks are CUDA events on the solver's stream,
// kept in the cycle's graph as event nodes when it is captured, so a replayed cycle is timed as
// it runs; on the host, the clock (host passes run in program order). Every timed cycle's
// intervals are kept and the report gives their medians, rank 0's under mpirun.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "base/runtime.hpp"
#include "strata/error.hpp"
#include "strata/stream.hpp"

namespace strata::poisson {

class CycleMarks {
 public:
  // Whether STRATA_POISSON_LEVELS asks for the diagnostic ("1"; unset, "" or "0": no). Any
  // other value throws Error (validate checks it before a solve's work).
  static bool wanted() {
    const char* e = std::getenv("STRATA_POISSON_LEVELS");
    const std::string v = e ? e : "";
    require(v.empty() || v == "0" || v == "1",
            "STRATA_POISSON_LEVELS='" + v +
                "' is not 0 or 1 (1 times each part of a multigrid cycle, level by level: the "
                "report's level_ms)");
    return v == "1";
  }
  // `levels`: the levels one cycle visits, the coarsest included.
  CycleMarks(bool device, int levels)
      : device_(device), levels_(levels), marks_(2 * std::size_t(levels)) {
    if (device_) {
      events_.assign(marks_, nullptr);
      for (void*& e : events_) e = runtime::event_create_timed();
    }
    times_.resize(marks_);
    ms_.resize(marks_ - 1);
  }
  ~CycleMarks() {
    for (void* e : events_) runtime::event_destroy(e);
  }
  CycleMarks(const CycleMarks&) = delete;
  CycleMarks& operator=(const CycleMarks&) = delete;

  // The cycle begins: its marks from the first again.
  void begin() { next_ = 0; }
  // The next mark of the cycle, on `s`.
  void mark(Stream s) {
    const std::size_t i = next_++ % marks_;
    if (device_)
      runtime::event_record_in_graph(events_[i], s.handle);
    else
      times_[i] = std::chrono::steady_clock::now();
  }
  // After a cycle that ran (not one only captured): keeps its intervals (waits for its last
  // mark on the GPU).
  void keep() {
    if (next_ != marks_) return;  // not a whole cycle from level 0
    for (std::size_t i = 0; i + 1 < marks_; ++i)
      ms_[i].push_back(
          device_ ? double(runtime::event_elapsed_ms(events_[i], events_[i + 1]))
                  : std::chrono::duration<double, std::milli>(times_[i + 1] - times_[i]).count());
  }
  // Each part's median over the kept cycles: "down L" (level L's pre-smoothing and restricted
  // residual), "coarse L" (the coarsest level's solve: the gathered levels over several ranks),
  // "up L" (prolongation and post-smoothing), in the order the cycle runs them.
  std::vector<std::pair<std::string, double>> medians() const {
    std::vector<std::pair<std::string, double>> out;
    if (ms_.empty() || ms_[0].empty()) return out;
    const int last = levels_ - 1;
    for (std::size_t i = 0; i < ms_.size(); ++i) {
      std::vector<double> v = ms_[i];
      std::nth_element(v.begin(), v.begin() + std::ptrdiff_t(v.size() / 2), v.end());
      const int k = int(i);
      const std::string name = k < last    ? "down " + std::to_string(k)
                               : k == last ? "coarse " + std::to_string(last)
                                           : "up " + std::to_string(2 * last - k);
      out.emplace_back(name, v[v.size() / 2]);
    }
    return out;
  }

 private:
  bool device_;
  int levels_;
  std::size_t marks_, next_ = 0;
  std::vector<void*> events_;
  std::vector<std::chrono::steady_clock::time_point> times_;
  std::vector<std::vector<double>> ms_;  // per interval, per kept cycle
};

}  // namespace strata::poisson

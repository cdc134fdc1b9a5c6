// Timed CUDA events on a window of steps: the step timelines, diagnostics an environment
// variable switches on (STRATA_WAVE_TIMELINE for the wave's step, STRATA_IMAGING_TIMELINE for
// a fused imaging backward step). Steps first .. first + count - 1 of the owner's life each get
// a Marks, a struct of timed events (`start` and the milestones, recorded with record()); the
// medians of each milestone's time after `start` over those steps say where a step's time
// goes. Off, a step costs one counter increment.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdlib>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "cuda/check.hpp"
#include "cuda/handles.hpp"

namespace strata::cuda {

template <class Marks>
class StepMarks {
 public:
  // `variable`: the environment variable that switches the window on ("1"), read here, when
  // the owner is made (a run's setting, not the process's first run's).
  StepMarks(const char* variable, int first, int count) : first_(first), count_(count) {
    const char* e = std::getenv(variable);
    on_ = e && std::string(e) == "1";
  }

  // The next step's marks, or nullptr outside the window (or when off).
  Marks* next() {
    const int k = taken_++ - first_;
    if (!on_ || k < 0 || k >= count_) return nullptr;
    if (marks_.empty()) marks_.resize(std::size_t(count_));
    used_.resize(std::size_t(count_), false);
    used_[std::size_t(k)] = true;
    return &marks_[std::size_t(k)];
  }
  bool any() const { return !marks_.empty(); }

  // A timed event made at its first use, recorded on s.
  static void record(EventPtr& e, cudaStream_t s) {
    if (!e) {
      cudaEvent_t ev = nullptr;
      STRATA_CUDA_CHECK(cudaEventCreate(&ev));  // timed
      e.reset(ev);
    }
    STRATA_CUDA_CHECK(cudaEventRecord(e.get(), s));
  }

  // Each milestone's median ms after `start` over the marked steps that recorded it, in the
  // order given (one that none recorded is left out). The caller has waited for the device.
  std::vector<std::pair<std::string, double>> medians(
      std::initializer_list<std::pair<const char*, EventPtr Marks::*>> milestones) const {
    std::vector<std::pair<std::string, double>> out;
    for (const auto& [name, member] : milestones) {
      std::vector<double> ms;
      for (std::size_t k = 0; k < marks_.size(); ++k) {
        const Marks& m = marks_[k];
        if (!used_[k] || !m.start || !(m.*member)) continue;
        float t = 0;
        if (cudaEventElapsedTime(&t, m.start.get(), (m.*member).get()) == cudaSuccess)
          ms.push_back(double(t));
      }
      if (ms.empty()) continue;
      std::nth_element(ms.begin(), ms.begin() + std::ptrdiff_t(ms.size() / 2), ms.end());
      out.emplace_back(name, ms[ms.size() / 2]);
    }
    return out;
  }

 private:
  bool on_ = false;
  int first_ = 0, count_ = 0, taken_ = 0;
  std::vector<Marks> marks_;
  std::vector<bool> used_;
};

}  // namespace strata::cuda

// A step a solve repeats (a V-cycle, a preconditioner's cycle): run eagerly the first time,
// which initialises every kernel, then captured as a CUDA graph and replayed from then on.
// Host solves, and device solves with use_graphs off, always run it eagerly. The step must
// leave its buffers where it found them (Multigrid's cycles do), or a replay would miss.
#pragma once

#include <functional>

#include "base/runtime.hpp"
#include "strata/apply.hpp"

namespace strata::poisson {

class GraphedStep {
public:
  GraphedStep(Stream stream, bool capture) : s_(stream), capture_(capture) {}
  ~GraphedStep() { runtime::graph_destroy(exec_); }
  GraphedStep(const GraphedStep&) = delete;
  GraphedStep& operator=(const GraphedStep&) = delete;

  void run(const std::function<void()>& step) {
    if (exec_) return runtime::graph_launch(exec_, s_.handle);
    step();
    if (capture_) exec_ = runtime::graph_capture(s_.handle, step);
  }
  // Whether later runs replay a graph (the step's host code then no longer runs).
  bool captured() const { return exec_ != nullptr; }
  // Whether the step is captured after its first, eager run (device solves with graphs on).
  bool captures() const { return capture_; }

private:
  Stream s_;
  bool capture_;
  void* exec_ = nullptr;
};

}  // namespace strata::poisson

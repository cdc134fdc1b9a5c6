// The multigrid a method cycles with, in the precision P it runs in (a mixed-precision
// mgcg cycles in float under a double CG): the hierarchy, the cycle on it and the graph
// its V-cycle replays from. Built in the solve's setup; it stays where it was made (the
// cycle and the graph refer to the hierarchy's fields). The solve's vector type picks the
// hierarchy: one process (hierarchy.hpp) or partitioned over the ranks (dist_hierarchy.hpp).
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "solvers/poisson/dist_hierarchy.hpp"
#include "solvers/poisson/graph_step.hpp"
#include "solvers/poisson/method.hpp"
#include "solvers/poisson/multigrid.hpp"

namespace strata::poisson {

template <class P, class T>
Hierarchy<P> hierarchy_for(const Solve<T, Field<T>>& S) {
  return build_hierarchy<P>(S.o.op, S.o.bc.kind, S.n, S.h, S.mem, S.o.jacobi_omega);
}
template <class P, class T>
DistHierarchy<P> hierarchy_for(const Solve<T, dist::DistField<T>>& S) {
  return build_dist_hierarchy<P>(S.o, S.u, S.h, S.s);
}

template <class P, class V>
struct MultigridCycle {
  using T = scalar_of<V>;
  using Hier = decltype(hierarchy_for<P>(std::declval<const Solve<T, V>&>()));

  // A distributed cycle is captured too: its exchanges are CUDA IPC moves or NCCL groups on
  // the solver's stream and its gathered levels never wait for the host (dist_hierarchy.hpp).
  // Every rank captures alike (use_graphs is the same on all), as both transports require of
  // captured sends (messages between a pair are matched in order).
  MultigridCycle(const Solve<T, V>& S, int fmg_cycles = 1)
      : H(hierarchy_for<P>(S)),
        M(H, S.o.smoother, S.o.pre, S.o.post, S.s, fmg_cycles),
        graph(S.s, S.mem == Memory::device && S.o.use_graphs) {
    if (CycleMarks::wanted()) {
      marks_ = std::make_unique<CycleMarks>(S.mem == Memory::device, int(H.levels.size()));
      M.set_marks(marks_.get());
    }
  }
  MultigridCycle(const MultigridCycle&) = delete;
  MultigridCycle& operator=(const MultigridCycle&) = delete;

  // One V-cycle on the finest level (levels[0].u for levels[0].f), eager or replayed.
  void vcycle() {
    if (graph.captured()) {  // a replay moves what the eager cycle moved; M counts nothing
      graph.run([this] { M.vcycle(0); });
      replayed_bytes_ += cycle_bytes_;
      if (marks_) marks_->keep();
      return;
    }
    // A cycle that is captured after it runs eagerly is not timed (it is the solve's first,
    // which starts every kernel, and its marks are recorded again into the graph).
    const bool timed = marks_ && !graph.captures();
    const double before = M.bytes();
    graph.run([this] { M.vcycle(0); });
    // A capture runs the cycle's host code again (M counts it) but executes nothing.
    const double counted = M.bytes() - before;
    cycle_bytes_ = graph.captured() ? counted / 2 : counted;
    if (graph.captured()) replayed_bytes_ -= cycle_bytes_;
    if (timed) marks_->keep();
  }
  // One cycle in the setup, its bytes not counted: the eager cycle and the capture happen
  // there, so the solve's first iteration replays like every other.
  void prime() {
    const double before = bytes();
    vcycle();
    primed_bytes_ += bytes() - before;
  }
  // Bytes the multigrid has moved so far in the solve, replayed cycles included.
  double bytes() const { return M.bytes() + replayed_bytes_ - primed_bytes_; }
  std::vector<PoissonLevelInfo> levels() const { return H.info(); }
  // STRATA_POISSON_LEVELS=1: each part of the cycle's median ms, level by level (CycleMarks).
  std::vector<std::pair<std::string, double>> level_ms() const {
    return marks_ ? marks_->medians() : std::vector<std::pair<std::string, double>>{};
  }

  Hier H;
  Multigrid<P, Hier> M;

private:
  std::unique_ptr<CycleMarks> marks_;  // before graph: destroyed after it (its nodes name the events)

public:
  GraphedStep graph;  // after H and M: destroyed before them

private:
  double cycle_bytes_ = 0, replayed_bytes_ = 0, primed_bytes_ = 0;
};

}  // namespace strata::poisson

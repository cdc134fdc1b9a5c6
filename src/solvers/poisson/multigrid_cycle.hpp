// The multigrid a method cycles with, in the precision P it runs in (a mixed-precision
// mgcg cycles in float under a double CG): the hierarchy, the cycle on it and the graph
// its V-cycle replays from. Built in the solve's setup; it stays where it was made (the
// cycle and the graph refer to the hierarchy's fields).
#pragma once

#include <vector>

#include "solvers/poisson/graph_step.hpp"
#include "solvers/poisson/multigrid.hpp"

namespace strata::poisson {

template <class P>
struct MultigridCycle {
  MultigridCycle(const PoissonOptions& o, Extent n, double h, Memory mem, Stream s, int fmg_cycles = 1)
      : H(build_hierarchy<P>(o.op, o.bc.kind, n, h, mem, o.jacobi_omega)),
        M(H, o.smoother, o.pre, o.post, s, fmg_cycles),
        graph(s, mem == Memory::device && o.use_graphs) {}
  MultigridCycle(const MultigridCycle&) = delete;
  MultigridCycle& operator=(const MultigridCycle&) = delete;

  // One V-cycle on the finest level (levels[0].u for levels[0].f), eager or replayed.
  void vcycle() {
    if (graph.captured()) {  // a replay moves what the eager cycle moved; M counts nothing
      graph.run([this] { M.vcycle(0); });
      replayed_bytes_ += cycle_bytes_;
      return;
    }
    const double before = M.bytes();
    graph.run([this] { M.vcycle(0); });
    // A capture runs the cycle's host code again (M counts it) but executes nothing.
    const double counted = M.bytes() - before;
    cycle_bytes_ = graph.captured() ? counted / 2 : counted;
    if (graph.captured()) replayed_bytes_ -= cycle_bytes_;
  }
  // Bytes the multigrid has moved so far, replayed cycles included.
  double bytes() const { return M.bytes() + replayed_bytes_; }
  std::vector<PoissonLevelInfo> levels() const {
    std::vector<PoissonLevelInfo> v;
    for (const auto& L : H.levels) v.push_back({L.n, L.h});
    return v;
  }

  Hierarchy<P> H;
  Multigrid<P> M;
  GraphedStep graph;  // after H and M: destroyed before them

private:
  double cycle_bytes_ = 0, replayed_bytes_ = 0;
};

}  // namespace strata::poisson

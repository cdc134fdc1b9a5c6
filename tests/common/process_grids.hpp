// The process grids the distributed tests try: every px x py x pz of a rank count
// (z-slabs, y-slabs, x-slabs and the mixed ones), and a walk over one rank's box.
#pragma once

#include <algorithm>
#include <vector>

#include "common/require_gpu.hpp"
#include "strata/device.hpp"
#include "strata/dist.hpp"

// A distributed GPU test: a GPU visible and one for every rank of this host (the device run
// launches one rank per GPU), each rank bound to its own; else the test skips, saying why.
#define REQUIRE_GPU_PER_RANK()                                                                   \
  if (!::strata::dist::Job::get().gpu_per_rank())                                                  \
    GTEST_SKIP() << "not every rank has a GPU of its own ("                                         \
                 << ::strata::dist::Job::get().local_size() << " ranks on this host; "             \
                 << (::strata::cuda_available() ? "this rank has one" : ::strata::cuda_unavailable_reason()) \
                 << "): one rank per GPU";                                                         \
  ::strata::dist::Job::get().bind_gpu()

namespace strata::test {

// Every px x py x pz of `ranks` boxes, whether or not a grid accepts it.
inline std::vector<dist::ProcessGrid> all_grids_of(int ranks) {
  std::vector<dist::ProcessGrid> g;
  for (int pz = 1; pz <= ranks; ++pz)
    for (int py = 1; py <= ranks / pz; ++py)
      if (ranks % (pz * py) == 0) g.push_back(dist::ProcessGrid{{ranks / (pz * py), py, pz}});
  return g;
}

// The ones the library accepts for `global` with `ghost` layers (ProcessGrid::fits, the rule
// DistField applies): a test asks only for what strata's own rule allows at this rank count,
// and the refused ones are tested as refusals (DistGrid.RefusesExactlyTheGridsThatDoNotFit).
inline std::vector<dist::ProcessGrid> grids_of(int ranks, Extent global, int ghost) {
  std::vector<dist::ProcessGrid> g;
  for (const dist::ProcessGrid& p : all_grids_of(ranks))
    if (p.fits(global, std::max(ghost, 1))) g.push_back(p);
  if (g.empty())
    ADD_FAILURE() << "no process grid of " << ranks << " ranks fits " << global.str() << " with " << ghost
                  << " ghost layers: the test would check nothing";
  return g;
}

// Visits every point of a box: visit(local x, y, z, global x, y, z).
template <class F>
void each_point(const dist::Subdomain& b, F&& visit) {
  for (int z = 0; z < b.local.nz; ++z)
    for (int y = 0; y < b.local.ny; ++y)
      for (int x = 0; x < b.local.nx; ++x) visit(x, y, z, b.offset[0] + x, b.offset[1] + y, b.offset[2] + z);
}

}  // namespace strata::test

// The process grids the distributed tests try: every px x py x pz of a rank count
// (z-slabs, y-slabs, x-slabs and the mixed ones), and a walk over one rank's box.
#pragma once

#include <vector>

#include "common/require_gpu.hpp"
#include "strata/device.hpp"
#include "strata/dist.hpp"

// A distributed GPU test: a GPU visible and one for every rank of this host (the device run
// launches one rank per GPU), each rank bound to its own; else the test skips, saying why.
#define REQUIRE_GPU_PER_RANK()                                                                              \
  REQUIRE_GPU();                                                                                            \
  if (::strata::dist::Job::get().local_size() > int(::strata::cuda_devices().size()))                      \
    GTEST_SKIP() << ::strata::dist::Job::get().local_size() << " ranks on " << ::strata::cuda_devices().size() \
                 << " GPUs: one rank per GPU";                                                              \
  ::strata::dist::Job::get().bind_gpu()

namespace strata::test {

inline std::vector<dist::ProcessGrid> grids_of(int ranks) {
  std::vector<dist::ProcessGrid> g;
  for (int pz = 1; pz <= ranks; ++pz)
    for (int py = 1; py <= ranks / pz; ++py)
      if (ranks % (pz * py) == 0) g.push_back(dist::ProcessGrid{{ranks / (pz * py), py, pz}});
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

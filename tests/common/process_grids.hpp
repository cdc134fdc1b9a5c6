// The process grids the distributed tests try: every px x py x pz of a rank count
// (z-slabs, y-slabs, x-slabs and the mixed ones).
#pragma once

#include <vector>

#include "strata/dist.hpp"

namespace strata::test {

inline std::vector<dist::ProcessGrid> grids_of(int ranks) {
  std::vector<dist::ProcessGrid> g;
  for (int pz = 1; pz <= ranks; ++pz)
    for (int py = 1; py <= ranks / pz; ++py)
      if (ranks % (pz * py) == 0) g.push_back(dist::ProcessGrid{{ranks / (pz * py), py, pz}});
  return g;
}

}  // namespace strata::test

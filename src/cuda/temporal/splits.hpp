// How many splits of the z axis a temporal pass's blocks take (launch.cuh): host
// code only, so that the CPU tests check it.
#pragma once

#include <algorithm>
#include <cmath>

namespace strata::cuda::temporal {

// Splits of the z axis: each block streams `lag` planes beyond its own, but too few blocks
// leave SMs idle, so take the count that minimises waves x planes per block, among the
// splits whose blocks stream at most kLongestSplit planes where the axis allows it. Blocks
// on long columns drift apart from their neighbours, whose windows then no longer share
// their halos in L2: 7-point f32 K = 3 at 768^3 ran at 643 Gpts/s with one split of 768
// planes (which the waves alone favour: 2 waves of 252 blocks), 686 with 3 of 256, 702-704
// with 6 to 12 of 128 to 64 (H100). Blocks that each stream an equal share of all columns,
// one per SM, ran 26% slower for the same reason.
inline constexpr int kLongestSplit = 128;
inline int z_splits(int columns, int nz, int lag, int slots) {
  constexpr int most = 64;
  const bool cap = (nz + most - 1) / most <= kLongestSplit;
  int best = 0;
  double best_cost = 0;
  for (int s = 1; s <= std::max(1, std::min(nz, most)); ++s) {
    const int tz = (nz + s - 1) / s;
    if (s > 1 && (nz + tz - 1) / tz < s) continue;  // the same split as a smaller s
    if (cap && tz > kLongestSplit) continue;
    const double waves = std::ceil(double(columns) * s / double(slots));
    const double cost = waves * (tz + double(lag));
    if (best == 0 || cost < best_cost) best = s, best_cost = cost;
  }
  return best;
}

}  // namespace strata::cuda::temporal

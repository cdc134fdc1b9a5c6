// How the GPU's fused leapfrog + CPML pass splits its grid and orders its blocks. With the
// absorbing layers folded into the pass, a tile full of layer points moves about twice the
// bytes of an interior tile; in the one-wave grid the plain update uses, that tile alone
// would set the step time. Splitting z into a few chunks and starting each chunk's heaviest
// blocks first (blocks start roughly in launch order as SMs free up: list scheduling)
// spreads the layers over all SMs; keeping the chunks in order keeps the blocks that run
// together at one depth, where neighbouring tiles share their halos in L2 as in the one-wave
// grid. Host-only arithmetic, so it is tested on the CPU.
#pragma once

#include <vector>

#include "core/wave_backend.hpp"

namespace strata::wave {

// The fused kernel's block geometry: a TX x TY tile of the XY plane, a STAGES-deep plane
// ring, and how many blocks the device holds at once (SMs x resident blocks per SM).
struct TileShape {
  int tx = 128, ty = 16, stages = 4;
  int slots = 132;
};

// Cost model, in values of T moved per point (the update's optimal footprint is 4: u, u_prev,
// c2 read, u+ written). A layer point adds psi read + written and zeta read + written (4), plus
// about 1 for its neighbourhood read from L2 and its arithmetic (a guess until measured).
// Each z chunk streams 2R + STAGES - 1 planes of u that it stores nothing for.
inline constexpr double kPointWords = 4.0;
inline constexpr double kLayerWords = 5.0;
// The most one SM draws of the memory bandwidth relative to its fair share when others
// idle (the 2.5D launcher's model, docs/performance.md).
inline constexpr double kSmHeadroomModel = 1.33;

struct BlockSchedule {
  int zchunks = 1;
  // order[b] = tile + chunk * tiles of the b-th block in launch order: chunk by chunk, the
  // heaviest tiles of a chunk first, ties in tile order; tiles are numbered x fastest
  // (tile_x + tile_y * tiles_x), as the 2.5D kernel numbers them.
  std::vector<int> order;
  double cost = 0;        // modelled step time (values per slot) of this schedule
  double even_cost = 0;   // the same grid without layers, for comparison
};

// Chooses the z chunk count (1..16) minimising the modelled time, the larger of the total
// work spread over every slot and the busiest slot's work at kSmHeadroomModel, with blocks
// list-scheduled in `order`. Deterministic.
BlockSchedule schedule_blocks(Extent n, int radius, const TileShape& shape, const std::vector<PmlFace>& layers);

}  // namespace strata::wave

// The launch shapes of the multigrid passes (src/cuda/poisson/multigrid.cu), per precision, and
// where each was measured. All on an H100 80GB HBM3; the V-cycle figures they produce are
// in bench/results/nvidia-h100-80gb-hbm3.json (vcycle_fd7/fe27 rows) and
// docs/performance.md; the fused residual-restriction in docs/poisson.md. Where a value was
// chosen without a recorded measurement, its comment says so.
#pragma once

#include "cuda/stencil/config.hpp"

namespace strata::cuda {

template <class T>
struct MultigridPolicy;

template <>
struct MultigridPolicy<float> {
  // Smoothing and residual passes (one 2.5D stencil pass with an epilogue) on every level:
  // 128 x 32 outputs, 8 rows a thread, 2 stages. Within 2% of the fp32 stencil policy's
  // radius-1 tile (tuning/stencil_policy.hpp, 128 x 64) at 512^3 and small enough for the
  // coarse levels: the figure is from the commit that chose it (91c9894), not kept in
  // bench/results.
  using tile = TileConfig<Loader::tma, 128, 32, 8, 2>;
  // Fused residual + full-weighting restriction (fd7, Dirichlet): a 32 x 8 coarse tile a
  // block. At 511^3 it cut the V(2,2) cycle from 5.34 to 4.93 ms (docs/poisson.md, commit
  // 40e4d02); other tile sizes were not measured.
  static constexpr int fused_cx = 32, fused_cy = 8;
};

template <>
struct MultigridPolicy<double> {
  // 128 x 16 outputs, 4 rows a thread: at 8 rows the prefetched f and u- plus the centre
  // queue spill (128 registers; ptxas, commit 0aed210). No timing recorded for the choice.
  using tile = TileConfig<Loader::tma, 128, 16, 4, 2>;
  // Half the fp32 coarse rows, so that the ring of u planes, f and the residual plane fit
  // in 48 KiB of shared memory (a capacity limit, not a measurement).
  static constexpr int fused_cx = 32, fused_cy = 4;
};

// Both precisions.
struct MultigridLaunch {
  // The fused residual-restriction takes fewer coarse planes a block on small levels,
  // aiming at this many blocks per SM (a block streams its planes one after another,
  // latency-bound when alone), between 1 and max_planes planes. Chosen in commit 40e4d02;
  // no sweep of either value is recorded.
  static constexpr int fused_blocks_per_sm = 12, fused_max_planes = 16;
  // Point-wise gathers (restriction, prolongation, precision conversion): one thread a
  // fine or coarse point, 128 along x. Not measured.
  static constexpr int point_block = 128;
};

}  // namespace strata::cuda

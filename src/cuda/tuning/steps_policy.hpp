// How many repeated steps (strata::apply_steps) the CUDA backend fuses per trip through
// memory when the caller leaves it to strata (StepOptions::fuse = 0): per stencil family and
// precision, the fastest row of `strata bench --kernel steps` on an H100 at 512^3
// (bench/results/nvidia-h100-80gb-hbm3-steps.json; docs/performance.md, "Repeated steps"),
// as ratios to the memcpy-bound single-step rate (4ba28ac; the 7-point rows with the blocks of
// tuning/temporal_block_policy.hpp):
//   7-point f32   per step 0.77, fused 2 / 3 / 4: 1.57 / 1.91 / 1.57  -> 3
//   7-point f64   per step 0.80, fused 2 / 3 / 4: 1.75 / 1.92 / 1.14  -> 3
//     (3 also at 384^3 and 768^3, 1.93 and 2.06; at 256^3 2 steps measure faster, 1.57 against 1.44)
//   star r2 f32   per step 0.67, fused 2 / 3 / 4: 0.90 / 0.76 / 0.58  -> 2
//   star r2 f64   per step 0.74, fused 2 / 3: 0.52 / 0.65            -> 1
//   star r4 f32   per step 0.65, fused 2: 0.35                       -> 1
//   sym27 f32/f64 per step 0.77 / 0.81, fused 2: 0.70 / 0.77         -> 1
// Radius 3, whose fused windows leave fewer registers than radius 2's, and box27 (not
// fused) take single steps.
#pragma once

#include <cstddef>

#include "strata/stencil.hpp"

namespace strata::cuda {

inline int steps_per_pass(StencilKind kind, int radius, std::size_t value_bytes) {
  if (kind != StencilKind::star) return 1;
  if (radius == 1) return 3;
  if (radius == 2) return value_bytes == 4 ? 2 : 1;
  return 1;
}

}  // namespace strata::cuda

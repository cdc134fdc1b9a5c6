// How many repeated steps (strata::apply_steps) the CUDA backend fuses per trip through
// memory when the caller leaves it to strata (StepOptions::fuse = 0): per stencil family and
// precision, the fastest row of `strata bench --kernel steps` on an H100 at 512^3
// (bench/results/nvidia-h100-80gb-hbm3-steps.json; docs/performance.md, "Repeated steps"),
// as ratios to the memcpy-bound single-step rate (7bca189; the 7-point rows with the blocks of
// tuning/temporal_block_policy.hpp):
//   7-point f32   per step 0.84, fused 2 / 3 / 4: 1.49 / 2.04 / 1.69  -> 3
//   7-point f64   per step 0.85, fused 2 / 3 / 4: 1.63 / 2.15 / 1.20  -> 3
//     (3 also at 384^3 and 768^3, 1.82-2.18; at 256^3 too, 1.65 f32 and 1.61 f64 against 1.31 and 1.48)
//   star r2 f32   per step 0.73, fused 2 / 4: 0.90 / 0.57 (no 3-step window) -> 2
//   star r2 f64   per step 0.77, fused 2: 0.50 (no 3- or 4-step window)      -> 1
//   star r4 f32   per step 0.71, fused 2: 0.33                               -> 1
//   sym27 f32/f64 per step 0.84 / 0.85, fused 2: 0.70 / 0.77                 -> 1
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

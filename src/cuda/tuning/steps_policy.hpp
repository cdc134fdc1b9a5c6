// How many repeated steps (strata::apply_steps) the CUDA backend fuses per trip through
// memory when the caller leaves it to strata (StepOptions::fuse = 0): per stencil family and
// precision, the fastest row of `strata bench --kernel steps` on an H100 at 512^3
// (bench/results/nvidia-h100-80gb-hbm3-steps.json, commit 30e3924; docs/performance.md,
// "Repeated steps"), as ratios to the memcpy-bound single-step rate:
//   7-point f32   per step 0.77, fused 2 / 3 / 4: 1.19 / 1.39 / 0.96  -> 3
//   7-point f64   per step 0.82, fused 2 / 3 / 4: 1.29 / 1.22 / 0.99  -> 2
//   star r2 f32   per step 0.36, fused 2 / 3 / 4: 0.58 / 0.47 / 0.31  -> 2
//   star r2 f64   per step 0.62, fused 2: 0.54                       -> 1
//   star r4 f32   per step 0.65, fused 2: 0.18                       -> 1
//   sym27 f32/f64 per step 0.77 / 0.82, fused 2: 0.50 / 0.64         -> 1
// Radius 3, whose fused windows leave fewer registers than radius 2's, and box27 (not
// fused) take single steps.
#pragma once

#include <cstddef>

#include "strata/stencil.hpp"

namespace strata::cuda {

inline int steps_per_pass(StencilKind kind, int radius, std::size_t value_bytes) {
  if (kind != StencilKind::star) return 1;
  if (radius == 1) return value_bytes == 4 ? 3 : 2;
  if (radius == 2 && value_bytes == 4) return 2;
  return 1;
}

}  // namespace strata::cuda

// How many repeated steps (strata::apply_steps) the CUDA backend fuses per trip through
// memory when the caller leaves it to strata (StepOptions::fuse = 0): per stencil family and
// precision, the fastest row of `strata bench --kernel steps` on an H100 at 512^3
// (bench/results/nvidia-h100-80gb-hbm3-steps.json; docs/performance.md, "Repeated steps"),
// as ratios to the memcpy-bound single-step rate:
//   7-point f32   per step 0.77, fused 2 / 3 / 4: 1.20 / 1.47 / 0.98  -> 3
//   7-point f64   per step 0.82, fused 2 / 3 / 4: 1.30 / 1.32 / 1.06  -> 3
//   star r2 f32   per step 0.67, fused 2 / 3 / 4: 0.58 / 0.47 / 0.32  -> 1
//   star r2 f64   per step 0.75, fused 2: 0.54                       -> 1
//   star r4 f32   per step 0.65, fused 2: 0.18                       -> 1
//   sym27 f32/f64 per step 0.77 / 0.82, fused 2: 0.51 / 0.64         -> 1
// (radius 2 fused while its single step spilled and ran at 0.36). Radius 3, whose fused
// windows leave fewer registers than radius 2's, and box27 (not fused) take single steps.
#pragma once

#include <cstddef>

#include "strata/stencil.hpp"

namespace strata::cuda {

inline int steps_per_pass(StencilKind kind, int radius, std::size_t value_bytes) {
  static_cast<void>(value_bytes);  // the same choice in both precisions, for now
  return kind == StencilKind::star && radius == 1 ? 3 : 1;
}

}  // namespace strata::cuda

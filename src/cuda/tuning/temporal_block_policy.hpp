// The blocks of the 7-point temporal passes (the unrolled kernel, src/cuda/kernels/
// temporal.cuh), per precision and steps per pass: threads, and rows of the window per
// thread. The window is 64 wide and threads / 64 x rows tall. Chosen from the shapes whose
// queues ptxas kept without spilling, by `strata bench --kernel steps` on an H100 at 512^3
// (commit e7e2cf9 plus the shapes as build options, one run; rates per step and ratios to
// the memcpy-bound single-step rate; docs/performance.md, "The block"):
//   f32 K = 2: 768 x 4 (64x48) 580 Gpts/s 1.57;  640 x 5 (64x50) 540;  512 x 8 (64x64) 505;  576 x 6 505
//   f32 K = 3: 640 x 5 (64x50) 709-710 1.92;  768 x 4 (64x48) 651-661;  512 x 8 (64x64) 649;  512 x 7 603;
//              384 x 10 (64x60) 546;  (768 x 5, 640 x 6, 896 x 4 and 576 x 6 spill)
//   f32 K = 4: 512 x 6 (64x48) 581-582 1.57;  576 x 4 531;  640 x 4 558;  768 x 4 (64x32) 521-524;  384 x 8 516
//   f64 K = 2: 512 x 4 (64x32) 323-328 1.75;  640 x 3 323;  512 x 5 306;  512 x 6 282;  384 x 8 275;  256 x 8 250
//   f64 K = 3: 384 x 6 (64x36) 358-359 1.92;  256 x 8 (64x32) 340-343;  512 x 2 (64x16) 304-306
//   f64 K = 4: 512 x 2 (64x16) 212 (not measured otherwise: taller windows' queues do not fit)
// With the bulk copies of 8d88ecf (level 0's ring 16 bytes wider, one slot more) the f32
// K = 2 ranking moved (6b10af9, two runs in one call, same machine): 512 x 8 551-553 Gpts/s
// 1.49x against 768 x 4's 534 1.44x (640 x 5 531, and 768 x 4 with per-thread copies 547,
// one run each); f64 K = 2 512 x 5 304 against 512 x 4's 305, so it stays.
// A thread's registers follow from the warps each of an SM's four schedulers holds (16384
// registers each; ptxas rounds down to 8): 17-20 warps keep 96 a thread, 21-24 only 80,
// which is why 640 x 5 keeps the f32 K = 3 queues (45 words, 93 registers) and 768 x 5
// spills.
#pragma once

#include <cstddef>

namespace strata::cuda {

struct TemporalBlockShape {
  int threads;  // a multiple of the window's 64 columns
  int rows;     // window rows per thread
};

constexpr TemporalBlockShape seven_point_block(std::size_t value_bytes, int k) {
  if (value_bytes == 4) return k == 2 ? TemporalBlockShape{512, 8} : k == 3 ? TemporalBlockShape{640, 5} : TemporalBlockShape{512, 6};
  return k == 2 ? TemporalBlockShape{512, 4} : k == 3 ? TemporalBlockShape{384, 6} : TemporalBlockShape{512, 2};
}

// The fused multigrid smoothing pair (StepSmooth: K = 2 with the right-hand side as an operand,
// src/cuda/poisson/multigrid.cu): the operand's row and addresses take registers besides the
// queues.
// Measured with `strata bench --kernel poisson` on an H100 (smooth2_fd7 rows, the pair in ms;
// commit 98f8b0e plus the shapes as build options, one run):
//   fp32 511^3: 640 x 4 (64x40) 1.077;  640 x 5 1.097;  512 x 4 (64x32) 1.174;  512 x 6 1.196
//        255^3: 640 x 4 0.215;  640 x 5 0.215;  512 x 4 0.226;  512 x 6 0.250
//   fp64 511^3: 384 x 4 (64x24) 1.851;  384 x 6 1.922;  512 x 2 (64x16) 2.021;  256 x 8 2.381
//        255^3: 512 x 2 0.300;  384 x 4 0.327;  384 x 6 0.371;  256 x 8 0.581
// (24 warps spilled in fp32, 4 rows of 512 threads in fp64.) fp64 takes the taller window on
// levels of kLargeSmoothingLevel points or more only: on the 255^3 level its 65 columns
// leave most SMs one block of 12 warps.
inline constexpr double kLargeSmoothingLevel = 1e8;

constexpr TemporalBlockShape smoothing_block(std::size_t value_bytes, bool large) {
  if (value_bytes == 4) return TemporalBlockShape{640, 4};
  return large ? TemporalBlockShape{384, 4} : TemporalBlockShape{512, 2};
}

}  // namespace strata::cuda

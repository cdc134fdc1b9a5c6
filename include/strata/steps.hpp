// Repeated stencil steps over one Field: the explicit heat / Jacobi relaxation
// u <- u + c (A u), or the plain repetition u <- A u, `steps` times. Before every step the
// ghosts are refilled from the boundary rule, so each step is exactly
//   fill_ghosts(u, bc, radius); u <- update(u, apply_interior(A, u))
// and the result equals `steps` such single passes (bit for bit on the same backend).
// (Dirichlet ghosts, which no step changes, are written once per field.) u's ghost layers
// on return are unspecified: fill_ghosts before reading them.
// The backend follows u's memory, as apply's does; device work is queued on `stream`.
#pragma once

#include "strata/boundary.hpp"
#include "strata/field.hpp"
#include "strata/stencil.hpp"
#include "strata/stream.hpp"

namespace strata {

enum class StepUpdate {
  repeat,  // u <- A u
  relax,   // u <- u + c (A u): with A a Laplacian stencil of spacing h, c = kappa dt (explicit
           // heat, stable for c <= h^2 / 6 in 3D with the 7-point A) or omega / (-diag(A))
           // (weighted Jacobi for A u = 0)
};

struct StepOptions {
  StepUpdate update = StepUpdate::relax;
  double c = 0;  // relax only; finite
  // Steps per trip through memory (temporal blocking). 0 (the default): strata's measured
  // choice, auto_fuse below. k >= 1: passes of k steps where the backend has them (the CUDA
  // temporal-blocking kernel: stars of radius 1..4 and sym27, k = 2..4 where the windows fit
  // shared memory, sym27 k = 2 only, both updates, every boundary rule; with periodic faces
  // k is capped at ghost / radius), single steps for the rest (all of them where the
  // backend has no pass of k steps); 1: one pass per step. The same bits either way.
  int fuse = 0;
};

// The steps per pass that fuse = 0 takes for `stencil` on fields of T in `memory`: on the
// GPU the fastest of `strata bench --kernel steps` on an H100 at 512^3 (the 7-point stencil
// 3, the radius-2 star 2 in f32, 1 for the rest, where fused passes measure slower than
// single steps:
// docs/performance.md, "Repeated steps: temporal blocking"); 1 on
// the host. Periodic boundaries need fields with auto_fuse * radius ghost layers to fuse.
template <class T>
int auto_fuse(const Stencil& stencil, Memory memory);

// Requires steps >= 0 and u.ghost() >= stencil.radius(); uses one scratch Field of u's
// shape (allocated here). steps == 0 leaves u as it is (ghosts included).
template <class T>
void apply_steps(const Stencil& stencil, Field<T>& u, const Boundary& bc, int steps,
                 const StepOptions& options = {}, Stream stream = {});

// The same with the caller's scratch Field (u's extent, ghost width and memory; its
// contents are overwritten): a loop of calls then allocates nothing. On a GPU the
// allocation and free of a 512^3 scratch cost about as much as two steps.
template <class T>
void apply_steps(const Stencil& stencil, Field<T>& u, Field<T>& scratch, const Boundary& bc, int steps,
                 const StepOptions& options = {}, Stream stream = {});

}  // namespace strata

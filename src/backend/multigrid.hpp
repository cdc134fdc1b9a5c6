// What a multigrid backend implements: the data the passes take (transfer tables, ghost
// rules) and the passes themselves, declared once in backend/multigrid_passes.inc and
// included here for each backend, each pass taking its backend's tag first
// (backend/tag.hpp). The CPU defines them in src/cpu/multigrid.cpp, CUDA in
// src/cuda/poisson/multigrid.cu; src/dispatch/multigrid.cpp reaches the backend that owns the
// fields through on_backend (dispatch/backend.hpp).
#pragma once

#include <span>

#include "base/region.hpp"
#include "strata/boundary.hpp"
#include "strata/field.hpp"
#include "strata/stencil.hpp"

namespace strata::poisson {

// The transfer tables of one level pair as raw arrays (host or device, like the fields).
template <class T>
struct TransferView {
  static constexpr int kMaxFine = 4;
  int nf[3] = {}, nc[3] = {};
  const int* p_idx[3] = {};  // 2 per fine point
  const T* p_w[3] = {};
  const int* r_idx[3] = {};  // kMaxFine per coarse point
  const T* r_w[3] = {};
  // The tables are full weighting on every axis (vertex-centred, Dirichlet): coarse I
  // gathers fine 2I, 2I+1, 2I+2 with weights 1/4, 1/2, 1/4, a fine index n weighing 0.
  bool full_weighting = false;
  // Where a distributed level's box sits (one process: zeros and closed faces): per axis,
  // the local fine index of the first point coarse 0 gathers, 2 co - fo for boxes at global
  // offsets co and fo (0, or -1 when the fine box starts one past it), and which faces are
  // a neighbour's. Beyond an open face the residual counts and reads ghosts, two layers of
  // u and one of f, which the caller has filled.
  int fw_shift[3] = {};
  bool fw_open_lo[3] = {}, fw_open_hi[3] = {};
};

// Ghost values of a coarse Dirichlet level whose boundary lies between grid points
// (solvers/poisson/transfer.hpp): ghost = factor * the adjacent interior value, per face, and
// the product of the factors at edges and corners (the rule applied axis after axis).
// All factors 0: the plain homogeneous boundary, the ghosts stay zero.
struct GhostRule {
  double lo[3] = {}, hi[3] = {};
  bool any() const {
    for (int a = 0; a < 3; ++a)
      if (lo[a] != 0 || hi[a] != 0) return true;
    return false;
  }
};

// One smoothing step of u for A u = f, D the operator's centre coefficient: Jacobi,
// u + omega D^-1 (f - A u), or Chebyshev in three-term form, u + alpha (u - prev) +
// beta D^-1 (f - A u) with prev the iterate before u.
struct SmoothingStep {
  bool chebyshev = false;
  double omega = 0;            // Jacobi
  double alpha = 0, beta = 0;  // Chebyshev
};

// The centre coefficient of a level's operator (the D of the smoothers' D^-1 A).
inline double diagonal(const Stencil& a) {
  return a.kind() == StencilKind::box27 ? a.coeffs()[13] : a.coeffs()[0];
}

}  // namespace strata::poisson

#define STRATA_SEAM_LIST "backend/multigrid_passes.inc"
#include "backend/each_backend.inc"

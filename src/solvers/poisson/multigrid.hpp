// V-cycles and full multigrid on a Hierarchy, written once against the backend interface
// (dispatch/multigrid.hpp) and the public vector operations; the fields' memory decides
// whether the CPU or the GPU runs them. Every level's `u` names the same buffer after a
// cycle as before it, so a captured CUDA graph of one cycle can be replayed.
#pragma once

#include <cmath>
#include <utility>

#include "dispatch/multigrid.hpp"
#include "solvers/poisson/hierarchy.hpp"
#include "strata/vector_ops.hpp"

namespace strata::poisson {

template <class T>
class Multigrid {
public:
  Multigrid(Hierarchy<T>& h, Smoother smoother, int pre, int post, Stream stream, int fmg_cycles = 1)
      : H_(h), smoother_(smoother), pre_(pre), post_(post), s_(stream), fmg_cycles_(fmg_cycles) {}

  // One V(pre, post) cycle improving levels[l].u for A u = levels[l].f.
  void vcycle(std::size_t l) {
    Level<T>& L = H_.levels[l];
    if (l + 1 == H_.levels.size()) return coarse_solve(L);
    smooth(L, pre_);
    ghosts(L, L.u);
    Level<T>& C = H_.levels[l + 1];
    const bool fused = residual_restrict(L.a, L.u, L.f, L.r, L.down, C.f, s_);
    fill(C.u, T(0), s_);
    vcycle(l + 1);
    prolong_add(L.down, C.u, L.u, s_);
    smooth(L, post_);
    // residual and restriction (fused: u and f read; else r written and read back), the
    // coarse f written, the coarse u filled and read, u read and written by prolong_add
    count(L, (fused ? 2 : 4) + 2 + 0.375);
  }

  // Full multigrid from the finest right-hand side: restrict f to every level, solve the
  // coarsest, then interpolate up one level at a time with fmg_cycles V-cycles on each.
  void fmg() {
    for (std::size_t l = 0; l + 1 < H_.levels.size(); ++l)
      restrict_to(H_.levels[l].down, H_.levels[l].f, H_.levels[l + 1].f, s_);
    Level<T>& C = H_.levels.back();
    fill(C.u, T(0), s_);
    coarse_solve(C);
    for (std::size_t l = H_.levels.size() - 1; l-- > 0;) {
      Level<T>& L = H_.levels[l];
      fill(L.u, T(0), s_);
      prolong_add(L.down, H_.levels[l + 1].u, L.u, s_);
      for (int c = 0; c < fmg_cycles_; ++c) vcycle(l);
      count(L, 1.25 + 1 + 2);
    }
  }

  double bytes() const { return bytes_; }

private:
  // The ghost layer of a level's field before a stencil pass: mirrors or wraps, or the
  // ghost rule of a coarse Dirichlet level (zero ghosts are never written).
  void ghosts(const Level<T>& L, Field<T>& u) {
    if (H_.bc.kind != BoundaryKind::dirichlet) fill_ghosts(u, H_.bc, 1, s_);
    else if (L.ghost.any()) extrapolate_ghosts(L.ghost, u, s_);
  }

  void count(const Level<T>& L, double values_per_point) {
    bytes_ += values_per_point * double(L.n.points()) * sizeof(T);
  }

  // `steps` smoothing steps out of place, u -> u2 -> u ...; an odd count copies back so
  // that L.u keeps naming the same buffer.
  void smooth(Level<T>& L, int steps) {
    if (steps <= 0) return;
    if (smoother_ == Smoother::jacobi) {
      for (int k = 0; k < steps; ++k) {
        ghosts(L, L.u);
        jacobi(L.a, L.omega, L.u, L.f, L.u2, s_);
        std::swap(L.u, L.u2);
        count(L, 3);
      }
    } else {
      // Chebyshev iteration on D^-1 A over [lam_lo, lam_hi] (Saad, Alg. 12.1) in three-term
      // form: u_{k+1} = u_k + a_k (u_k - u_{k-1}) + b_k D^-1 (f - A u_k), written over u_{k-1}.
      const double theta = 0.5 * (L.lam_hi + L.lam_lo), delta = 0.5 * (L.lam_hi - L.lam_lo);
      const double sigma = theta / delta;
      double rho = 1.0 / sigma;
      for (int k = 0; k < steps; ++k) {
        ghosts(L, L.u);
        if (k == 0) {
          jacobi(L.a, 1.0 / theta, L.u, L.f, L.u2, s_);  // u_1 = u_0 + D^-1 r_0 / theta
          count(L, 3);
        } else {
          const double rho_next = 1.0 / (2.0 * sigma - rho);
          chebyshev(L.a, rho_next * rho, 2.0 * rho_next / delta, L.u, L.f, L.u2, s_);
          rho = rho_next;
          count(L, 4);
        }
        std::swap(L.u, L.u2);
      }
    }
    if (steps % 2) {
      std::swap(L.u, L.u2);
      copy_interior(L.u2, L.u, s_);
      count(L, 2);
    }
  }

  // Exact on a dense-inverted coarsest grid (u += M (f - A u)); otherwise many smoothing
  // steps, which is slower to converge but never wrong.
  void coarse_solve(Level<T>& L) {
    if (H_.dense_ok) {
      ghosts(L, L.u);
      residual(L.a, L.u, L.f, L.r, s_);
      dense_correct(H_.dense.data(), L.r, L.u, s_);
    } else {
      smooth(L, 64);
    }
  }

  Hierarchy<T>& H_;
  Smoother smoother_;
  int pre_, post_;
  Stream s_;
  int fmg_cycles_;
  double bytes_ = 0;
};

}  // namespace strata::poisson

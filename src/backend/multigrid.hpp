// The multigrid backend interface: the few fused passes the Poisson algorithms are written
// against. Each runs on the backend that owns its fields (CPU reference or CUDA kernels).
// Stencil passes read `u`'s ghost layers, which the caller fills first.
#pragma once

#include "strata/apply.hpp"
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

// The centre coefficient of a level's operator (the D of the smoothers' D^-1 A).
inline double diagonal(const Stencil& a) {
  return a.kind() == StencilKind::box27 ? a.coeffs()[13] : a.coeffs()[0];
}

// out = u + omega/diag * (f - A u)
template <class T>
void jacobi(const Stencil& a, double omega, const Field<T>& u, const Field<T>& f, Field<T>& out,
            Stream stream);
// One Chebyshev step in three-term form: prev_out holds the previous iterate on entry and
// u + alpha (u - prev) + beta/diag * (f - A u) on exit.
template <class T>
void chebyshev(const Stencil& a, double alpha, double beta, const Field<T>& u, const Field<T>& f,
               Field<T>& prev_out, Stream stream);
// r = f - A u
template <class T>
void residual(const Stencil& a, const Field<T>& u, const Field<T>& f, Field<T>& r, Stream stream);
// fc = R (f - A u)   (the residual restricted to the coarse level). Returns true when one
// fused pass did it (r left unwritten), false when it took a residual pass into r and a
// restriction.
template <class T>
bool residual_restrict(const Stencil& a, const Field<T>& u, const Field<T>& f, Field<T>& r,
                       const TransferView<T>& t, Field<T>& fc, Stream stream);
// fc = R r   (restriction to the coarse level)
template <class T>
void restrict_to(const TransferView<T>& t, const Field<T>& r, Field<T>& fc, Stream stream);
// u += P ec   (prolongation of the coarse correction)
template <class T>
void prolong_add(const TransferView<T>& t, const Field<T>& ec, Field<T>& u, Stream stream);
// u += M r for a dense matrix M (the coarsest level's inverse, row-major over C-order points)
template <class T>
void dense_correct(const T* m, const Field<T>& r, Field<T>& u, Stream stream);
// Fills the ghost layer (width 1) of u by the rule.
template <class T>
void extrapolate_ghosts(const GhostRule& g, Field<T>& u, Stream stream);
// dst = src, changing precision (interiors)
template <class D, class S>
void convert(const Field<S>& src, Field<D>& dst, Stream stream);

}  // namespace strata::poisson

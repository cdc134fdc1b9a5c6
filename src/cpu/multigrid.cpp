// Multigrid passes on the host (declared in backend/multigrid_passes.inc): the reference
// stencil pass into the output, then a plain point-wise loop; transfers as separable sums
// over the per-axis tables, whose indices may be -1 or n (a ghost: a distributed level's
// tables read the neighbours' values there). Nothing runs on a stream: `stream` is ignored.
#include <vector>

#include "backend/multigrid.hpp"
#include "cpu/cpu.hpp"

namespace strata::cpu {

template <class T>
void jacobi(Tag, const Stencil& a, double omega, const Field<T>& u, const Field<T>& f,
            Field<T>& out, void*) {
  apply_interior(Tag{}, a, u, out);  // out = A u
  const double w = omega / poisson::diagonal(a);
  const Extent n = u.extent();
#pragma omp parallel for if (threaded(n.points()))
  for (int z = 0; z < n.nz; ++z)
    for (int y = 0; y < n.ny; ++y)
      for (int x = 0; x < n.nx; ++x)
        out(x, y, z) = T(u(x, y, z) + w * (double(f(x, y, z)) - out(x, y, z)));
}

template <class T>
void chebyshev(Tag, const Stencil& a, double alpha, double beta, const Field<T>& u,
               const Field<T>& f, Field<T>& prev_out, void*) {
  Field<T> au(u.extent(), 0);  // A u (the reference pass needs its own output)
  apply_interior(Tag{}, a, u, au);
  const double b = beta / poisson::diagonal(a);
  const Extent n = u.extent();
#pragma omp parallel for if (threaded(n.points()))
  for (int z = 0; z < n.nz; ++z)
    for (int y = 0; y < n.ny; ++y)
      for (int x = 0; x < n.nx; ++x)
        prev_out(x, y, z) = T(u(x, y, z) + alpha * (double(u(x, y, z)) - prev_out(x, y, z)) +
                              b * (double(f(x, y, z)) - au(x, y, z)));
}

template <class T>
void residual(Tag, const Stencil& a, const Field<T>& u, const Field<T>& f, Field<T>& r, void*) {
  apply_interior(Tag{}, a, u, r);
  const Extent n = u.extent();
#pragma omp parallel for if (threaded(n.points()))
  for (int z = 0; z < n.nz; ++z)
    for (int y = 0; y < n.ny; ++y)
      for (int x = 0; x < n.nx; ++x) r(x, y, z) = f(x, y, z) - r(x, y, z);
}

template <class T>
void restrict_to(Tag, const poisson::TransferView<T>& t, const Field<T>& r, Field<T>& fc, void*) {
  constexpr int K = poisson::TransferView<T>::kMaxFine;
  const Extent n = fc.extent();
#pragma omp parallel for if (threaded(n.points()))
  for (int z = 0; z < n.nz; ++z)
    for (int y = 0; y < n.ny; ++y)
      for (int x = 0; x < n.nx; ++x) {
        double acc = 0;
        for (int c = 0; c < K; ++c) {
          const int k = t.r_idx[2][K * z + c];
          for (int b = 0; b < K; ++b) {
            const int j = t.r_idx[1][K * y + b];
              for (int a = 0; a < K; ++a) {
              const int i = t.r_idx[0][K * x + a];
                  acc += double(t.r_w[2][K * z + c]) * t.r_w[1][K * y + b] * t.r_w[0][K * x + a] * r(i, j, k);
            }
          }
        }
        fc(x, y, z) = T(acc);
      }
}

// No fused smoothing pass on the host: the caller takes single steps.
template <class T>
bool smooth_fused(Tag, const Stencil&, std::span<const poisson::SmoothingStep>, const Boundary&,
                  const Field<T>&, const Field<T>&, Field<T>&, void*, const Region&) {
  return false;
}

// No fused pass on the host: the residual into r, then its restriction.
template <class T>
bool residual_restrict(Tag, const Stencil& a, const Field<T>& u, const Field<T>& f, Field<T>& r,
                       const poisson::TransferView<T>& t, Field<T>& fc, void* stream) {
  residual(Tag{}, a, u, f, r, stream);
  restrict_to(Tag{}, t, r, fc, stream);
  return false;
}

template <class T>
void prolong_add(Tag, const poisson::TransferView<T>& t, const Field<T>& ec, Field<T>& u, void*) {
  const Extent n = u.extent();
#pragma omp parallel for if (threaded(n.points()))
  for (int z = 0; z < n.nz; ++z)
    for (int y = 0; y < n.ny; ++y)
      for (int x = 0; x < n.nx; ++x) {
        double acc = 0;
        for (int c = 0; c < 2; ++c) {
          const int k = t.p_idx[2][2 * z + c];
          for (int b = 0; b < 2; ++b) {
            const int j = t.p_idx[1][2 * y + b];
              for (int a = 0; a < 2; ++a) {
              const int i = t.p_idx[0][2 * x + a];
                  acc += double(t.p_w[2][2 * z + c]) * t.p_w[1][2 * y + b] * t.p_w[0][2 * x + a] * ec(i, j, k);
            }
          }
        }
        u(x, y, z) = T(u(x, y, z) + acc);
      }
}

template <class T>
void dense_correct(Tag, const T* m, const Field<T>& r, Field<T>& u, void*) {
  const Extent n = r.extent();
  const long N = long(n.points());
  std::vector<double> rv(N);
  long i = 0;
  for (int z = 0; z < n.nz; ++z)
    for (int y = 0; y < n.ny; ++y)
      for (int x = 0; x < n.nx; ++x) rv[i++] = r(x, y, z);
  i = 0;
  for (int z = 0; z < n.nz; ++z)
    for (int y = 0; y < n.ny; ++y)
      for (int x = 0; x < n.nx; ++x, ++i) {
        double acc = 0;
        for (long j = 0; j < N; ++j) acc += double(m[i * N + j]) * rv[j];
        u(x, y, z) = T(u(x, y, z) + acc);
      }
}

// Every ghost point (a coordinate at -1 or n on some axes): the product of those axes'
// factors times the interior point next to it.
template <class T>
void extrapolate_ghosts(Tag, const poisson::GhostRule& g, Field<T>& u, void*) {
  const Extent n = u.extent();
  const int ext[3] = {n.nx, n.ny, n.nz};
  for (int z = -1; z <= n.nz; ++z)
    for (int y = -1; y <= n.ny; ++y)
      for (int x = -1; x <= n.nx; ++x) {
        const int c[3] = {x, y, z};
        int src[3];
        double factor = 1;
        bool ghost = false;
        for (int a = 0; a < 3; ++a) {
          src[a] = c[a] < 0 ? 0 : (c[a] >= ext[a] ? ext[a] - 1 : c[a]);
          if (c[a] < 0) factor *= g.lo[a], ghost = true;
          if (c[a] >= ext[a]) factor *= g.hi[a], ghost = true;
        }
        if (ghost) u(x, y, z) = T(factor * u(src[0], src[1], src[2]));
      }
}

template <class D, class S>
void convert(Tag, const Field<S>& src, Field<D>& dst, void*) {
  const Extent n = src.extent();
#pragma omp parallel for if (threaded(n.points()))
  for (int z = 0; z < n.nz; ++z)
    for (int y = 0; y < n.ny; ++y)
      for (int x = 0; x < n.nx; ++x) dst(x, y, z) = D(src(x, y, z));
}

#include "backend/multigrid_instances.inc"

}  // namespace strata::cpu

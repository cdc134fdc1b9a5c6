// The spectral solve of the periodic 7-point Poisson problem on the CPU (backend/fft.hpp) with
// KissFFT (a system package, BSD-3-Clause; CMake's STRATA_CPU_FFT, else src/cpu/nofft
// refuses). Its C++ interface, kissfft.hh, is a template over the scalar type: float and
// double from this one file. The steps of the cuFFT path: f's real-to-complex transform
// straight from the padded Field, the division by the symbol (backend/fft_symbol.hpp), the
// complex-to-real transform into u, the spectrum laid out as cuFFT's, [kz][ky][kx] with
// nx/2 + 1 values of kx. kissfft.hh transforms complex lines, so the real transforms along x
// take two rows at once as one complex line (the real and imaginary parts), split or joined
// by the spectra's Hermitian symmetry. The 3D transforms are 1D passes threaded by OpenMP like
// the rest of this backend: per z plane along x and y, per ky slab along z, where the
// division sits between the forward and the inverse pass while the line is in cache.
#include <kissfft.hh>

#include <algorithm>
#include <complex>
#include <exception>
#include <memory>
#include <mutex>
#include <new>
#include <optional>
#include <vector>

#include "backend/fft.hpp"
#include "backend/fft_symbol.hpp"
#include "cpu/cpu.hpp"
#include "strata/error.hpp"

namespace strata::cpu {

namespace {

// The spectrum buffer of one shape. The last shape's is kept for the next solve (fft_prepare
// makes it in a solver's setup), as the CUDA backend keeps its plans; a solve holds `busy`
// while it uses the buffer, so concurrent solves of one shape take turns.
template <class T>
struct Workspace {
  explicit Workspace(Extent e)
      : n(e), spectrum(std::size_t(e.nx / 2 + 1) * std::size_t(e.ny) * std::size_t(e.nz)) {}
  Extent n;
  std::vector<std::complex<T>> spectrum;
  std::mutex busy;
};

template <class T>
std::shared_ptr<Workspace<T>> workspace_for(Extent n) {
  static std::mutex m;
  static std::shared_ptr<Workspace<T>> last;
  std::lock_guard<std::mutex> lock(m);
  if (!last || !(last->n == n)) {
    last.reset();  // the previous shape's buffer goes before the new one is allocated
    try {
      last = std::make_shared<Workspace<T>>(n);
    } catch (const std::bad_alloc&) {
      throw Error("the fft solver's spectrum for " + n.str() + " does not fit in memory");
    }
  }
  return last;
}

// What one thread transforms with: KissFFT's plans (the twiddles and factors of one length
// and direction) for each axis, and two lines to work in. A plan is not shared between
// threads (it keeps a scratch line for its odd radices); making one costs O(n) against the
// solve's O(N log N).
template <class T>
struct Lines {
  using C = std::complex<T>;
  explicit Lines(Extent n)
      : x_fwd(n.nx, false),
        x_inv(n.nx, true),
        y_fwd(n.ny, false),
        y_inv(n.ny, true),
        z_fwd(n.nz, false),
        z_inv(n.nz, true),
        in(std::size_t(std::max({n.nx, n.ny, n.nz}))),
        out(in.size()) {}
  kissfft<T> x_fwd, x_inv, y_fwd, y_inv, z_fwd, z_inv;
  std::vector<C> in, out;
};

// body(lines, i) for i in [0, count), over OpenMP threads when the grid is large enough,
// each thread with its own Lines; the first exception thrown by any iteration is rethrown
// after the loop (none may leave a parallel region).
template <class T, class Body>
void parallel_for(Extent n, std::ptrdiff_t count, const Body& body) {
  std::exception_ptr error;
  auto keep = [&error] {
#pragma omp critical(strata_cpu_fft_error)
    if (!error) error = std::current_exception();
  };
#pragma omp parallel if (threaded(n.points()))
  {
    std::optional<Lines<T>> lines;
    try {
      lines.emplace(n);
    } catch (...) {
      keep();
    }
#pragma omp for schedule(static)
    for (std::ptrdiff_t i = 0; i < count; ++i) {
      if (!lines) continue;
      try {
        body(*lines, i);
      } catch (...) {
        keep();
      }
    }
  }
  if (error) std::rethrow_exception(error);
}

// The transform of the `count` values at `stride` from `line`, in place.
template <class T>
void transform_strided(const kissfft<T>& plan, std::complex<T>* line, std::size_t count,
                       std::size_t stride, Lines<T>& l) {
  for (std::size_t i = 0; i < count; ++i) l.in[i] = line[i * stride];
  plan.transform(l.in.data(), l.out.data());
  for (std::size_t i = 0; i < count; ++i) line[i * stride] = l.out[i];
}

// The spectra sa, sb (nx/2 + 1 values each) of the real rows a and b (b null: a alone) by
// one complex transform z of a + i b: sa_k = (z_k + conj z_{nx-k}) / 2 and
// sb_k = (z_k - conj z_{nx-k}) / 2i.
template <class T>
void rows_to_spectra(Lines<T>& l, std::size_t nx, const T* a, const T* b, std::complex<T>* sa,
                     std::complex<T>* sb) {
  using C = std::complex<T>;
  for (std::size_t x = 0; x < nx; ++x) l.in[x] = C(a[x], b ? b[x] : T(0));
  l.x_fwd.transform(l.in.data(), l.out.data());
  const C* z = l.out.data();
  for (std::size_t k = 0; k <= nx / 2; ++k) {
    const C zk = z[k], zm = std::conj(z[k == 0 ? 0 : nx - k]);
    sa[k] = T(0.5) * (zk + zm);
    if (sb) sb[k] = C(T(0.5) * (zk.imag() - zm.imag()), T(-0.5) * (zk.real() - zm.real()));
  }
}

// The inverse of rows_to_spectra: the rows a and b (b null: a alone) as the real and
// imaginary parts of one inverse transform of sa + i sb, each spectrum extended to nx values
// by Hermitian symmetry. The imaginary parts of the mean and (even nx) Nyquist values are
// dropped, as every complex-to-real transform does.
template <class T>
void spectra_to_rows(Lines<T>& l, std::size_t nx, const std::complex<T>* sa,
                     const std::complex<T>* sb, T* a, T* b) {
  using C = std::complex<T>;
  for (std::size_t k = 0; k <= nx / 2; ++k) {
    const bool real = k == 0 || 2 * k == nx;
    const C A = real ? C(sa[k].real(), 0) : sa[k];
    const C B = !sb ? C(0, 0) : real ? C(sb[k].real(), 0) : sb[k];
    l.in[k] = C(A.real() - B.imag(), A.imag() + B.real());                  // A + i B
    if (!real) l.in[nx - k] = C(A.real() + B.imag(), B.real() - A.imag());  // conj A + i conj B
  }
  l.x_inv.transform(l.in.data(), l.out.data());
  for (std::size_t x = 0; x < nx; ++x) {
    a[x] = l.out[x].real();
    if (b) b[x] = l.out[x].imag();
  }
}

}  // namespace

template <class T>
void fft_solve(Tag, double h, const Field<T>& f, Field<T>& u, void*) {
  using C = std::complex<T>;
  const Extent n = f.extent();
  const std::shared_ptr<Workspace<T>> w = workspace_for<T>(n);
  std::lock_guard<std::mutex> lock(w->busy);
  C* const spec = w->spectrum.data();
  const std::size_t nx = n.nx, ny = n.ny, nz = n.nz, nxh = nx / 2 + 1;

  // The symbol's per-axis shares, each computed once (the CUDA kernel computes the same
  // values per point).
  std::vector<T> cx(nxh), cy(ny), cz(nz);
  for (std::size_t k = 0; k < nxh; ++k) cx[k] = poisson::fd7_axis_cosine<T>(int(k), n.nx);
  for (std::size_t k = 0; k < ny; ++k) cy[k] = poisson::fd7_axis_cosine<T>(int(k), n.ny);
  for (std::size_t k = 0; k < nz; ++k) cz[k] = poisson::fd7_axis_cosine<T>(int(k), n.nz);
  const T inv_h2 = T(1.0 / (h * h));
  const T scale = T(1) / (T(n.nx) * T(n.ny) * T(n.nz));

  try {
    // Per z plane: real-to-complex along x (two rows a transform), then forward along y.
    parallel_for<T>(n, n.nz, [&](Lines<T>& l, std::ptrdiff_t z) {
      C* s = spec + z * ny * nxh;
      const T* plane = f.origin() + z * f.layout().plane;
      const std::size_t pitch = f.layout().pitch;
      for (std::size_t y = 0; y < ny; y += 2) {
        const bool two = y + 1 < ny;
        rows_to_spectra(l, nx, plane + y * pitch, two ? plane + (y + 1) * pitch : nullptr,
                        s + y * nxh, two ? s + (y + 1) * nxh : nullptr);
      }
      for (std::size_t kx = 0; kx < nxh; ++kx) transform_strided(l.y_fwd, s + kx, ny, nxh, l);
    });
    // Per ky slab, per kx: forward along z, the division, inverse along z.
    parallel_for<T>(n, n.ny, [&](Lines<T>& l, std::ptrdiff_t ky) {
      const std::size_t stride = ny * nxh;
      for (std::size_t kx = 0; kx < nxh; ++kx) {
        C* line = spec + ky * nxh + kx;
        for (std::size_t kz = 0; kz < nz; ++kz) l.in[kz] = line[kz * stride];
        l.z_fwd.transform(l.in.data(), l.out.data());
        for (std::size_t kz = 0; kz < nz; ++kz)
          l.out[kz] *= poisson::fd7_inverse_gain(cx[kx], cy[ky], cz[kz], inv_h2, scale,
                                                 kx == 0 && ky == 0 && kz == 0);
        l.z_inv.transform(l.out.data(), l.in.data());
        for (std::size_t kz = 0; kz < nz; ++kz) line[kz * stride] = l.in[kz];
      }
    });
    // Per z plane: inverse along y, then complex-to-real along x into u (two rows at once).
    parallel_for<T>(n, n.nz, [&](Lines<T>& l, std::ptrdiff_t z) {
      C* s = spec + z * ny * nxh;
      T* plane = u.origin() + z * u.layout().plane;
      const std::size_t pitch = u.layout().pitch;
      for (std::size_t kx = 0; kx < nxh; ++kx) transform_strided(l.y_inv, s + kx, ny, nxh, l);
      for (std::size_t y = 0; y < ny; y += 2) {
        const bool two = y + 1 < ny;
        spectra_to_rows(l, nx, s + y * nxh, two ? s + (y + 1) * nxh : nullptr, plane + y * pitch,
                        two ? plane + (y + 1) * pitch : nullptr);
      }
    });
  } catch (const std::bad_alloc&) {
    throw Error("the fft solver ran out of memory for its transforms' work lines (" + n.str() +
                ")");
  }
}

template <class T>
void fft_prepare(Tag, const Field<T>& f, const Field<T>&) {
  workspace_for<T>(f.extent());
}

template void fft_solve(Tag, double, const Field<float>&, Field<float>&, void*);
template void fft_solve(Tag, double, const Field<double>&, Field<double>&, void*);
template void fft_prepare(Tag, const Field<float>&, const Field<float>&);
template void fft_prepare(Tag, const Field<double>&, const Field<double>&);

}  // namespace strata::cpu

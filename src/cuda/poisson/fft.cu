// Spectral solve of the periodic 7-point Poisson problem with cuFFT: forward real-to-complex
// transform of f straight from the padded Field layout, division by the operator's
// eigenvalues (backend/fft_symbol.hpp, shared with the CPU's KissFFT path), inverse
// transform into u. Plans and the spectrum buffer are cached per shape (created on the first
// solve of a shape, reused after).
#include <cufft.h>

#include <map>
#include <memory>
#include <mutex>
#include <tuple>

#include "backend/fft.hpp"
#include "backend/fft_symbol.hpp"
#include "base/device_array.hpp"
#include "cuda/check.hpp"

namespace strata::cuda {

namespace {

void check_cufft(cufftResult r, const char* call) {
  if (r != CUFFT_SUCCESS)
    throw Error(std::string("cuFFT error: ") + call + " failed with cufftResult " + std::to_string(int(r)));
}

template <class T>
struct Types;
template <>
struct Types<float> {
  using Complex = cufftComplex;
  static constexpr cufftType fwd = CUFFT_R2C, inv = CUFFT_C2R;
  static cufftResult forward(cufftHandle p, float* in, Complex* out) { return cufftExecR2C(p, in, out); }
  static cufftResult inverse(cufftHandle p, Complex* in, float* out) { return cufftExecC2R(p, in, out); }
};
template <>
struct Types<double> {
  using Complex = cufftDoubleComplex;
  static constexpr cufftType fwd = CUFFT_D2Z, inv = CUFFT_Z2D;
  static cufftResult forward(cufftHandle p, double* in, Complex* out) { return cufftExecD2Z(p, in, out); }
  static cufftResult inverse(cufftHandle p, Complex* in, double* out) { return cufftExecZ2D(p, in, out); }
};

// û(k) /= lambda(k) * N; the mean (k = 0) is set to zero.
template <class T, class C>
__global__ void divide_by_symbol(C* spec, int nx, int ny, int nz, T inv_h2) {
  const int nxh = nx / 2 + 1;
  const std::int64_t total = std::int64_t(nxh) * ny * nz;
  const T scale = T(1) / (T(nx) * T(ny) * T(nz));
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < total;
       i += std::int64_t(gridDim.x) * blockDim.x) {
    const int kx = int(i % nxh), ky = int((i / nxh) % ny), kz = int(i / (std::int64_t(nxh) * ny));
    const T g = poisson::fd7_inverse_gain(
        poisson::fd7_axis_cosine<T>(kx, nx), poisson::fd7_axis_cosine<T>(ky, ny),
        poisson::fd7_axis_cosine<T>(kz, nz), inv_h2, scale, i == 0);
    spec[i].x *= g;
    spec[i].y *= g;
  }
}

template <class T>
struct Plan {
  cufftHandle fwd = 0, inv = 0;
  DeviceArray<typename Types<T>::Complex> spectrum;
  typename Types<T>::Complex* spec = nullptr;  // spectrum.get()
  ~Plan() {
    if (fwd) cufftDestroy(fwd);
    if (inv) cufftDestroy(inv);
  }
};

template <class T>
Plan<T>& plan_for(const Layout& lf, const Layout& lu) {
  using Key = std::tuple<int, int, int, std::int64_t, std::int64_t, std::int64_t, std::int64_t, int>;
  static std::mutex m;
  static std::map<Key, std::unique_ptr<Plan<T>>> cache;
  int dev = 0;
  STRATA_CUDA_CHECK(cudaGetDevice(&dev));
  const Key key{lf.n.nx, lf.n.ny, lf.n.nz, lf.pitch, lf.rows, lu.pitch, lu.rows, dev};
  std::lock_guard<std::mutex> lock(m);
  auto& p = cache[key];
  if (p) return *p;
  p = std::make_unique<Plan<T>>();
  // 64-bit plan API: large padded grids exceed int element counts. The batch distances
  // are the array sizes (cuFFT rejects 0 with an advanced layout, even for one batch).
  long long n[3] = {lf.n.nz, lf.n.ny, lf.n.nx};
  long long in_embed[3] = {lf.n.nz, lf.rows, lf.pitch};
  long long out_embed[3] = {lu.n.nz, lu.rows, lu.pitch};
  long long spec_embed[3] = {lf.n.nz, lf.n.ny, lf.n.nx / 2 + 1};
  const long long in_dist = in_embed[0] * in_embed[1] * in_embed[2];
  const long long out_dist = out_embed[0] * out_embed[1] * out_embed[2];
  const long long spec_dist = spec_embed[0] * spec_embed[1] * spec_embed[2];
  p->spectrum = DeviceArray<typename Types<T>::Complex>(std::size_t(spec_dist));
  p->spec = p->spectrum.get();
  std::size_t work = 0;
  check_cufft(cufftCreate(&p->fwd), "cufftCreate");
  check_cufft(cufftMakePlanMany64(p->fwd, 3, n, in_embed, 1, in_dist, spec_embed, 1, spec_dist, Types<T>::fwd, 1, &work),
              "cufftMakePlanMany64 (forward)");
  check_cufft(cufftCreate(&p->inv), "cufftCreate");
  check_cufft(cufftMakePlanMany64(p->inv, 3, n, spec_embed, 1, spec_dist, out_embed, 1, out_dist, Types<T>::inv, 1, &work),
              "cufftMakePlanMany64 (inverse)");
  return *p;
}

}  // namespace

template <class T>
void fft_solve(Tag, double h, const Field<T>& f, Field<T>& u, void* stream) {
  require(f.extent() == u.extent(), "fft_solve: f and u extents differ");
  Plan<T>& p = plan_for<T>(f.layout(), u.layout());
  const auto s = static_cast<cudaStream_t>(stream);
  check_cufft(cufftSetStream(p.fwd, s), "cufftSetStream");
  check_cufft(cufftSetStream(p.inv, s), "cufftSetStream");
  // cuFFT takes non-const input; the forward real-to-complex transform does not modify it.
  check_cufft(Types<T>::forward(p.fwd, const_cast<T*>(f.origin()), p.spec), "cufftExec forward");
  const Extent n = f.extent();
  divide_by_symbol<T><<<1024, 256, 0, s>>>(p.spec, n.nx, n.ny, n.nz, T(1.0 / (h * h)));
  STRATA_CUDA_CHECK_LAUNCH();
  check_cufft(Types<T>::inverse(p.inv, p.spec, u.origin()), "cufftExec inverse");
}

template <class T>
void fft_prepare(Tag, const Field<T>& f, const Field<T>& u) {
  require(f.extent() == u.extent(), "fft_prepare: f and u extents differ");
  plan_for<T>(f.layout(), u.layout());
}

template void fft_solve(Tag, double, const Field<float>&, Field<float>&, void*);
template void fft_solve(Tag, double, const Field<double>&, Field<double>&, void*);
template void fft_prepare(Tag, const Field<float>&, const Field<float>&);
template void fft_prepare(Tag, const Field<double>&, const Field<double>&);

}  // namespace strata::cuda

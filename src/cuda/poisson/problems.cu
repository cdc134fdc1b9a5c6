// Device side of the generated Poisson problems (see problems.hpp): one thread per
// x point, rows by blockIdx.y/z; the error norms reduce per block in a fixed order and the
// host adds the block partials in order, so the result does not depend on timing.
#include <algorithm>
#include <vector>

#include "backend/problem_values.hpp"
#include "cuda/check.hpp"
#include "base/device_array.hpp"
#include "backend/problems.hpp"

namespace strata::cuda {

namespace {

struct Tables {  // the three axis tables in one device allocation
  explicit Tables(const double* tx, const double* ty, const double* tz, Extent n)
      : array(joined(tx, ty, tz, n)), d(array.get()) {}
  static std::vector<double> joined(const double* tx, const double* ty, const double* tz, Extent n) {
    std::vector<double> h(tx, tx + n.nx);
    h.insert(h.end(), ty, ty + n.ny);
    h.insert(h.end(), tz, tz + n.nz);
    return h;
  }
  DeviceArray<double> array;
  double* d;
};

struct Rows {
  int nx, ny, nz;
  std::int64_t pitch, plane;
};

template <class T>
Rows rows_of(const Field<T>& f) {
  return {f.extent().nx, f.extent().ny, f.extent().nz, f.layout().pitch, f.layout().plane};
}

template <class T>
__global__ void fill_product_kernel(const double* __restrict__ t, double scale, double offset, T* __restrict__ f,
                                    Rows g) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y, z = blockIdx.z;
  if (x >= g.nx) return;
  double v = 1;  // the host loop's order: x, then y, then z
  v *= t[x];
  v *= t[g.nx + y];
  v *= t[g.nx + g.ny + z];
  f[z * g.plane + y * g.pitch + x] = T(poisson::scaled_value(scale, v, offset));
}

template <class T>
__global__ void fill_random_kernel(std::uint64_t seed, T* __restrict__ f, Rows g) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y, z = blockIdx.z;
  if (x >= g.nx) return;
  const std::uint64_t i = (std::uint64_t(z) * g.ny + y) * g.nx + x;
  f[z * g.plane + y * g.pitch + x] = T(poisson::random_value(seed, i));
}

constexpr int kThreads = 256, kBlocks = 1024;

template <class T>
__global__ void product_error_kernel(const double* __restrict__ t, double offset, double shift_u, double shift_e,
                                     const T* __restrict__ u, Rows g, double* __restrict__ partial) {
  __shared__ double s_max[kThreads], s_d2[kThreads], s_e2[kThreads];
  double m = 0, d2 = 0, e2 = 0;
  const std::int64_t rows = std::int64_t(g.ny) * g.nz;
  for (std::int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    const int y = int(r % g.ny), z = int(r / g.ny);
    const T* row = u + z * g.plane + y * g.pitch;
    for (int x = threadIdx.x; x < g.nx; x += blockDim.x) {
      double p = 1;  // the host loop's order
      p *= t[x];
      p *= t[g.nx + y];
      p *= t[g.nx + g.ny + z];
      const double e = offset + p - shift_e;
      const double d = (double(row[x]) - shift_u) - e;
      m = fmax(m, fabs(d));
      d2 += d * d;
      e2 += e * e;
    }
  }
  s_max[threadIdx.x] = m, s_d2[threadIdx.x] = d2, s_e2[threadIdx.x] = e2;
  __syncthreads();
  for (int k = kThreads / 2; k > 0; k /= 2) {
    if (int(threadIdx.x) < k) {
      s_max[threadIdx.x] = fmax(s_max[threadIdx.x], s_max[threadIdx.x + k]);
      s_d2[threadIdx.x] += s_d2[threadIdx.x + k];
      s_e2[threadIdx.x] += s_e2[threadIdx.x + k];
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    partial[3 * blockIdx.x] = s_max[0];
    partial[3 * blockIdx.x + 1] = s_d2[0];
    partial[3 * blockIdx.x + 2] = s_e2[0];
  }
}

dim3 grid_of(const Rows& g) { return dim3(unsigned((g.nx + 127) / 128), unsigned(g.ny), unsigned(g.nz)); }

}  // namespace

template <class T>
void fill_product(Tag, const double* tx, const double* ty, const double* tz, double scale,
                  double offset, Field<T>& f, void* stream) {
  const Tables t(tx, ty, tz, f.extent());
  const Rows g = rows_of(f);
  fill_product_kernel<T><<<grid_of(g), 128, 0, static_cast<cudaStream_t>(stream)>>>(t.d, scale, offset, f.origin(), g);
  STRATA_CUDA_CHECK_LAUNCH();
  STRATA_CUDA_CHECK(cudaStreamSynchronize(static_cast<cudaStream_t>(stream)));  // before the tables go
}

template <class T>
void product_error(Tag, const double* tx, const double* ty, const double* tz, double offset,
                   double shift_u, double shift_e, const Field<T>& u, double out[3], void* stream) {
  const Tables t(tx, ty, tz, u.extent());
  const Rows g = rows_of(u);
  const auto s = static_cast<cudaStream_t>(stream);
  const int blocks = int(std::min<std::int64_t>(kBlocks, std::int64_t(g.ny) * g.nz));
  const DeviceArray<double> partials(3 * std::size_t(blocks));
  double* partial = partials.get();
  product_error_kernel<T><<<blocks, kThreads, 0, s>>>(t.d, offset, shift_u, shift_e, u.origin(), g, partial);
  std::vector<double> h(3 * std::size_t(blocks));
  const cudaError_t launch = cudaGetLastError();
  const cudaError_t copy = launch == cudaSuccess ? cudaMemcpyAsync(h.data(), partial, h.size() * sizeof(double),
                                                                   cudaMemcpyDeviceToHost, s)
                                                 : launch;
  const cudaError_t sync = copy == cudaSuccess ? cudaStreamSynchronize(s) : copy;
  STRATA_CUDA_CHECK(sync);
  out[0] = out[1] = out[2] = 0;
  for (int b = 0; b < blocks; ++b) {
    out[0] = std::max(out[0], h[3 * b]);
    out[1] += h[3 * b + 1];
    out[2] += h[3 * b + 2];
  }
}

template <class T>
void fill_random(Tag, Field<T>& f, std::uint64_t seed, void* stream) {
  const Rows g = rows_of(f);
  fill_random_kernel<T><<<grid_of(g), 128, 0, static_cast<cudaStream_t>(stream)>>>(seed, f.origin(), g);
  STRATA_CUDA_CHECK_LAUNCH();
}

#include "backend/problems_instances.inc"

}  // namespace strata::cuda

// Shape sweep for the lab's bandwidth kernels, on the GPU: reduce variant 9 (block, loads per
// thread, grid) at 2^29 ints and transpose variants 3-5 (tile shapes) at 16384^2, each
// checked, against cudaMemcpy of the same bytes. Its table picks kVecBlock/kVecUnroll in
// lab/reduce.cu and kRegBx/kRegBy/kRegRows in lab/transpose.cu. Not part of the build:
//   nvcc -O3 -std=c++20 -arch=sm_90 -I. -o /tmp/sweep lab/dev/sweep.cu && /tmp/sweep
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "lab/reduce_kernels.cuh"
#include "lab/transpose_kernels.cuh"

namespace rk = strata::lab::reduce_kernels;
namespace tk = strata::lab::transpose_kernels;

#define CK(x)                                                                         \
  do {                                                                                \
    cudaError_t e_ = (x);                                                             \
    if (e_ != cudaSuccess) {                                                          \
      std::printf("%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
      std::exit(1);                                                                   \
    }                                                                                 \
  } while (0)

template <class F>
float median_ms(F f, int warm = 3, int reps = 30) {
  for (int i = 0; i < warm; ++i) f();
  std::vector<cudaEvent_t> ev(2 * reps);
  for (auto& e : ev) CK(cudaEventCreate(&e));
  for (int r = 0; r < reps; ++r) {
    CK(cudaEventRecord(ev[2 * r]));
    f();
    CK(cudaEventRecord(ev[2 * r + 1]));
  }
  CK(cudaDeviceSynchronize());
  std::vector<float> ms(reps);
  for (int r = 0; r < reps; ++r) CK(cudaEventElapsedTime(&ms[r], ev[2 * r], ev[2 * r + 1]));
  for (auto& e : ev) CK(cudaEventDestroy(e));
  std::sort(ms.begin(), ms.end());
  return ms[reps / 2];
}

__global__ void fill_small_ints(int* p, size_t n) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
    unsigned long long x = (i + 1) * 0x9E3779B97F4A7C15ull;
    x ^= x >> 31, x *= 0xBF58476D1CE4E5B9ull, x ^= x >> 29;
    p[i] = int(x & 3);
  }
}
__global__ void fill_floats(float* p, size_t n) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
    p[i] = float(i % 1000003) * 0.5f;
}
__global__ void count_mismatches(const float* a, const float* b, int rows, int cols, unsigned long long* bad) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < size_t(rows) * cols; i += size_t(gridDim.x) * blockDim.x)
    if (__float_as_uint(b[(i % cols) * rows + i / cols]) != __float_as_uint(a[i])) atomicAdd(bad, 1ull);
}

int g_sms = 0;

template <int kBlock, int kUnroll>
void reduce_shape(const int* d, size_t n, long long want, double memcpy_rw, rk::GridFinish f) {
  int per = 0;
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per, rk::vector_grid<kBlock, kUnroll, int>, kBlock, 0));
  for (int mult : {1, 2, 4}) {
    const int grid = g_sms * per * mult;
    auto run = [&] { rk::vector_grid<kBlock, kUnroll, int><<<grid, kBlock>>>(d, n, f); };
    CK(cudaMemset(f.out, 0xff, 8));
    run();
    CK(cudaGetLastError());
    long long got = 0;
    CK(cudaMemcpy(&got, f.out, 8, cudaMemcpyDeviceToHost));
    const float ms = median_ms(run);
    const double gb = n * 4.0 / (ms * 1e-3) / 1e9;
    std::printf("reduce9 block %4d loads %d grid %5d (%2d/SM)  %.4f ms  %7.1f GB/s read  %.3f vs memcpy r+w  %s\n", kBlock,
                kUnroll, grid, per * mult, ms, gb, gb / memcpy_rw, got == want ? "exact" : "WRONG");
  }
}

template <class Kernel>
void transpose_shape(const char* name, Kernel k, dim3 grid, dim3 block, const float* a, float* b, int n, double memcpy_rw,
                     unsigned long long* bad) {
  auto run = [&] { k<<<grid, block>>>(a, b, n, n); };
  CK(cudaMemset(b, 0xff, size_t(n) * n * 4));
  run();
  CK(cudaGetLastError());
  CK(cudaMemset(bad, 0, 8));
  count_mismatches<<<4096, 256>>>(a, b, n, n, bad);
  unsigned long long nbad = 0;
  CK(cudaMemcpy(&nbad, bad, 8, cudaMemcpyDeviceToHost));
  const float ms = median_ms(run);
  const double gb = 2.0 * n * n * 4 / (ms * 1e-3) / 1e9;
  std::printf("transpose %-34s %.4f ms  %7.1f GB/s  %.3f of memcpy  %s\n", name, ms, gb, gb / memcpy_rw, nbad ? "WRONG" : "exact");
}

template <int kBx, int kBy, int kRows>
void register_shape(const float* a, float* b, int n, double memcpy_rw, unsigned long long* bad) {
  using S = tk::RegisterShape<kBx, kBy, kRows>;
  char name[64];
  std::snprintf(name, sizeof name, "5 registers %dx%d x%d", kBx, kBy, kRows);
  transpose_shape(name, tk::register_blocks<kBx, kBy, kRows, true>, dim3(n / S::tile_cols, n / S::tile_rows),
                  dim3(S::threads), a, b, n, memcpy_rw, bad);
}

int main() {
  CK(cudaDeviceGetAttribute(&g_sms, cudaDevAttrMultiProcessorCount, 0));
  const size_t n = size_t(1) << 29;
  int *d = nullptr, *dst = nullptr;
  CK(cudaMalloc(&d, n * 4));
  CK(cudaMalloc(&dst, n * 4));
  fill_small_ints<<<4096, 256>>>(d, n);
  std::vector<int> h(n);
  CK(cudaMemcpy(h.data(), d, n * 4, cudaMemcpyDeviceToHost));
  long long want = 0;
  for (int x : h) want += x;
  auto copy = [&] { CK(cudaMemcpyAsync(dst, d, n * 4, cudaMemcpyDeviceToDevice)); };
  const double memcpy_rw = 2.0 * n * 4 / (median_ms(copy) * 1e-3) / 1e9;
  std::printf("cudaMemcpy 2 GiB: %.1f GB/s read+write\n", memcpy_rw);
  rk::GridFinish f{};
  CK(cudaMalloc(&f.partials, 8 << 16));
  CK(cudaMalloc(&f.ticket, 4));
  CK(cudaMalloc(&f.out, 8));
  CK(cudaMemset(f.ticket, 0, 4));
  reduce_shape<128, 4>(d, n, want, memcpy_rw, f);
  reduce_shape<256, 1>(d, n, want, memcpy_rw, f);
  reduce_shape<256, 2>(d, n, want, memcpy_rw, f);
  reduce_shape<256, 4>(d, n, want, memcpy_rw, f);
  reduce_shape<256, 8>(d, n, want, memcpy_rw, f);
  reduce_shape<512, 4>(d, n, want, memcpy_rw, f);
  reduce_shape<512, 8>(d, n, want, memcpy_rw, f);
  reduce_shape<1024, 4>(d, n, want, memcpy_rw, f);
  std::printf("cudaMemcpy 2 GiB again: %.1f GB/s read+write\n", 2.0 * n * 4 / (median_ms(copy) * 1e-3) / 1e9);
  CK(cudaFree(dst));
  CK(cudaFree(d));

  const int e = 16384;
  float *a = nullptr, *b = nullptr;
  unsigned long long* bad = nullptr;
  CK(cudaMalloc(&a, size_t(e) * e * 4));
  CK(cudaMalloc(&b, size_t(e) * e * 4));
  CK(cudaMalloc(&bad, 8));
  fill_floats<<<4096, 256>>>(a, size_t(e) * e);
  const double t_rw = 2.0 * e * e * 4 /
                      (median_ms([&] { CK(cudaMemcpyAsync(b, a, size_t(e) * e * 4, cudaMemcpyDeviceToDevice)); }) * 1e-3) / 1e9;
  std::printf("cudaMemcpy 1 GiB: %.1f GB/s read+write\n", t_rw);
  const dim3 tg(e / tk::kTile, e / tk::kTile), tb(tk::kTile, tk::kBlockRows);
  transpose_shape("3 padded 32x33 (seed)", tk::tiled<1>, tg, tb, a, b, e, t_rw, bad);
  transpose_shape("4 swizzled 64x64 float4", tk::swizzled_tile<true>, dim3(e / 64, e / 64), dim3(tk::kSwizzleThreads), a, b,
                  e, t_rw, bad);
  register_shape<8, 32, 1>(a, b, e, t_rw, bad);
  register_shape<8, 32, 2>(a, b, e, t_rw, bad);
  register_shape<8, 16, 2>(a, b, e, t_rw, bad);
  register_shape<16, 16, 1>(a, b, e, t_rw, bad);
  register_shape<16, 16, 2>(a, b, e, t_rw, bad);
  register_shape<32, 8, 1>(a, b, e, t_rw, bad);
  register_shape<32, 8, 2>(a, b, e, t_rw, bad);
  register_shape<8, 32, 4>(a, b, e, t_rw, bad);
  return 0;
}

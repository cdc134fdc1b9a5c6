// Stencil probe (issue 38 item 3): memcpy-style kernels (many short blocks, loads through L1)
// for the 7-point and the radius-4 star, f32, 512^3 on strata's layout (pitch 576, interior
// rows on 256 bytes), against cudaMemcpy and a row copy in the same run. Question: does the
// persistent 2.5D TMA design (0.81 / 0.745 of cudaMemcpy on the H200) lose to a design that
// keeps more, shorter blocks in flight? Standalone (no strata code):
//   nvcc -O3 -std=c++17 -arch=sm_90 tools/stencil-probe.cu -o stencil-probe && ./stencil-probe
// Each variant's output is compared with the one-point-a-thread kernel's (max_rel_err).
// Answer on an H200 (2026-11-29, bench/results/nvidia-h200-stencil-probe.json): no; the best
// here, a z march with the x/y neighbours through L1, reaches 0.76 (7pt) and 0.56 (star4).
#include <cuda_runtime.h>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <type_traits>
#include <vector>

#define CK(x)                                                       \
  do {                                                              \
    cudaError_t e_ = (x);                                           \
    if (e_ != cudaSuccess) {                                        \
      std::fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e_)); \
      std::exit(1);                                                 \
    }                                                               \
  } while (0)

constexpr int N = 512, P = 576, XOFF = 32;
constexpr int G = 4;  // ghost layers in y and z (x: XOFF elements before, pitch after)
constexpr long PL = long(P) * (N + 2 * G);  // plane stride
__host__ __device__ constexpr long at(int x, int y, int z) {
  return long(z + G) * PL + long(y + G) * P + XOFF + x;
}

__constant__ float cf[5];

template <int R>
__device__ __forceinline__ float star_naive(const float* __restrict__ u, long i) {
  float s = cf[0] * __ldg(u + i);
#pragma unroll
  for (int k = 1; k <= R; ++k)
    s += cf[k] *
         (((__ldg(u + i - k) + __ldg(u + i + k)) + (__ldg(u + i - k * P) + __ldg(u + i + k * P))) +
          (__ldg(u + i - k * PL) + __ldg(u + i + k * PL)));
  return s;
}

template <int R, int BY>
__global__ void __launch_bounds__(128 * BY)
    naive(const float* __restrict__ u, float* __restrict__ v) {
  const int x = blockIdx.x * 128 + threadIdx.x, y = blockIdx.y * BY + threadIdx.y, z = blockIdx.z;
  const long i = at(x, y, z);
  v[i] = star_naive<R>(u, i);
}

// A column's z neighbours in registers: q[R] is the plane being updated.
template <int R>
struct ZQueue {
  float q[2 * R + 1];
  __device__ __forceinline__ ZQueue(const float* __restrict__ u, long i) {  // planes below i + R
#pragma unroll
    for (int k = 0; k < 2 * R; ++k) q[k] = __ldg(u + i + (k - R) * PL);
  }
  // Loads plane i + R; returns the queue, its centre q[R] the plane of i.
  __device__ __forceinline__ const float* top(const float* __restrict__ u, long i) {
    q[2 * R] = __ldg(u + i + R * PL);
    return q;
  }
  __device__ __forceinline__ void shift() {
#pragma unroll
    for (int k = 0; k < 2 * R; ++k) q[k] = q[k + 1];
  }
};

// z march: each thread one (x, y) column over ZC planes, the z neighbours in a register
// queue, x and y neighbours through L1 (__ldg) from the plane being updated.
template <int R, int BY, int ZC>
__global__ void __launch_bounds__(128 * BY)
    zmarch(const float* __restrict__ u, float* __restrict__ v) {
  const int x = blockIdx.x * 128 + threadIdx.x, y = blockIdx.y * BY + threadIdx.y,
            z0 = blockIdx.z * ZC;
  long i = at(x, y, z0);
  ZQueue<R> zq(u, i);
  for (int z = 0; z < ZC; ++z, i += PL) {
    const float* q = zq.top(u, i);
    float s = cf[0] * q[R];
#pragma unroll
    for (int k = 1; k <= R; ++k)
      s +=
          cf[k] *
          (((__ldg(u + i - k) + __ldg(u + i + k)) + (__ldg(u + i - k * P) + __ldg(u + i + k * P))) +
           (q[R - k] + q[R + k]));
    v[i] = s;
    zq.shift();
  }
}

// z march with the plane in shared memory (tile + halo), the z neighbours in registers.
template <int R, int BY, int ZC>
__global__ void __launch_bounds__(128 * BY)
    zsmem(const float* __restrict__ u, float* __restrict__ v) {
  __shared__ float t[BY + 2 * R][128 + 2 * R];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int x = blockIdx.x * 128 + tx, y = blockIdx.y * BY + ty, z0 = blockIdx.z * ZC;
  long i = at(x, y, z0);
  ZQueue<R> zq(u, i);
  for (int z = 0; z < ZC; ++z, i += PL) {
    const float* q = zq.top(u, i);
    t[ty + R][tx + R] = q[R];
    if (tx < R) {
      t[ty + R][tx] = __ldg(u + i - R);
      t[ty + R][tx + 128 + R] = __ldg(u + i + 128);
    }
    if (ty < R) {
      t[ty][tx + R] = __ldg(u + i - R * P);
      t[ty + BY + R][tx + R] = __ldg(u + i + BY * P);
    }
    __syncthreads();
    float s = cf[0] * q[R];
#pragma unroll
    for (int k = 1; k <= R; ++k)
      s += cf[k] * (((t[ty + R][tx + R - k] + t[ty + R][tx + R + k]) +
                     (t[ty + R - k][tx + R] + t[ty + R + k][tx + R])) +
                    (q[R - k] + q[R + k]));
    v[i] = s;
    __syncthreads();
    zq.shift();
  }
}

__global__ void copy_rows(const float* __restrict__ a, float* __restrict__ b) {
  const int lane = threadIdx.x & 127, r = blockIdx.x * 4 + (threadIdx.x >> 7);
  const long o = at(0, r % N, r / N);
  reinterpret_cast<float4*>(b + o)[lane] = reinterpret_cast<const float4*>(a + o)[lane];
}

template <class F>
static float median_ms(F&& f, int reps = 30) {
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  for (int i = 0; i < 3; ++i) f();
  std::vector<float> t;
  for (int i = 0; i < reps; ++i) {
    CK(cudaEventRecord(e0));
    f();
    CK(cudaEventRecord(e1));
    CK(cudaEventSynchronize(e1));
    float ms;
    CK(cudaEventElapsedTime(&ms, e0, e1));
    t.push_back(ms);
  }
  CK(cudaGetLastError());
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

int main() {
  const size_t total = size_t(PL) * (N + 2 * G) + 64, bytes = total * 4;
  const size_t lead = 128;  // interior rows on 256 bytes: (lead + XOFF*4) % 256 == 0
  std::vector<float> h(total);
  for (size_t k = 0; k < total; ++k) h[k] = float((k * 2654435761u) % 1000003) * 1e-6f;
  char *A, *B, *C;
  CK(cudaMalloc(&A, bytes + 256));
  CK(cudaMalloc(&B, bytes + 256));
  CK(cudaMalloc(&C, bytes + 256));
  float* u = reinterpret_cast<float*>(A + lead);
  float* v = reinterpret_cast<float*>(B + lead);
  float* ref = reinterpret_cast<float*>(C + lead);
  CK(cudaMemcpy(u, h.data(), bytes, cudaMemcpyHostToDevice));
  const float c[5] = {-7.1f, 1.3f, -0.21f, 0.034f, -0.0051f};
  CK(cudaMemcpyToSymbol(cf, c, sizeof c));
  const size_t ibytes = size_t(N) * N * N * 4;
  const float mc = median_ms([&] { CK(cudaMemcpyAsync(B, A, ibytes, cudaMemcpyDeviceToDevice)); });
  const double mc_gbs = 2.0 * ibytes / (mc * 1e6);
  cudaDeviceProp p;
  CK(cudaGetDeviceProperties(&p, 0));
  std::printf("{\"gpu\": \"%s\", \"memcpy_gb_per_s\": %.1f, \"rows\": [\n", p.name, mc_gbs);
  // Timed first, then checked: the check reads what the timed launches left in v.
  auto row = [&](const char* name, float ms, auto&& err_of) {
    const double err = err_of();
    const double gbs = 2.0 * ibytes / (ms * 1e6);
    std::printf("  {\"name\": \"%s\", \"ms\": %.4f, \"of_memcpy\": %.4f, \"max_rel_err\": %.2e},\n",
                name, ms, gbs / mc_gbs, err);
    std::fflush(stdout);
  };
  auto check = [&](const float* w) {
    std::vector<float> a(total), b(total);
    CK(cudaMemcpy(a.data(), ref, bytes, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(b.data(), w, bytes, cudaMemcpyDeviceToHost));
    double e = 0;
    for (int z = 0; z < N; z += 7)
      for (int y = 0; y < N; ++y)
        for (int x = 0; x < N; ++x) {
          const long i = at(x, y, z);
          e = std::max(e, double(std::fabs(a[i] - b[i])) / (std::fabs(a[i]) + 1e-3));
        }
    return e;
  };
  row("copy rows", median_ms([&] { copy_rows<<<N * N / 4, 512>>>(u, v); }), [] { return 0.0; });
  // Every variant of one radius: timed, then checked against the one-point-a-thread kernel.
  using Kernel = void (*)(const float*, float*);
  auto variant = [&](const std::string& name, Kernel k, dim3 grid, dim3 block) {
    row(name.c_str(), median_ms([&] { k<<<grid, block>>>(u, v); }), [&] { return check(v); });
  };
  auto radius = [&](auto r) {
    constexpr int R = decltype(r)::value;
    naive<R, 4><<<dim3(4, N / 4, N), dim3(128, 4)>>>(u, ref);
    CK(cudaDeviceSynchronize());
    const std::string p = "r" + std::to_string(R) + " ";
    variant(p + "naive 128x4", naive<R, 4>, dim3(4, N / 4, N), dim3(128, 4));
    variant(p + "naive 128x8", naive<R, 8>, dim3(4, N / 8, N), dim3(128, 8));
    variant(p + "zmarch 128x4 z16", zmarch<R, 4, 16>, dim3(4, N / 4, N / 16), dim3(128, 4));
    variant(p + "zmarch 128x4 z64", zmarch<R, 4, 64>, dim3(4, N / 4, N / 64), dim3(128, 4));
    variant(p + "zmarch 128x8 z32", zmarch<R, 8, 32>, dim3(4, N / 8, N / 32), dim3(128, 8));
    variant(p + "zmarch 128x8 z128", zmarch<R, 8, 128>, dim3(4, N / 8, N / 128), dim3(128, 8));
    variant(p + "zsmem 128x4 z32", zsmem<R, 4, 32>, dim3(4, N / 4, N / 32), dim3(128, 4));
    variant(p + "zsmem 128x8 z32", zsmem<R, 8, 32>, dim3(4, N / 8, N / 32), dim3(128, 8));
    variant(p + "zsmem 128x8 z128", zsmem<R, 8, 128>, dim3(4, N / 8, N / 128), dim3(128, 8));
    variant(p + "zsmem 128x8 z64", zsmem<R, 8, 64>, dim3(4, N / 8, N / 64), dim3(128, 8));
  };
  radius(std::integral_constant<int, 1>{});
  radius(std::integral_constant<int, 4>{});
  row("cudaMemcpy again",
      median_ms([&] { CK(cudaMemcpyAsync(B, A, ibytes, cudaMemcpyDeviceToDevice)); }),
      [] { return 0.0; });
  std::printf("  {}]}\n");
  return 0;
}

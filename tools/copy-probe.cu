// What limits a copy on this GPU (issue 38 item 3): the SM-driven ways to move a 512^3 f32
// field (what every strata stencil pass is bounded by), beside cudaMemcpy in the same run, so
// the ceiling an SM kernel can reach is measured, not assumed; and reads alone, writes alone,
// to tell the read side from the write side. Standalone (no strata code):
//   nvcc -O3 -std=c++17 -arch=sm_90 tools/copy-probe.cu -o copy-probe && ./copy-probe [MiB] [--json F]
// Every variant's output is checked against the input (bit for bit) before it is timed.
// Timing: rounds of every variant in turn (the order rotated each round), one CUDA event
// pair around each launch; the median over 15 rounds.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#define CHECK(x)                                                                           \
  do {                                                                                     \
    cudaError_t e_ = (x);                                                                  \
    if (e_ != cudaSuccess) {                                                               \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
      std::exit(1);                                                                        \
    }                                                                                      \
  } while (0)

// ---- SM copies: each thread moves K 16-byte vectors, all K loads issued before any store
// (bytes in flight per thread = 16 K), grid-stride over the array.
enum class Hint { none, stream, no_allocate };

template <Hint H>
__device__ __forceinline__ void store16(float4* p, float4 v) {
  if constexpr (H == Hint::stream)
    __stcs(p, v);
  else if constexpr (H == Hint::no_allocate)
    asm volatile("st.global.L1::no_allocate.v4.f32 [%0], {%1, %2, %3, %4};" ::"l"(p), "f"(v.x), "f"(v.y),
                 "f"(v.z), "f"(v.w)
                 : "memory");
  else
    *p = v;
}

template <Hint H>
__device__ __forceinline__ float4 load16(const float4* p) {
  if constexpr (H == Hint::stream)
    return __ldcs(p);
  else
    return __ldg(p);
}

template <int K, Hint H>
__global__ void copy_vec(const float4* __restrict__ in, float4* __restrict__ out, std::int64_t n4) {
  const std::int64_t stride = std::int64_t(gridDim.x) * blockDim.x;
  std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  for (; i + (K - 1) * stride < n4; i += K * stride) {
    float4 v[K];
#pragma unroll
    for (int k = 0; k < K; ++k) v[k] = load16<H>(in + i + k * stride);
#pragma unroll
    for (int k = 0; k < K; ++k) store16<H>(out + i + k * stride, v[k]);
  }
  for (; i < n4; i += stride) store16<H>(out + i, load16<H>(in + i));
}

// Reads alone: the sum of every value (kept, so that the loads are not removed).
template <int K>
__global__ void read_only(const float4* __restrict__ in, std::int64_t n4, float* sink) {
  const std::int64_t stride = std::int64_t(gridDim.x) * blockDim.x;
  float s = 0.f;
  std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  for (; i + (K - 1) * stride < n4; i += K * stride) {
    float4 v[K];
#pragma unroll
    for (int k = 0; k < K; ++k) v[k] = __ldg(in + i + k * stride);
#pragma unroll
    for (int k = 0; k < K; ++k) s += v[k].x + v[k].y + v[k].z + v[k].w;
  }
  for (; i < n4; i += stride) {
    const float4 v = __ldg(in + i);
    s += v.x + v.y + v.z + v.w;
  }
  if (s == 1.2345f) *sink = s;  // never true for the probe's data; keeps s live
}

// Writes alone: a value derived from the index.
template <Hint H>
__global__ void write_only(float4* __restrict__ out, std::int64_t n4) {
  const std::int64_t stride = std::int64_t(gridDim.x) * blockDim.x;
  for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n4; i += stride) {
    const float f = float(i & 1023);
    store16<H>(out + i, make_float4(f, f, f, f));
  }
}

// ---- Bulk copies (the TMA's 1D form): one thread of each block moves chunks through a ring of
// S stages of shared memory with cp.async.bulk (global -> shared, completion on an mbarrier)
// and back (shared -> global, a bulk group); a stage is reused once its store has read it.
template <int S>
__global__ void copy_bulk(const char* __restrict__ in, char* __restrict__ out, std::int64_t bytes, int chunk) {
  extern __shared__ __align__(128) char ring[];
  __shared__ __align__(8) std::uint64_t full[S];
  if (threadIdx.x != 0) return;
  for (int s = 0; s < S; ++s) {
    const std::uint32_t bar = std::uint32_t(__cvta_generic_to_shared(&full[s]));
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(bar));
  }
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  const std::int64_t chunks = (bytes + chunk - 1) / chunk;
  std::uint32_t phase[S] = {};
  auto issue = [&](std::int64_t c, int s) {
    const std::int64_t off = c * chunk;
    const int n = bytes - off < chunk ? int(bytes - off) : chunk;
    const std::uint32_t dst = std::uint32_t(__cvta_generic_to_shared(ring + std::int64_t(s) * chunk));
    const std::uint32_t bar = std::uint32_t(__cvta_generic_to_shared(&full[s]));
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(n) : "memory");
    asm volatile(
        "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(dst),
        "l"(in + off), "r"(n), "r"(bar)
        : "memory");
  };
  // This block's chunks, k = 0, 1, ...: chunk blockIdx.x + k gridDim.x in stage k % S. The
  // first S are loaded at once; chunk k's store is issued as soon as it is in, and stage
  // (k - 1) % S is refilled (with chunk k - 1 + S) once the store issued before it has read
  // it, so that S - 1 loads and a store are in flight at all times.
  const std::int64_t mine = chunks > blockIdx.x ? (chunks - blockIdx.x + gridDim.x - 1) / gridDim.x : 0;
  auto chunk_of = [&](std::int64_t k) { return std::int64_t(blockIdx.x) + k * gridDim.x; };
  for (std::int64_t k = 0; k < S && k < mine; ++k) issue(chunk_of(k), int(k));
  for (std::int64_t k = 0; k < mine; ++k) {
    const int s = int(k % S);
    const std::uint32_t bar = std::uint32_t(__cvta_generic_to_shared(&full[s]));
    std::uint32_t done = 0;
    while (!done)
      asm volatile(
          "{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
          : "=r"(done)
          : "r"(bar), "r"(phase[s])
          : "memory");
    phase[s] ^= 1;
    const std::int64_t off = chunk_of(k) * chunk;
    const int n = bytes - off < chunk ? int(bytes - off) : chunk;
    const std::uint32_t src = std::uint32_t(__cvta_generic_to_shared(ring + std::int64_t(s) * chunk));
    asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" ::"l"(out + off), "r"(src), "r"(n)
                 : "memory");
    asm volatile("cp.async.bulk.commit_group;" ::: "memory");
    if (k >= 1 && k - 1 + S < mine) {
      asm volatile("cp.async.bulk.wait_group.read 1;" ::: "memory");  // the previous store has read its stage
      issue(chunk_of(k - 1 + S), int((k - 1) % S));
    }
  }
  asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
}

// ---- The field's layout (issue 38: is it the layout, not the kernel, that holds strata's copy
// at 0.86?). A 512^3 interior inside an allocation of `rows` rows of `p4` 16-byte vectors a row
// and `planes` planes, its first point at (x4, y0, z0): strata's Field<float> with 4 ghost
// layers has rows of 576 floats (the interior's first point 128-byte aligned, the pitch a
// multiple of 32 elements), 520 rows, 520 planes. The same byte count as the flat copies.
constexpr int kN = 512, kC4 = kN / 4;  // interior side; 16-byte vectors in an interior row
struct Layout {
  int p4, rows, planes, x4, y0, z0;
  std::int64_t size4() const { return std::int64_t(p4) * rows * planes; }
  __host__ __device__ std::int64_t at(int c, int y, int z) const {
    return (std::int64_t(z + z0) * rows + (y + y0)) * p4 + x4 + c;
  }
};

// Row order: consecutive threads take consecutive vectors of an interior row, grid-stride, K
// loads in flight a thread (what the flat copy_vec does, through the layout's index).
template <int K>
__global__ void copy_rows(const float4* __restrict__ in, float4* __restrict__ out, Layout L) {
  const std::int64_t n4 = std::int64_t(kN) * kN * kC4;
  const std::int64_t stride = std::int64_t(gridDim.x) * blockDim.x;
  auto at = [&](std::int64_t i) {
    const int c = int(i % kC4);
    const std::int64_t row = i / kC4;
    return L.at(c, int(row % kN), int(row / kN));
  };
  for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n4; i += K * stride) {
    float4 v[K];
#pragma unroll
    for (int k = 0; k < K; ++k)
      if (i + k * stride < n4) v[k] = __ldg(in + at(i + k * stride));
#pragma unroll
    for (int k = 0; k < K; ++k)
      if (i + k * stride < n4) out[at(i + k * stride)] = v[k];
  }
}

// Tile order, as the 2.5D kernels walk the field: block (tile, z chunk) owns a tile of TW4
// vectors x 32 rows of the XY plane and streams its planes in z, K loads in flight a thread.
// So at any moment DRAM sees (tiles x chunks) separate 32-row footprints, not whole rows.
template <int TW4, int K>
__global__ void copy_tiles(const float4* __restrict__ in, float4* __restrict__ out, Layout L, int zchunk) {
  constexpr int TY = 32, E = TW4 * TY;
  const int tiles_x = kC4 / TW4;
  const int x = (blockIdx.x % tiles_x) * TW4, y = (blockIdx.x / tiles_x) * TY;
  const int z0 = blockIdx.y * zchunk, z1 = min(z0 + zchunk, kN);
  for (int z = z0; z < z1; ++z)
    for (int e = threadIdx.x; e < E; e += K * blockDim.x) {
      float4 v[K];
#pragma unroll
      for (int k = 0; k < K; ++k) {
        const int f = e + k * blockDim.x;
        if (f < E) v[k] = __ldg(in + L.at(x + f % TW4, y + f / TW4, z));
      }
#pragma unroll
      for (int k = 0; k < K; ++k) {
        const int f = e + k * blockDim.x;
        if (f < E) out[L.at(x + f % TW4, y + f / TW4, z)] = v[k];
      }
    }
}

struct Row {
  std::string name;
  double moved_bytes;  // per launch
  std::function<void(cudaStream_t)> run;
  bool copies;     // leaves `out` equal to `in` (over the interior, for a layout)
  int layout = -1;  // -1: the flat arrays; else which of the probe's layouts
  std::vector<float> ms;
};

int main(int argc, char** argv) {
  std::size_t mib = 512;
  const char* json = nullptr;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--json") && i + 1 < argc)
      json = argv[++i];
    else
      mib = std::size_t(std::atol(argv[i]));
  }
  const std::size_t bytes = mib << 20, n4 = bytes / 16;
  cudaDeviceProp prop{};
  CHECK(cudaGetDeviceProperties(&prop, 0));
  const int sms = prop.multiProcessorCount;
  float *in = nullptr, *out = nullptr, *sink = nullptr;
  CHECK(cudaMalloc(&in, bytes));
  CHECK(cudaMalloc(&out, bytes));
  CHECK(cudaMalloc(&sink, 4));
  {
    std::vector<float> h(bytes / 4);
    for (std::size_t i = 0; i < h.size(); ++i) h[i] = float((i * 2654435761u) % 100003) * 1e-3f + 0.5f;
    CHECK(cudaMemcpy(in, h.data(), bytes, cudaMemcpyHostToDevice));
  }
  cudaStream_t st;
  CHECK(cudaStreamCreate(&st));
  const auto* in4 = reinterpret_cast<const float4*>(in);
  auto* out4 = reinterpret_cast<float4*>(out);

  std::vector<Row> rows;
  rows.push_back({"cudaMemcpy", 2.0 * bytes,
                  [&](cudaStream_t s) { CHECK(cudaMemcpyAsync(out, in, bytes, cudaMemcpyDeviceToDevice, s)); }, true});
  auto add_vec = [&](const char* hint, auto kernel, int k, int blocks_per_sm, int threads) {
    char name[96];
    std::snprintf(name, sizeof name, "vec16 x%d %s %dx%d/SM", k, hint, blocks_per_sm, threads);
    rows.push_back({name, 2.0 * bytes,
                    [=](cudaStream_t s) { kernel<<<sms * blocks_per_sm, threads, 0, s>>>(in4, out4, std::int64_t(n4)); },
                    true});
  };
  for (int bps : {2, 4, 8}) {
    add_vec("plain", copy_vec<1, Hint::none>, 1, bps, 256);
    add_vec("plain", copy_vec<4, Hint::none>, 4, bps, 256);
  }
  add_vec("plain", copy_vec<2, Hint::none>, 2, 4, 256);
  add_vec("plain", copy_vec<8, Hint::none>, 8, 4, 256);
  add_vec("plain", copy_vec<4, Hint::none>, 4, 2, 1024);
  add_vec("stream(.cs)", copy_vec<4, Hint::stream>, 4, 4, 256);
  add_vec("st.no_allocate", copy_vec<4, Hint::no_allocate>, 4, 4, 256);
  add_vec("stream(.cs)", copy_vec<1, Hint::stream>, 1, 8, 256);

  for (int chunk : {16384, 32768}) {
    for (int bps : {1, 2}) {
      constexpr int S = 4;
      char name[96];
      std::snprintf(name, sizeof name, "bulk (TMA 1D) %d KB x%d stages, %d/SM", chunk / 1024, S, bps);
      const int smem = S * chunk;
      CHECK(cudaFuncSetAttribute(copy_bulk<S>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
      rows.push_back({name, 2.0 * bytes,
                      [=](cudaStream_t s) {
                        copy_bulk<S><<<sms * bps, 32, smem, s>>>(reinterpret_cast<const char*>(in),
                                                                 reinterpret_cast<char*>(out), std::int64_t(bytes), chunk);
                      },
                      true});
    }
  }
  // The field's layout (strata's Field<float>, 4 ghost layers: rows of 576 floats, the interior
  // at x = 32) against dense rows and other pitches: cudaMemcpy3D, row order and tile order
  // (needs the 512 MiB default: kN^3 floats). Pitch 544 has f64's density (512 + 32 of 544).
  struct Lay {
    Layout L;
    const char* name;
    bool all;  // every variant, else row order and the best tile order only
  };
  const Lay lays[] = {
      {{576 / 4, kN + 8, kN + 8, 32 / 4, 4, 4}, "field 576x520x520", true},
      {{kC4, kN, kN, 0, 0, 0}, "dense 512^3", true},
      {{528 / 4, kN + 8, kN + 8, 8 / 4, 4, 4}, "pitch 528 x8", false},
      {{544 / 4, kN + 8, kN + 8, 32 / 4, 4, 4}, "pitch 544 x32", false},
      {{640 / 4, kN + 8, kN + 8, 32 / 4, 4, 4}, "pitch 640 x32", false},
      {{1024 / 4, kN + 8, kN + 8, 32 / 4, 4, 4}, "pitch 1024 x32", false},
      // Rows that start on large boundaries: does where a row starts matter, not the gaps?
      {{kC4, kN + 8, kN + 8, 0, 4, 4}, "pitch 512 x0, ghost rows and planes", false},
      {{576 / 4, kN + 8, kN + 8, 0, 4, 4}, "pitch 576 x0", false},
      {{768 / 4, kN + 8, kN + 8, 0, 4, 4}, "pitch 768 x0", false},
      {{1024 / 4, kN + 8, kN + 8, 0, 4, 4}, "pitch 1024 x0", false},
      {{1024 / 4, kN + 8, kN + 8, 256 / 4, 4, 4}, "pitch 1024 x256", false},
      // Which boundary (x = floats into the row; 64 floats = 256 bytes): 576 x64 starts rows
      // 256 bytes past a 512-byte boundary every other row, 1024 x64 every row, 1024 x128 on
      // 512-byte boundaries; 576 x0 and x256 measured 0.93, x32 0.85-0.90 (2026-11-28).
      {{576 / 4, kN + 8, kN + 8, 64 / 4, 4, 4}, "pitch 576 x64", false},
      {{1024 / 4, kN + 8, kN + 8, 64 / 4, 4, 4}, "pitch 1024 x64", false},
      {{1024 / 4, kN + 8, kN + 8, 128 / 4, 4, 4}, "pitch 1024 x128", false},
  };
  constexpr int kLays = int(sizeof lays / sizeof lays[0]);
  std::int64_t most4 = 0;
  for (const Lay& l : lays) most4 = std::max(most4, l.L.size4());
  float *fin = nullptr, *fout = nullptr;
  if (bytes == std::size_t(kN) * kN * kN * 4) {
    CHECK(cudaMalloc(&fin, most4 * 16));
    CHECK(cudaMalloc(&fout, most4 * 16));
    {
      std::vector<float> h(std::size_t(most4) * 4);
      for (std::size_t i = 0; i < h.size(); ++i) h[i] = float((i * 2246822519u) % 100019) * 1e-3f + 0.25f;
      CHECK(cudaMemcpy(fin, h.data(), h.size() * 4, cudaMemcpyHostToDevice));
    }
    for (int l = 0; l < kLays; ++l) {
      const Layout L = lays[l].L;
      const float4* src = reinterpret_cast<const float4*>(fin);
      float4* dst = reinterpret_cast<float4*>(fout);
      auto name = [&](const char* what) { return std::string(what) + ", " + lays[l].name; };
      if (lays[l].all)
        rows.push_back({name("cudaMemcpy3D"), 2.0 * bytes,
                        [=](cudaStream_t s) {
                          cudaMemcpy3DParms p{};
                          p.srcPtr = make_cudaPitchedPtr(const_cast<float4*>(src), std::size_t(L.p4) * 16,
                                                         std::size_t(L.p4) * 16, std::size_t(L.rows));
                          p.dstPtr = make_cudaPitchedPtr(dst, std::size_t(L.p4) * 16, std::size_t(L.p4) * 16,
                                                         std::size_t(L.rows));
                          p.srcPos = p.dstPos =
                              make_cudaPos(std::size_t(L.x4) * 16, std::size_t(L.y0), std::size_t(L.z0));
                          p.extent = make_cudaExtent(std::size_t(kN) * 4, kN, kN);
                          p.kind = cudaMemcpyDeviceToDevice;
                          CHECK(cudaMemcpy3DAsync(&p, s));
                        },
                        true, l});
      rows.push_back({name("rows x4, 4x256/SM"), 2.0 * bytes,
                      [=](cudaStream_t s) { copy_rows<4><<<sms * 4, 256, 0, s>>>(src, dst, L); }, true, l});
      // A thread a vector, a block of 256 for every 256 (no loop): the block scheduler keeps
      // the SMs full (2026-11-29: 0.99 of cudaMemcpy on rows that start on 256 bytes).
      rows.push_back({name("rows x1, a thread a vector"), 2.0 * bytes,
                      [=](cudaStream_t s) {
                        copy_rows<1><<<unsigned(std::int64_t(kN) * kN * kC4 / 256), 256, 0, s>>>(src, dst, L);
                      },
                      true, l});
      auto tiles = [&](const char* what, auto kernel, int tiles, int chunks, int threads) {
        rows.push_back({name(what), 2.0 * bytes,
                        [=](cudaStream_t s) {
                          kernel<<<dim3(tiles, chunks), threads, 0, s>>>(src, dst, L, kN / chunks);
                        },
                        true, l});
      };
      tiles("tiles 128x32 x4, 64 tiles x 8 chunks of 256", copy_tiles<32, 4>, 64, 8, 256);
      if (!lays[l].all) continue;
      tiles("tiles 256x32 x4, 32 tiles x 16 chunks of 256", copy_tiles<64, 4>, 32, 16, 256);
      tiles("tiles 512x32 x4, 16 tiles x 32 chunks of 256", copy_tiles<128, 4>, 16, 32, 256);
      tiles("tiles 128x32 x2, 64 tiles x 2 chunks of 512 (strata's grid)", copy_tiles<32, 2>, 64, 2, 512);
      tiles("tiles 512x32 x2, 16 tiles x 8 chunks of 512", copy_tiles<128, 2>, 16, 8, 512);
    }
  }
  rows.push_back({"reads alone (x4, 4x256/SM)", double(bytes),
                  [=](cudaStream_t s) { read_only<4><<<sms * 4, 256, 0, s>>>(in4, std::int64_t(n4), sink); }, false});
  rows.push_back({"writes alone (plain, 4x256/SM)", double(bytes),
                  [=](cudaStream_t s) { write_only<Hint::none><<<sms * 4, 256, 0, s>>>(out4, std::int64_t(n4)); }, false});
  rows.push_back({"writes alone (.cs, 4x256/SM)", double(bytes),
                  [=](cudaStream_t s) { write_only<Hint::stream><<<sms * 4, 256, 0, s>>>(out4, std::int64_t(n4)); }, false});
  rows.push_back({"cudaMemset (writes alone)", double(bytes),
                  [=](cudaStream_t s) { CHECK(cudaMemsetAsync(out, 0, bytes, s)); }, false});

  // Each copy checked bit for bit first (a kernel that moves the wrong bytes is not timed).
  std::vector<float> want(bytes / 4), got(bytes / 4);
  CHECK(cudaMemcpy(want.data(), in, bytes, cudaMemcpyDeviceToHost));
  std::vector<float> fwant, fgot;
  if (fin) {
    fwant.resize(std::size_t(most4) * 4);
    fgot.resize(fwant.size());
    CHECK(cudaMemcpy(fwant.data(), fin, fwant.size() * 4, cudaMemcpyDeviceToHost));
  }
  for (Row& r : rows) {
    if (!r.copies) continue;
    if (r.layout >= 0) {  // a layout: its interior rows
      const Layout L = lays[r.layout].L;
      CHECK(cudaMemsetAsync(fout, 0xff, std::size_t(most4) * 16, st));
      r.run(st);
      CHECK(cudaStreamSynchronize(st));
      CHECK(cudaGetLastError());
      CHECK(cudaMemcpy(fgot.data(), fout, fgot.size() * 4, cudaMemcpyDeviceToHost));
      for (int z = 0; z < kN; ++z)
        for (int y = 0; y < kN; ++y) {
          const std::size_t at = std::size_t(L.at(0, y, z)) * 4;
          if (std::memcmp(fwant.data() + at, fgot.data() + at, std::size_t(kN) * 4) != 0) {
            std::fprintf(stderr, "%s: wrong bytes in row y %d z %d\n", r.name.c_str(), y, z);
            return 1;
          }
        }
      continue;
    }
    CHECK(cudaMemsetAsync(out, 0xff, bytes, st));
    r.run(st);
    CHECK(cudaStreamSynchronize(st));
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(got.data(), out, bytes, cudaMemcpyDeviceToHost));
    if (std::memcmp(want.data(), got.data(), bytes) != 0) {
      std::fprintf(stderr, "%s: wrong bytes\n", r.name.c_str());
      return 1;
    }
  }
  cudaEvent_t a, b;
  CHECK(cudaEventCreate(&a));
  CHECK(cudaEventCreate(&b));
  for (Row& r : rows) r.run(st);  // warm-up
  const int rounds = 15;
  for (int round = 0; round < rounds; ++round)
    for (std::size_t j = 0; j < rows.size(); ++j) {
      Row& r = rows[(j + std::size_t(round)) % rows.size()];
      CHECK(cudaEventRecord(a, st));
      r.run(st);
      CHECK(cudaEventRecord(b, st));
      CHECK(cudaEventSynchronize(b));
      CHECK(cudaGetLastError());
      float ms = 0;
      CHECK(cudaEventElapsedTime(&ms, a, b));
      r.ms.push_back(ms);
    }
  auto median = [](std::vector<float> v) {
    std::sort(v.begin(), v.end());
    return double(v[v.size() / 2]);
  };
  const double memcpy_gbs = rows[0].moved_bytes / median(rows[0].ms) * 1e-6;
  std::printf("%s, %d SMs, %zu MiB a field; GB/s counts bytes read + written; median of %d\n", prop.name, sms, mib,
              rounds);
  std::printf("%-44s %10s %9s %12s\n", "variant", "ms", "GB/s", "of memcpy");
  std::FILE* j = json ? std::fopen(json, "w") : nullptr;
  if (j) std::fprintf(j, "{\"gpu\": \"%s\", \"sms\": %d, \"mib\": %zu, \"rows\": [\n", prop.name, sms, mib);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const Row& r = rows[i];
    const double ms = median(r.ms), gbs = r.moved_bytes / ms * 1e-6;
    std::printf("%-44s %10.4f %9.1f %12.3f\n", r.name.c_str(), ms, gbs, gbs / memcpy_gbs);
    if (j)
      std::fprintf(j, "  {\"variant\": \"%s\", \"median_ms\": %.5f, \"gb_per_s\": %.1f, \"of_memcpy\": %.4f}%s\n",
                   r.name.c_str(), ms, gbs, gbs / memcpy_gbs, i + 1 < rows.size() ? "," : "");
  }
  if (j) std::fprintf(j, "]}\n"), std::fclose(j);
  return 0;
}

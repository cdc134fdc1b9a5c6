// strata-lab stencil: the 7-point stencil in fp32 from one thread per point to strata's TMA
// engine, the steps of Krotkiewski & Dabrowski (002) in between: 2.5D blocking with one XY
// plane in shared memory, the register queue in z, the 32x6 -> 48x4 two-instruction halo
// load, software prefetching. Every variant reads the same padded strata Field (ghost 1,
// Neumann), is checked on every interior point against a host double reference, and is
// reported as a ratio to strata's 2.5D copy kernel (the paper's copycube) of the same run.
#include <cuda_runtime.h>

#include <algorithm>
#include <cfloat>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "cuda/stencil/registry.hpp"
#include "lab/cuda_lab.cuh"
#include "strata/apply.hpp"
#include "strata/field.hpp"
#include "strata/stencil.hpp"

namespace strata::lab {

namespace {

// ---- per-point maths and grid geometry (device) -------------------------------------

struct Coeffs {
  float c0, c1;  // out = c0*u + c1*(sum of the six face neighbours)
};

// Where points live, relative to the interior origin of either field (both fields share
// one Layout): (x, y, z) -> z*plane + y*pitch + x. Offsets inside a plane fit in int (the
// host checks); plane offsets are 64-bit.
struct Shape {
  std::int64_t plane;
  int pitch;
  int nx, ny, nz;
};

__device__ __forceinline__ float seven_point(Coeffs c, float u, float xm, float xp, float ym,
                                             float yp, float zm, float zp) {
  return c.c0 * u + c.c1 * (((xm + xp) + (ym + yp)) + (zm + zp));
}

// The register queue in z, from the input plane's point of view (002, Figure 1): plane k,
// staged in shared memory, finishes output k-1 (its z+1 term) and starts output k. Only one
// partial sum and one centre value are carried between planes; nothing is re-read.
struct ZQueue {
  float part = 0.f;   // output k-1 without its z+1 neighbour
  float below = 0.f;  // centre value of plane k-1
  // s: this thread's centre in the staged plane, rows W floats apart. Returns output k-1.
  template <int W>
  __device__ __forceinline__ float push(const float* s, Coeffs c) {
    const float u = s[0];
    const float done = part + c.c1 * u;
    part = c.c0 * u + c.c1 * (((s[-1] + s[1]) + (s[-W] + s[W])) + below);
    below = u;
    return done;
  }
};

// Variants 2-5 use the paper's block: 32 x 6 threads, one output column per thread.
constexpr int kTX = 32, kTY = 6, kThreads = kTX * kTY;
// The paper's tile for that block: 8 floats (one 32-byte sector) of x halo on each side,
// one row of y halo above and below: 48 x 8 = 384 = 2 * 192 values.
constexpr int kHX = 8, kW = kTX + 2 * kHX, kRows = kTY + 2;
static_assert(kW * kRows == 2 * kThreads, "the tile with its halo is exactly two loads per thread");

// ---- 1: naive 3D --------------------------------------------------------------------

// One thread per point, a 3D grid of 3D blocks; all seven values from global memory.
__global__ void __launch_bounds__(256)
    naive_3d(const float* __restrict__ in, float* __restrict__ out, Shape g, Coeffs c) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  const int z = blockIdx.z * blockDim.z + threadIdx.z;
  if (x >= g.nx || y >= g.ny || z >= g.nz) return;
  const std::int64_t i = z * g.plane + y * g.pitch + x;
  out[i] = seven_point(c, in[i], in[i - 1], in[i + 1], in[i - g.pitch], in[i + g.pitch],
                       in[i - g.plane], in[i + g.plane]);
}

// ---- the 32x6 tile with branches (variants 2 and 3) ---------------------------------

// Precomputed in-plane offsets of what one thread stages, the straightforward way (002,
// Figure 2): its own point, and the x or y halo value if it sits on the tile's edge. Loads
// are clamped into the ghost layer (x <= nx, y <= ny), so threads past a partial tile's
// edge stay inside the allocation and still reach every barrier; what they stage only feeds
// outputs that are never stored.
struct BranchyTile {
  int centre;
  int xh_col = -1, xh_off = 0;  // tile column and source of the x halo (-1: none)
  int yh_row = -1, yh_off = 0;  // tile row and source of the y halo (-1: none)

  __device__ BranchyTile(const Shape& g, int tx, int ty, int x, int y) {
    const int cx = min(x, g.nx), cy = min(y, g.ny);
    centre = cy * g.pitch + cx;
    if (tx == 0) xh_col = 0, xh_off = cy * g.pitch + x - 1;  // x0 - 1 >= -1
    if (tx == kTX - 1) xh_col = kTX + 1, xh_off = cy * g.pitch + min(x + 1, g.nx);
    if (ty == 0) yh_row = 0, yh_off = (y - 1) * g.pitch + cx;  // y0 - 1 >= -1
    if (ty == kTY - 1) yh_row = kTY + 1, yh_off = min(y + 1, g.ny) * g.pitch + cx;
  }
  // 1 load for every thread, then up to 2 more for the edge threads (divergent).
  __device__ __forceinline__ void stage(float (&tile)[kRows][kTX + 2], const float* p, int tx,
                                        int ty) const {
    tile[ty + 1][tx + 1] = p[centre];
    if (xh_col >= 0) tile[ty + 1][xh_col] = p[xh_off];
    if (yh_row >= 0) tile[yh_row][tx + 1] = p[yh_off];
  }
};

// ---- 2: 2.5D, one XY plane in shared memory, z neighbours from global ---------------

// The block marches output planes z0..z1-1; its plane (tile + halo) is staged in shared
// memory, the z-1 and z+1 values are loaded from global memory for every output.
__global__ void __launch_bounds__(kThreads)
    plane_in_smem(const float* __restrict__ in, float* __restrict__ out, Shape g, Coeffs c,
                  int zchunk) {
  __shared__ float tile[kRows][kTX + 2];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int x = blockIdx.x * kTX + tx, y = blockIdx.y * kTY + ty;
  const int z0 = blockIdx.z * zchunk, z1 = min(z0 + zchunk, g.nz);
  const bool owner = x < g.nx && y < g.ny;
  const BranchyTile t(g, tx, ty, x, y);
#pragma unroll 1
  for (int z = z0; z < z1; ++z) {
    const float* p = in + z * g.plane;
    __syncthreads();  // everyone is done reading the previous plane's tile
    t.stage(tile, p, tx, ty);
    __syncthreads();
    if (owner)
      out[z * g.plane + y * g.pitch + x] = seven_point(
          c, tile[ty + 1][tx + 1], tile[ty + 1][tx], tile[ty + 1][tx + 2], tile[ty][tx + 1],
          tile[ty + 2][tx + 1], p[t.centre - g.plane], p[t.centre + g.plane]);
  }
}

// ---- 3: plus the register queue in z ------------------------------------------------

// Input planes z0-1..z1 pass through the tile once each; z neighbours come from registers.
__global__ void __launch_bounds__(kThreads)
    register_queue(const float* __restrict__ in, float* __restrict__ out, Shape g, Coeffs c,
                   int zchunk) {
  __shared__ float tile[kRows][kTX + 2];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int x = blockIdx.x * kTX + tx, y = blockIdx.y * kTY + ty;
  const int z0 = blockIdx.z * zchunk, z1 = min(z0 + zchunk, g.nz);
  const bool owner = x < g.nx && y < g.ny;
  const BranchyTile t(g, tx, ty, x, y);
  float* dst = out + y * g.pitch + x;
  ZQueue q;
#pragma unroll 1
  for (int k = z0 - 1; k <= z1; ++k) {
    __syncthreads();
    t.stage(tile, in + k * g.plane, tx, ty);
    __syncthreads();
    const float done = q.push<kTX + 2>(&tile[ty + 1][tx + 1], c);
    if (owner && k > z0) dst[(k - 1) * g.plane] = done;  // output k-1 is complete
  }
}

// ---- 4 and 5: the paper's two-instruction halo load ---------------------------------

// The 192 threads of the 32x6 block, renumbered t = 32*ty + tx and remapped as a 48x4
// block (column t % 48, row t / 48), read the 48x8 tile of one plane in two coalesced
// load instructions and no branches (002, section 5.1, Figure 3):
//   instruction 1: tile rows 0..3 = y0-1 .. y0+2 (the upper y-halo row and interior rows 0-2)
//   instruction 2: tile rows 4..7 = y0+3 .. y0+6 (interior rows 3-5 and the lower y-halo row)
// each row being columns x0-8 .. x0+39: one 32-byte sector of left halo (only x0-1 is used
// by a 7-point stencil), the 32 interior values (one 128-byte line: interior rows are
// 128-byte aligned in a strata Field), one 32-byte sector of right halo (only x0+32 used).
// The 2*6*8 x-halo values and 2*48 y-halo values are 192, as many as the interior: M = 1 in
// the paper's eq. (8), M*(2*BX + 2*(BY+2)*8) = BX*BY. Sources are clamped to x <= nx and
// y <= ny (ghosts) for partial tiles; x0-8 >= -8 stays inside the row's 32-float left pad.
struct TwoLoadTile {
  int off1, off2;  // in-plane sources of this thread's two values
  float *dst1, *dst2;

  __device__ TwoLoadTile(const Shape& g, float (&tile)[kRows][kW], int x0, int y0, int tx, int ty) {
    const int t = ty * kTX + tx;
    const int rx = t % kW, ry = t / kW;  // 0..47, 0..3
    const int gx = min(x0 - kHX + rx, g.nx);
    off1 = min(y0 - 1 + ry, g.ny) * g.pitch + gx;
    off2 = min(y0 - 1 + ry + kRows / 2, g.ny) * g.pitch + gx;
    dst1 = &tile[ry][rx];
    dst2 = &tile[ry + kRows / 2][rx];
  }
};

__global__ void __launch_bounds__(kThreads)
    two_load_halo(const float* __restrict__ in, float* __restrict__ out, Shape g, Coeffs c,
                  int zchunk) {
  __shared__ float tile[kRows][kW];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int x0 = blockIdx.x * kTX, y0 = blockIdx.y * kTY, x = x0 + tx, y = y0 + ty;
  const int z0 = blockIdx.z * zchunk, z1 = min(z0 + zchunk, g.nz);
  const bool owner = x < g.nx && y < g.ny;
  const TwoLoadTile t(g, tile, x0, y0, tx, ty);
  float* dst = out + y * g.pitch + x;
  ZQueue q;
#pragma unroll 1
  for (int k = z0 - 1; k <= z1; ++k) {
    const float* p = in + k * g.plane;
    __syncthreads();
    *t.dst1 = p[t.off1];
    *t.dst2 = p[t.off2];
    __syncthreads();
    const float done = q.push<kW>(&tile[ty + 1][tx + kHX], c);
    if (owner && k > z0) dst[(k - 1) * g.plane] = done;
  }
}

// 5: the same, with plane k+1's two values requested before plane k is computed (002,
// section 5.2): they travel while this thread computes and waits at the barrier, and are
// written to the tile only once everyone is done with plane k.
__global__ void __launch_bounds__(kThreads)
    two_load_prefetch(const float* __restrict__ in, float* __restrict__ out, Shape g, Coeffs c,
                      int zchunk) {
  __shared__ float tile[kRows][kW];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int x0 = blockIdx.x * kTX, y0 = blockIdx.y * kTY, x = x0 + tx, y = y0 + ty;
  const int z0 = blockIdx.z * zchunk, z1 = min(z0 + zchunk, g.nz);
  const bool owner = x < g.nx && y < g.ny;
  const TwoLoadTile t(g, tile, x0, y0, tx, ty);
  float* dst = out + y * g.pitch + x;
  const float* p = in + (z0 - 1) * g.plane;
  float next1 = p[t.off1], next2 = p[t.off2];
  ZQueue q;
#pragma unroll 1
  for (int k = z0 - 1; k <= z1; ++k) {
    __syncthreads();  // everyone is done reading plane k-1
    *t.dst1 = next1;
    *t.dst2 = next2;
    if (k < z1) {  // block-uniform: the loads of plane k+1 are issued, not waited for
      p += g.plane;
      next1 = p[t.off1];
      next2 = p[t.off2];
    }
    __syncthreads();
    const float done = q.push<kW>(&tile[ty + 1][tx + kHX], c);
    if (owner && k > z0) dst[(k - 1) * g.plane] = done;
  }
}

// ---- host: data, checks, launches ---------------------------------------------------

// A deterministic value in [-1, 1) per interior point: never all zeros, no structure a
// swapped index could hide behind.
float hashed(std::uint64_t i) {
  std::uint64_t x = (i + 1) * 0x9E3779B97F4A7C15ull;
  x ^= x >> 30, x *= 0xBF58476D1CE4E5B9ull, x ^= x >> 27, x *= 0x94D049BB133111EBull, x ^= x >> 31;
  return float(double(x >> 11) * 0x1.0p-52 - 1.0);
}

// fp32 rounding bound for a sum of 7 products, relative to the summed magnitude.
constexpr double kTolerance = 7 * double(FLT_EPSILON);

std::string sci(double v) {
  std::ostringstream s;
  s.precision(2);
  s << std::scientific << v;
  return s.str();
}

struct Check {
  bool ok = false;
  std::string text;
};

// Every interior point of got against c0*u + c1*(six neighbours) in double on the same
// padded input: |got - ref| <= 7 eps(fp32) * sum |c_i u_i|. NaN (the poison) never passes.
Check check_stencil(const Field<float>& in, const Field<float>& got, double c0, double c1) {
  const Layout& L = in.layout();
  const std::ptrdiff_t P = L.pitch, Z = L.plane;
  double worst = -1;  // worst |got - ref| / sum|c*u| (NaN counts as infinite)
  std::size_t bad = 0;
  int wx = -1, wy = -1, wz = -1;
  double wgot = 0, wref = 0;
  for (int z = 0; z < L.n.nz; ++z)
    for (int y = 0; y < L.n.ny; ++y) {
      const float* u = in.data() + L.index(0, y, z);
      const float* o = got.data() + L.index(0, y, z);
      for (int x = 0; x < L.n.nx; ++x) {
        const double n[6] = {u[x - 1], u[x + 1], u[x - P], u[x + P], u[x - Z], u[x + Z]};
        double sum = 0, mag = 0;
        for (double v : n) sum += v, mag += std::fabs(v);
        const double ref = c0 * u[x] + c1 * sum;
        mag = std::fabs(c0 * u[x]) + std::fabs(c1) * mag;
        double rel = std::fabs(double(o[x]) - ref) / std::max(mag, double(FLT_MIN));
        if (std::isnan(rel)) rel = std::numeric_limits<double>::infinity();
        if (!(rel <= kTolerance)) ++bad;
        if (rel > worst) worst = rel, wx = x, wy = y, wz = z, wgot = o[x], wref = ref;
      }
    }
  if (bad == 0)
    return {true, "max rel err " + sci(worst) + " <= " + sci(kTolerance) + " (of sum|c*u|)"};
  std::ostringstream s;
  s << "FAILED: " << bad << " of " << L.n.points() << " points; worst at (" << wx << "," << wy
    << "," << wz << "): got " << wgot << ", expected " << wref;
  return {false, s.str()};
}

// The copy kernel's output: the interior, bit for bit.
Check check_copy(const Field<float>& in, const Field<float>& got) {
  const Layout& L = in.layout();
  for (int z = 0; z < L.n.nz; ++z)
    for (int y = 0; y < L.n.ny; ++y)
      if (std::memcmp(in.data() + L.index(0, y, z), got.data() + L.index(0, y, z),
                      std::size_t(L.n.nx) * sizeof(float)) != 0) {
        std::ostringstream s;
        s << "FAILED: interior row (y=" << y << ", z=" << z << ") differs";
        return {false, s.str()};
      }
  return {true, "exact"};
}

// cudaMemcpy's output: the first n floats of the allocation, bit for bit.
Check check_prefix(const Field<float>& in, const Field<float>& got, std::size_t n) {
  if (std::memcmp(in.data(), got.data(), n * sizeof(float)) == 0) return {true, "exact"};
  return {false, "FAILED: the copied bytes differ"};
}

struct KernelFacts {
  int regs = 0, blocks_per_sm = 0;
};

template <class Kernel>
KernelFacts facts_of(Kernel* kernel, int threads) {
  cudaFuncAttributes attr{};
  STRATA_CUDA_CHECK(cudaFuncGetAttributes(&attr, kernel));
  KernelFacts f;
  f.regs = attr.numRegs;
  STRATA_CUDA_CHECK(
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(&f.blocks_per_sm, kernel, threads, 0));
  return f;
}

// Planes per block for the 2.5D variants. More z chunks give the SMs more blocks to even
// out, but each chunk streams 2 extra input planes; pick the count with the fewest planes
// on the busiest SM (whole waves of resident blocks), chunks at least 8 planes long (at
// most 20% re-read). strata's engine has its own model (choose_zchunks).
int z_chunk_length(std::int64_t tiles, int nz, std::int64_t resident) {
  constexpr int kMinPlanes = 8;
  int best_len = nz;
  double best_cost = std::numeric_limits<double>::infinity();
  for (int chunks = 1; chunks <= nz; ++chunks) {
    const int len = (nz + chunks - 1) / chunks;
    if (chunks > 1 && len < kMinPlanes) break;
    if (chunks > 1 && (chunks - 1) * len >= nz) continue;  // same split as fewer chunks
    const std::int64_t blocks = tiles * ((nz + len - 1) / len);
    const double cost = double((blocks + resident - 1) / resident) * (len + 2);
    if (cost < best_cost * 0.999) best_cost = cost, best_len = len;
  }
  return best_len;
}

int multiprocessors() {
  int dev = 0, sms = 0;
  STRATA_CUDA_CHECK(cudaGetDevice(&dev));
  STRATA_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  return sms;
}

// The paper's figures (002, Tesla C2050, 144 GB/s peak, fp32, Gpts/s averaged over
// 192^3..512^3), for the rows that have a comparable kernel there.
constexpr double kSeedCopycube = 13.3, kSeedBandwidthTest = 95.8 / 8, kSeedFdtd3d = 6.7,
                 kSeedCopyHaloPointer = 8.5, kSeed7pt = 12.3;

struct Step {
  const char* name;
  const char* why;  // what this step changes in bytes, load instructions, occupancy, caches
};

const Step kSteps[] = {
    {"1 naive 3D",
     "one thread per point, 7 load instructions per point: x+-1 share the centre's lines and "
     "y+-1 rows the block already touched (L1 hits), z+-1 are a plane (~1.2 MB at 512^2) "
     "away and come from L2; DRAM stays near 8 B/pt while L2 holds the planes around the "
     "resident blocks, so the limit is L1/L2 requests and latency, not DRAM"},
    {"2 2.5D plane in smem",
     "32x6 block marches a z chunk with its XY plane + halo in shared memory: 1 coalesced "
     "load per thread, plus conditional halo loads by the edge threads (002's Figure 2; "
     "each x-halo value is its own 32-byte sector, in a divergent branch); z-1 and z+1 "
     "still from global (L1/L2 hits): 3 loads per point plus the halo"},
    {"3 + z register queue",
     "each input plane is staged once and the z neighbours come from registers (one "
     "partial sum and one centre value carried, 002's input-plane view): 1 load per point "
     "plus the conditional halo, 2 fewer L1/L2 requests per point than 2"},
    {"4 + 2-load halo (48x4)",
     "the 32x6 block remapped as 48x4 reads the 48x8 tile (32-float rows with one 32-byte "
     "sector each side, both y-halo rows) in 2 coalesced loads per thread and no branches; "
     "384 values read for 192 outputs (002's BpP 12 nominal), the extra 4 B/pt for L1/L2 "
     "to absorb (002 measured 8.6 B/pt effective on the C2050 with texture fetches)"},
    {"5 + prefetch",
     "plane k+1's two values are requested before plane k is computed, so they are in "
     "flight across the compute and both barriers instead of only between them: more "
     "bytes in flight per SM (Little's law: ~3.3 TB/s x ~0.6-0.8 us = 2-2.7 MB, 15-20 KB "
     "per SM; 10 blocks x 192 threads x 2 x 4 B = 15 KB per plane step)"},
    {"6 strata engine",
     "strata's own kernel through the public apply_interior, the tile tuning chose for this "
     "GPU (strata info; the H100's: src/cuda/tuning/stencil_policy.hpp): one thread issues "
     "a TMA box per plane (no per-thread load instructions), 128-wide rows with 16-byte x "
     "halos (tma-128x64: a 136x66 box for 128x64 outputs, 1.10x read where 4 and 5 read "
     "2x), 8 rows per thread, a ring of planes in flight on mbarriers, z chunks by "
     "choose_zchunks"},
};

// One grid size: the copy references and the ladder, each checked, then timed. The first
// size also writes the per-step notes and the copy's reference line of the plot.
void run_size(const Options& opt, const Extent n, Report& r) {
  const bool first_size = r.rows.empty();
  const Stencil s = Stencil::laplacian(2, 0.8);  // c0 = -9.375, c1 = 1.5625: c1 != 1
  const double c0 = s.coeffs()[0], c1 = s.coeffs()[1];
  const Coeffs cf{float(c0), float(c1)};
  const std::string label = n.nx == n.ny && n.ny == n.nz ? std::to_string(n.nx) + "^3" : n.str();
  const std::string size = label + " f32";
  const double points = double(n.points());
  const int ghost = 1;

  progress(opt, "stencil " + label + ": input (Neumann ghosts) and its host copy");
  Field<float> hin(n, ghost), hout(n, ghost);
  const Layout& L = hin.layout();
  require(L.plane < INT_MAX && L.xoff >= kHX,
          "lab stencil: a plane of " + n.str() + " is too large for int offsets");
  for (int z = 0; z < n.nz; ++z)
    for (int y = 0; y < n.ny; ++y)
      for (int x = 0; x < n.nx; ++x)
        hin(x, y, z) = hashed((std::uint64_t(z) * n.ny + y) * n.nx + x);
  Field<float> din(n, ghost, Memory::device), dout(n, ghost, Memory::device);
  copy(hin, din);
  fill_ghosts(din, Boundary::neumann(), ghost);
  STRATA_CUDA_CHECK(cudaDeviceSynchronize());
  copy(din, hin);  // the reference reads exactly what the kernels read

  const Shape g{std::int64_t(L.plane), int(L.pitch), n.nx, n.ny, n.nz};
  const float* in0 = din.origin();
  float* out0 = dout.origin();

  // Poison, run once, check; time only what passed.
  auto measure = [&](const std::string& variant, auto launch, auto check) {
    Row row;
    row.variant = variant;
    row.size = size;
    STRATA_CUDA_CHECK(cudaMemset(dout.data(), 0xFF, L.bytes()));  // every float NaN
    launch();
    STRATA_CUDA_CHECK(cudaDeviceSynchronize());
    copy(dout, hout);
    const Check c = check();
    row.validated = c.ok;
    row.check = c.text;
    if (c.ok) {
      set_times(row, bench::time_launches(launch, opt.warmup, opt.reps, nullptr));
      row.value = points / (row.median_ms * 1e-3) / 1e9;
    }
    return row;
  };

  // References: strata's copy kernel (the engine with radius 0) and cudaMemcpy of as many
  // bytes (the first nx*ny*nz floats of the allocation).
  progress(opt, "stencil " + label + ": strata copy and cudaMemcpy");
  const auto& copy_impl = cuda::chosen_impl<float>("copy");
  const Row copy_row = measure(
      "strata copy (" + copy_impl.variant + ")",
      [&] { copy_impl.launch(&s, din, dout, nullptr, 0, {}); },
      [&] { return check_copy(hin, hout); });
  const std::size_t bytes = n.points() * sizeof(float);
  const Row memcpy_row = measure(
      "cudaMemcpy",
      [&] {
        STRATA_CUDA_CHECK(
            cudaMemcpyAsync(dout.data(), din.data(), bytes, cudaMemcpyDeviceToDevice, nullptr));
      },
      [&] { return check_prefix(hin, hout, n.points()); });

  // The ladder: 1 naive, 2-5 the paper's steps on 32x6 blocks, 6 strata's engine.
  auto check7 = [&] { return check_stencil(hin, hout, c0, c1); };
  const int sms = multiprocessors();
  const std::int64_t tiles = std::int64_t((n.nx + kTX - 1) / kTX) * ((n.ny + kTY - 1) / kTY);
  std::vector<Row> ladder;
  std::vector<KernelFacts> facts;
  std::vector<int> planes_per_block;

  progress(opt, "stencil " + label + ": " + kSteps[0].name);
  {
    const dim3 block(32, 4, 2), grid((n.nx + 31) / 32, (n.ny + 3) / 4, (n.nz + 1) / 2);
    facts.push_back(facts_of(naive_3d, 256));
    planes_per_block.push_back(0);
    ladder.push_back(measure(
        kSteps[0].name,
        [=] {
          naive_3d<<<grid, block, 0, nullptr>>>(in0, out0, g, cf);
          STRATA_CUDA_CHECK_LAUNCH();
        },
        check7));
  }
  decltype(&plane_in_smem) kernels_25d[] = {plane_in_smem, register_queue, two_load_halo,
                                            two_load_prefetch};
  for (int v = 0; v < 4; ++v) {
    progress(opt, "stencil " + label + ": " + kSteps[v + 1].name);
    const auto kernel = kernels_25d[v];
    facts.push_back(facts_of(kernel, kThreads));
    const int len = z_chunk_length(tiles, n.nz, std::int64_t(facts.back().blocks_per_sm) * sms);
    planes_per_block.push_back(len);
    const dim3 grid((n.nx + kTX - 1) / kTX, (n.ny + kTY - 1) / kTY, (n.nz + len - 1) / len);
    ladder.push_back(measure(
        kSteps[v + 1].name,
        [=] {
          kernel<<<grid, dim3(kTX, kTY), 0, nullptr>>>(in0, out0, g, cf, len);
          STRATA_CUDA_CHECK_LAUNCH();
        },
        check7));
  }
  progress(opt, "stencil " + label + ": " + kSteps[5].name);
  const auto& engine = cuda::chosen_impl<float>("7pt");  // what apply_interior runs
  ladder.push_back(measure(
      std::string(kSteps[5].name) + " (" + engine.variant + ")",
      [&] { apply_interior(s, din, dout, Stream{}); }, check7));

  // Columns, in this order on every size: ratio to cudaMemcpy, the paper's effective
  // footprint, the seed's figure (where it has one), then step / cumulative speedups and
  // what each kernel costs.
  const double copy_rate = copy_row.validated ? copy_row.value : 0;
  const double memcpy_rate = memcpy_row.validated ? memcpy_row.value : 0;
  auto ratios = [&](Row row, double seed) {
    if (row.validated && copy_rate > 0) row.ratio = row.value / copy_rate;
    row.extra["/ cudaMemcpy"] = row.validated && memcpy_rate > 0 ? row.value / memcpy_rate : 0.0;
    row.extra["B/pt eff"] = row.validated && row.value > 0 ? 8.0 * copy_rate / row.value : 0.0;
    if (seed > 0) row.extra["seed C2050 Gpts/s"] = seed;
    return row;
  };
  const double seeds[] = {0, 0, kSeedFdtd3d, kSeedCopyHaloPointer, kSeed7pt, 0};
  r.rows.push_back(ratios(copy_row, kSeedCopycube));
  r.rows.push_back(ratios(memcpy_row, kSeedBandwidthTest));
  const std::size_t first = r.rows.size();
  for (std::size_t i = 0; i < ladder.size(); ++i) r.rows.push_back(ratios(ladder[i], seeds[i]));
  ladder_speedups(r, first, r.rows.size());
  for (std::size_t i = 0; i < facts.size(); ++i) {
    Row& row = r.rows[first + i];
    row.extra["regs"] = facts[i].regs;
    row.extra["blocks/SM"] = facts[i].blocks_per_sm;
    if (planes_per_block[i] > 0) row.extra["planes/block"] = planes_per_block[i];
  }

  // The plot: each variant's ratio to the copy, one series per size; copy and cudaMemcpy dashed.
  nlohmann::ordered_json series = {{"label", size},
                                   {"x", nlohmann::ordered_json::array()},
                                   {"y", nlohmann::ordered_json::array()}};
  for (std::size_t i = first; i < r.rows.size(); ++i) {
    series["x"].push_back(r.rows[i].variant);
    series["y"].push_back(r.rows[i].validated ? r.rows[i].ratio : 0.0);
  }
  r.plot.series.push_back(series);
  std::ostringstream line;
  line.precision(3);
  if (first_size && copy_rate > 0) {
    line << "strata copy = 1 (" << copy_rate << " Gpts/s at " << label << ")";
    r.plot.references.push_back({{"label", line.str()}, {"y", 1.0}});
  }
  if (copy_rate > 0 && memcpy_rate > 0) {
    line.str("");
    line << "cudaMemcpy, " << label << " (" << memcpy_rate << " Gpts/s)";
    r.plot.references.push_back({{"label", line.str()}, {"y", memcpy_rate / copy_rate}});
  }

  // One note per step with the first size's figures (the default 512^3).
  if (!first_size) return;
  for (std::size_t i = 0; i < ladder.size(); ++i) {
    const Row& row = r.rows[first + i];
    line.str("");
    line << row.variant << " [" << label << ": ";
    if (row.validated && i == 0)
      line << row.value << " Gpts/s, " << row.ratio << " of copy]: ";
    else if (row.validated)
      line << row.value << " Gpts/s, " << row.ratio << " of copy, "
           << row.extra["step"].get<double>() << "x the step before]: ";
    else
      line << "failed its check]: ";
    line << kSteps[i].why << ".";
    r.notes.push_back(line.str());
  }
}

}  // namespace

Report run_stencil(const Options& opt) {
  Report r = begin_report("stencil",
                          "7-point stencil, fp32: naive 3D -> 2.5D -> register queue -> 002's 2-load halo -> "
                          "prefetch -> strata TMA",
                          "Gpts/s", "strata copy");

  std::vector<Extent> shapes;
  if (!opt.sizes.empty())
    for (std::int64_t s : opt.sizes) shapes.push_back({int(s), int(s), int(s)});
  else if (opt.small)
    shapes = {{67, 45, 37}, {130, 33, 17}};  // partial tiles in x, y and z chunks
  else
    shapes = {{512, 512, 512}};

  const Stencil s = Stencil::laplacian(2, 0.8);
  r.notes = {
      "Input: one strata Field per size, fp32, ghost 1 filled by strata::fill_ghosts (Neumann) "
      "on the device; every variant reads it and writes the interior of a second Field "
      "poisoned with NaN first. Stencil::laplacian(2, h = 0.8): " +
          s.describe() +
          ". Check: "
          "every interior point against a host double reference, |got - ref| <= 7 eps(fp32) * "
          "sum |c_i u_i|.",
      "Ratio: Gpts/s over strata's 2.5D copy kernel (chosen_impl<float>(\"copy\"), the paper's "
      "copycube, 8 B/pt) of the same run; / cudaMemcpy: over cudaMemcpyAsync of the same "
      "nx*ny*nz*4 bytes; B/pt eff = 8 * copy / rate, the paper's BpP_eff (the footprint a "
      "variant behaves as if it had).",
      "Seed (002, Tesla C2050, 144 GB/s peak, fp32, Gpts/s averaged over 192^3..512^3): "
      "copycube 13.3; bandwidthTest 95.8 GB/s = 12.0 at 8 B/pt; FDTD3d 7pt 6.7 (2.5D + "
      "register queue + branchy halo, like 3); copycube_halo 8.5 through global pointers, 12.4 "
      "through textures (the 2-load read alone, like 4 without arithmetic); the paper's 7pt "
      "12.3 = 0.92 of copycube (2-load halo + prefetch + texture fetches, like 5). C1060: "
      "copycube 9.2, 7pt 7.2.",
      "H100 80GB HBM3, 512^3 fp32 (measured for this project, docs/performance.md): device copy 369 Gpts/s, "
      "torch.compile 7pt 259 (0.70), PyTorch eager 32; docs/performance.md: strata copy 346, "
      "strata 7pt 321 (0.927).",
  };

  for (const Extent& n : shapes) run_size(opt, n, r);

  r.notes.push_back(
      "Where strata uses each idea: 2.5D blocking, one input plane feeding 2R+1 output planes "
      "kept in registers: src/cuda/kernels/stencil_25d.cuh (acc[NQ][VY]) with the per-point "
      "maths in src/cuda/kernels/stencil_ops.cuh (StarOp::plane); the halo load's aim (few, "
      "coalesced, branch-free loads of tile + halo) done by the TMA unit: tma_load_3d in "
      "src/cuda/kernels/async_copy.cuh, box geometry with a 16-byte x halo in PlaneGeometry "
      "(src/cuda/stencil/config.hpp), the per-thread form as Loader::cpasync; prefetching as a "
      "STAGES-deep ring of planes (load(i + S - 1) before computing plane i, "
      "stencil_25d.cuh); z chunks: choose_zchunks in src/cuda/stencil/launch.cuh; tiles per "
      "family: src/cuda/tuning/stencil_policy.hpp; copycube / copycube_halo: CopyOp / "
      "CopyHaloOp (stencil_ops.cuh, src/cuda/stencil/copy.cu), ratio_to_copy in "
      "bench/stencils_cuda.cu.");

  r.plot.kind = "bars";
  r.plot.title = "7-point stencil fp32: each step as a ratio to strata's copy kernel";
  r.plot.xlabel = "variant";
  r.plot.ylabel = "Gpts/s over strata copy (same run)";
  r.extra["stencil"] = s.describe();
  r.extra["ghost"] = 1;
  r.extra["tolerance"] = "7 eps(fp32) * sum|c_i u_i| per point";
  return r;
}

}  // namespace strata::lab

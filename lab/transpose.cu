// strata-lab transpose: B = A^T out of place in fp32, the seed's three kernels (003: naive,
// coalesced through a shared tile, conflict-free padded tile) and two that move 16-byte
// vectors both ways, beside cuBLAS geam; each checked bitwise against the CPU's transpose
// and timed against cudaMemcpy of the same bytes in the same run.
#include <cublas_v2.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "lab/cuda_lab.cuh"
#include "lab/rotating.cuh"
#include "lab/transpose_kernels.cuh"

namespace strata::lab {

namespace {

namespace tk = transpose_kernels;

// Variant 5's shape: warps of 8 x 4 blocks of 4x4, 8 x 32 of them per block of 256 threads,
// two blocks per thread (a 128 x 32 tile of A, 8 independent 16-byte loads per thread).
// Chosen by design; lab/dev/sweep.cu times the alternatives (not yet run: lab/dev/README.md).
constexpr int kRegBx = 8, kRegBy = 32, kRegRows = 2;
using Reg = tk::RegisterShape<kRegBx, kRegBy, kRegRows>;

struct Shape {
  int rows, cols;  // of A; B is cols x rows
};

struct Rung {
  const char* name;
  double seed_gbps;  // the seed's table (003, "my laptop"; its copy: 159.57 GB/s)
};
constexpr double kSeedCopy = 159.57;
constexpr Rung kRungs[] = {
    {"1 naive (strided writes)", 35.17},
    {"2 coalesced, 32x32 tile", 65.53},
    {"3 conflict-free, 32x33 tile", 164.70},
    {"4 float4, swizzled 64x64 tile", 0},
    {"5 float4, 4x4 in registers", 0},
    {"6 cuBLAS geam (library)", 0},
};

void cublas_check(cublasStatus_t s, const char* what) {
  if (s != CUBLAS_STATUS_SUCCESS) throw Error(std::string("lab transpose: ") + what + " failed (cuBLAS status " + std::to_string(int(s)) + ")");
}

struct Cublas {
  cublasHandle_t h = nullptr;
  Cublas() { cublas_check(cublasCreate(&h), "cublasCreate"); }
  ~Cublas() { cublasDestroy(h); }
  Cublas(const Cublas&) = delete;
  Cublas& operator=(const Cublas&) = delete;
};

dim3 grid_for(int cols_covered, int rows_covered, const Shape& s) {
  const unsigned gx = unsigned((s.cols + cols_covered - 1) / cols_covered);
  const unsigned gy = unsigned((s.rows + rows_covered - 1) / rows_covered);
  require(gy <= 65535, "lab transpose: too many rows for the grid's y dimension");
  return dim3(gx, gy);
}

// Bitwise comparison of B with the CPU's transpose: "exact" or what differs, and where.
std::string compare(const std::vector<float>& got, const std::vector<float>& want, const Shape& s) {
  std::size_t bad = 0, first = 0;
  for (std::size_t i = 0; i < want.size(); ++i)
    if (std::memcmp(&got[i], &want[i], sizeof(float)) != 0 && bad++ == 0) first = i;
  if (bad == 0) return "exact";
  return "FAILED: " + std::to_string(bad) + " of " + std::to_string(want.size()) + " values differ, first B[" +
         std::to_string(first / std::size_t(s.rows)) + "][" + std::to_string(first % std::size_t(s.rows)) + "]";
}

void run_shape(const Options& opt, const Shape& s, Cublas& blas, Report& report, std::vector<std::string>& memcpy_notes) {
  const std::size_t n = std::size_t(s.rows) * s.cols, bytes = n * sizeof(float);
  const int sets = rotation_sets(2 * bytes);
  const std::string label = s.rows == s.cols ? std::to_string(s.rows) + "^2 f32"
                                             : std::to_string(s.rows) + "x" + std::to_string(s.cols) + " f32";
  progress(opt, "transpose " + label + " (" + std::to_string(sets) + " rotating copies)");

  std::vector<DeviceBuffer<float>> a, b;
  for (int k = 0; k < sets; ++k) {
    a.emplace_back(n);
    b.emplace_back(n);
  }
  bench::fill_device_random(a[0].get(), n, 0x5eed + n, nullptr);
  for (int k = 1; k < sets; ++k)
    STRATA_CUDA_CHECK(cudaMemcpy(a[k].get(), a[0].get(), bytes, cudaMemcpyDeviceToDevice));
  std::vector<float> host(n), want(n), got(n);
  a[0].download(host.data());
  constexpr int kBlock = 64;  // the CPU transpose in tiles, so neither side strides through memory
  for (int r0 = 0; r0 < s.rows; r0 += kBlock)
    for (int c0 = 0; c0 < s.cols; c0 += kBlock)
      for (int r = r0; r < std::min(r0 + kBlock, s.rows); ++r)
        for (int c = c0; c < std::min(c0 + kBlock, s.cols); ++c)
          want[std::size_t(c) * s.rows + r] = host[std::size_t(r) * s.cols + c];

  const double memcpy_rw = gbps(2.0 * bytes, time_memcpy_rotating(bytes, opt).median_ms);
  const bool vec = s.rows % 4 == 0 && s.cols % 4 == 0;  // every row of A and B 16-byte aligned

  const dim3 tile_grid = grid_for(tk::kTile, tk::kTile, s), tile_block(tk::kTile, tk::kBlockRows);
  const dim3 swz_grid = grid_for(tk::kSwizzleTile, tk::kSwizzleTile, s);
  const dim3 reg_grid = grid_for(Reg::tile_cols, Reg::tile_rows, s);
  const float one = 1.f, zero = 0.f;
  auto launch = [&](int v, const float* in, float* out) {
    switch (v) {
      case 1: tk::naive<<<tile_grid, tile_block>>>(in, out, s.rows, s.cols); break;
      case 2: tk::tiled<0><<<tile_grid, tile_block>>>(in, out, s.rows, s.cols); break;
      case 3: tk::tiled<1><<<tile_grid, tile_block>>>(in, out, s.rows, s.cols); break;
      case 4:
        (vec ? tk::swizzled_tile<true> : tk::swizzled_tile<false>)<<<swz_grid, tk::kSwizzleThreads>>>(in, out, s.rows, s.cols);
        break;
      case 5:
        (vec ? tk::register_blocks<kRegBx, kRegBy, kRegRows, true> : tk::register_blocks<kRegBx, kRegBy, kRegRows, false>)<<<reg_grid, Reg::threads>>>(
            in, out, s.rows, s.cols);
        break;
      case 6:
        // Column-major view: A is cols x rows (lda = cols), C = op(A) = A^T is rows x cols
        // (ldc = rows), which is B row-major. beta = 0; B's operand is A's memory read as a
        // rows x cols matrix, finite, in case geam reads it.
        cublas_check(cublasSgeam(blas.h, CUBLAS_OP_T, CUBLAS_OP_N, s.rows, s.cols, &one, in, s.cols, &zero, in, s.rows,
                                 out, s.rows),
                     "cublasSgeam");
        return;
      default: throw Error("lab transpose: no variant " + std::to_string(v));
    }
    STRATA_CUDA_CHECK_LAUNCH();
  };

  const std::size_t first = report.rows.size();
  for (int v = 1; v <= 6; ++v) {
    Row row;
    row.variant = kRungs[v - 1].name;
    row.size = label;
    row.extra["step"] = 0.0;
    row.extra["cumulative"] = 0.0;
    STRATA_CUDA_CHECK(cudaMemset(b[0].get(), 0xff, bytes));  // NaN everywhere: unwritten values fail
    launch(v, a[0].get(), b[0].get());
    STRATA_CUDA_CHECK(cudaDeviceSynchronize());
    b[0].download(got.data());
    row.check = compare(got, want, s);
    row.validated = row.check == "exact";
    int k = 0;
    const bench::Timing t = bench::time_launches(
        [&] {
          const int i = k++ % sets;
          launch(v, a[i].get(), b[i].get());
        },
        opt.warmup, opt.reps, nullptr);
    set_times(row, t);
    row.value = gbps(2.0 * bytes, row.median_ms);
    row.ratio = memcpy_rw > 0 ? row.value / memcpy_rw : 0;
    if (v == 4 || v == 5) row.extra["accesses"] = vec ? "16 B" : "4 B (a side not a multiple of 4)";
    if (kRungs[v - 1].seed_gbps > 0) {
      row.extra["seed GB/s"] = kRungs[v - 1].seed_gbps;
      row.extra["seed / copy"] = kRungs[v - 1].seed_gbps / kSeedCopy;
    }
    report.rows.push_back(std::move(row));
  }
  ladder_speedups(report, first, report.rows.size());
  report.plot.series.push_back(bar_series(report, label, first, report.rows.size()));
  report.plot.references.push_back(
      {{"label", "cudaMemcpy " + label + " " + std::to_string(int(memcpy_rw + 0.5)) + " GB/s"}, {"y", memcpy_rw}});
  memcpy_notes.push_back("cudaMemcpy of " + label + " (" + std::to_string(bytes) + " B, " + std::to_string(sets) +
                         " rotating copies): " + std::to_string(int(memcpy_rw + 0.5)) + " GB/s read+write");
}

}  // namespace

Report run_transpose(const Options& opt) {
  Report r = begin_report("transpose",
                          "B = A^T out of place, fp32: the seed's three kernels, two 16-byte designs, cuBLAS",
                          "GB/s", "cudaMemcpy");
  r.plot.kind = "bars";
  r.plot.xlabel = "variant";
  r.plot.ylabel = "GB/s (read + write bytes / time)";

  std::vector<Shape> shapes;
  for (std::int64_t n : opt.sizes) {
    require(n <= 65536, "lab transpose: --size is the edge N of an N x N matrix, at most 65536");
    shapes.push_back({int(n), int(n)});
  }
  if (shapes.empty())
    shapes = opt.small ? std::vector<Shape>{{1000, 1000}, {517, 517}, {1000, 777}, {776, 1000}, {3, 5}}
                       : std::vector<Shape>{{16384, 16384}};
  Cublas blas;
  std::vector<std::string> memcpy_notes;
  for (const Shape& s : shapes) run_shape(opt, s, blas, r, memcpy_notes);

  r.notes = {
      "A is rows x cols fp32 from a hash (distinct random values), B = A^T is cols x rows; each variant's B is compared "
      "bit for bit with the CPU's transpose, after B was filled with NaN bytes (an unwritten value fails).",
      "GB/s counts read + write bytes (2 x rows x cols x 4); '/ cudaMemcpy' divides by cudaMemcpy's GB/s for the same "
      "bytes, read + write, measured in the same run (target for the best: >= 0.92).",
      "1-3 are the seed's kernels with its 32 x 32 tile and 32 x 8 threads (4 values per thread), bounds-checked so any "
      "shape runs: 1 reads rows and writes columns, 2 stages a tile in shared memory (a tile column is one bank: 32-way "
      "conflicts on the read-out), 3 pads the tile to 33 columns.",
      "4: a 64 x 64 tile in shared memory in 16-byte cells. Threads load 4x4 blocks with four 16-byte loads (256 "
      "contiguous bytes per warp load), transpose them in registers, store four cells XOR-swizzled by B's row / 4 so both "
      "shared-memory sides are conflict-free, and write B with 16-byte stores (256 contiguous bytes per warp store).",
      "5: no shared memory: each thread loads two 4x4 blocks (8 independent 16-byte loads), transposes them in registers "
      "and stores 16-byte rows; a warp is 8 x 4 blocks, so each warp load reads 4 rows x 128 B and each store writes "
      "8 rows x 64 B, whole 32-byte sectors both ways.",
      "4 and 5 use 16-byte accesses when rows and cols are multiples of 4 (every row 16-byte aligned); otherwise the "
      "same blocks with 4-byte accesses ('accesses').",
      "6 is cublasSgeam(op(A) = A^T, beta = 0), the library call a CUDA user would pick.",
      "torch (x.t().contiguous()) on 16384^2 fp32 ran at 950 GB/s on this project's H100, 0.32 of its 2952 GB/s "
      "device-to-device copy (stencils.md).",
      "seed GB/s: the seed's table (003, 'my laptop', no size given): copy 159.57, shared-memory copy 168.69 GB/s; "
      "'seed / copy' is against that copy.",
      "Sizes below 3 x L2 (A and B together) are timed over rotating copies, the memcpy reference too.",
  };
  for (const std::string& m : memcpy_notes) r.notes.push_back(m);
  return r;
}

}  // namespace strata::lab

// Device code of `strata-lab transpose` (lab/transpose.cu): B = A^T out of place, A rows x
// cols row-major, B cols x rows. 1-3 are the seed's (003: naive, coalesced through a shared
// tile, the tile padded by one column), bounds-checked for any shape; 4 and 5 move 16-byte
// vectors both ways, each thread transposing 4x4 blocks in registers.
#pragma once

#include <cstddef>

namespace strata::lab::transpose_kernels {

// The seed's tile: 32 x 32 values, blocks of 32 x 8 threads, 4 values per thread.
inline constexpr int kTile = 32;
inline constexpr int kBlockRows = 8;

// 1: the seed's transposeNaive: reads along A's rows (coalesced), writes down B's columns
// (a warp's 32 stores land in 32 different rows).
__global__ void __launch_bounds__(kTile * kBlockRows) naive(const float* __restrict__ a, float* __restrict__ b, int rows, int cols) {
  const int x = blockIdx.x * kTile + threadIdx.x, y = blockIdx.y * kTile + threadIdx.y;
  if (x >= cols) return;
  for (int j = 0; j < kTile; j += kBlockRows)
    if (y + j < rows) b[std::size_t(x) * rows + (y + j)] = a[std::size_t(y + j) * cols + x];
}

// 2 (kPad 0) and 3 (kPad 1): the tile is read along A's rows and written along B's rows;
// the transpose happens in shared memory. Without padding a tile column lies in one bank
// (32-way conflicts when it is read); one extra column spreads it over all 32 banks.
template <int kPad>
__global__ void __launch_bounds__(kTile * kBlockRows) tiled(const float* __restrict__ a, float* __restrict__ b, int rows, int cols) {
  __shared__ float tile[kTile][kTile + kPad];
  int x = blockIdx.x * kTile + threadIdx.x, y = blockIdx.y * kTile + threadIdx.y;
  if (x < cols)
    for (int j = 0; j < kTile; j += kBlockRows)
      if (y + j < rows) tile[threadIdx.y + j][threadIdx.x] = a[std::size_t(y + j) * cols + x];
  __syncthreads();
  x = blockIdx.y * kTile + threadIdx.x;  // a column of B is a row of A
  y = blockIdx.x * kTile + threadIdx.y;
  if (x < rows)
    for (int j = 0; j < kTile; j += kBlockRows)
      if (y + j < cols) b[std::size_t(y + j) * rows + x] = tile[threadIdx.x][threadIdx.y + j];
}

// ------------------------------------------------------------------ 4x4 register blocks

// The 4x4 block with rows r0..r0+3 and columns c0..c0+3 of a (rows x cols) as four float4
// rows. kVec: 16-byte loads (cols % 4 == 0, so every row starts 16-byte aligned); else
// scalars, each checked against the bounds (outside: 0, never stored).
template <bool kVec>
__device__ __forceinline__ void load_block(const float* __restrict__ a, int rows, int cols, int r0, int c0, float4 (&v)[4]) {
#pragma unroll
  for (int q = 0; q < 4; ++q) {
    const float* p = a + std::size_t(r0 + q) * cols + c0;
    if constexpr (kVec) {
      v[q] = *reinterpret_cast<const float4*>(p);
    } else {
      const bool row = r0 + q < rows;
      v[q].x = row && c0 + 0 < cols ? p[0] : 0.f;
      v[q].y = row && c0 + 1 < cols ? p[1] : 0.f;
      v[q].z = row && c0 + 2 < cols ? p[2] : 0.f;
      v[q].w = row && c0 + 3 < cols ? p[3] : 0.f;
    }
  }
}

// Writes float4 row v (columns c0..c0+3 of row r) of a (rows x cols) matrix.
template <bool kVec>
__device__ __forceinline__ void store_row(float* __restrict__ b, int rows, int cols, int r, int c0, const float4& v) {
  if (r >= rows) return;
  float* p = b + std::size_t(r) * cols + c0;
  if constexpr (kVec) {
    *reinterpret_cast<float4*>(p) = v;
  } else {
    if (c0 + 0 < cols) p[0] = v.x;
    if (c0 + 1 < cols) p[1] = v.y;
    if (c0 + 2 < cols) p[2] = v.z;
    if (c0 + 3 < cols) p[3] = v.w;
  }
}

// In-register transpose of four float4 rows (pure renaming: no instructions in SASS).
__device__ __forceinline__ void transpose4(float4 (&v)[4]) {
  const float4 c0 = make_float4(v[0].x, v[1].x, v[2].x, v[3].x);
  const float4 c1 = make_float4(v[0].y, v[1].y, v[2].y, v[3].y);
  const float4 c2 = make_float4(v[0].z, v[1].z, v[2].z, v[3].z);
  const float4 c3 = make_float4(v[0].w, v[1].w, v[2].w, v[3].w);
  v[0] = c0, v[1] = c1, v[2] = c2, v[3] = c3;
}

// 4: a 64 x 64 tile through shared memory in 16-byte cells. Each thread loads 4x4 blocks
// (a warp: 16 blocks along a row, so 256 contiguous bytes per load instruction), transposes
// them in registers and stores the four rows as cells; then each warp writes two rows of B
// of 64 values each, 256 contiguous bytes per store instruction. Cells of B's row `row`
// are XOR-swizzled by (row / 4) % 8, so the 8 threads of each quarter-warp phase of a
// 16-byte shared access hit 8 different 16-byte bank groups on both sides.
inline constexpr int kSwizzleTile = 64;
inline constexpr int kSwizzleThreads = 256;

template <bool kVec>
__global__ void __launch_bounds__(kSwizzleThreads) swizzled_tile(const float* __restrict__ a, float* __restrict__ b, int rows, int cols) {
  constexpr int kCells = kSwizzleTile / 4;  // 16 cells per tile row: 4x4 blocks per direction
  __shared__ float4 cell[kSwizzleTile][kCells];  // [row of B in the tile][cell along it]
  const int r0 = blockIdx.y * kSwizzleTile, c0 = blockIdx.x * kSwizzleTile;
  for (int k = threadIdx.x; k < kCells * kCells; k += kSwizzleThreads) {
    const int bc = k % kCells, br = k / kCells;  // block column (fastest), block row
    const int r = r0 + 4 * br, c = c0 + 4 * bc;
    if (r >= rows || c >= cols) continue;
    float4 v[4];
    load_block<kVec>(a, rows, cols, r, c, v);
    transpose4(v);  // v[q]: column c + q of A = row c + q of B, values of rows r..r+3
#pragma unroll
    for (int q = 0; q < 4; ++q) cell[4 * bc + q][br ^ (bc % 8)] = v[q];
  }
  __syncthreads();
  for (int k = threadIdx.x; k < kSwizzleTile * kCells; k += kSwizzleThreads) {
    const int br = k % kCells, row = k / kCells;  // cell along B's row (fastest), row of B
    const int r = r0 + 4 * br, c = c0 + row;
    if (r >= rows || c >= cols) continue;
    store_row<kVec>(b, cols, rows, c, r, cell[row][br ^ ((row / 4) % 8)]);
  }
}

// 5: no shared memory at all. A warp is 8 block columns x 4 block rows: each of its four
// loads reads 4 rows of A x 128 contiguous bytes, each of its four stores writes 8 rows of
// B x 64 contiguous bytes (two whole 32-byte sectors). A block of kBx x kBy threads covers
// kBx block columns and kBy * kRows block rows; kRows blocks per thread are all loaded
// before the first store (16 * kRows independent 16-byte loads in flight per thread).
template <int kBx, int kBy, int kRows>
struct RegisterShape {
  static_assert(kBx % 8 == 0 && (kBx * kBy) % 32 == 0 && kBy % 4 == 0, "warps of 8 x 4 blocks");
  static constexpr int threads = kBx * kBy;
  static constexpr int tile_cols = 4 * kBx;          // values of A per block, along a row
  static constexpr int tile_rows = 4 * kBy * kRows;  // along a column
};

template <int kBx, int kBy, int kRows, bool kVec>
__global__ void __launch_bounds__(kBx * kBy) register_blocks(const float* __restrict__ a, float* __restrict__ b, int rows, int cols) {
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const int bc = blockIdx.x * kBx + (warp % (kBx / 8)) * 8 + lane % 8;
  const int br0 = blockIdx.y * (kBy * kRows) + (warp / (kBx / 8)) * 4 + lane / 8;
  const int c = 4 * bc;
  if (c >= cols) return;
  float4 v[kRows][4];
#pragma unroll
  for (int k = 0; k < kRows; ++k) {
    const int r = 4 * (br0 + k * kBy);
    if (r < rows) load_block<kVec>(a, rows, cols, r, c, v[k]);
  }
#pragma unroll
  for (int k = 0; k < kRows; ++k) {
    const int r = 4 * (br0 + k * kBy);
    if (r >= rows) continue;
    transpose4(v[k]);
#pragma unroll
    for (int q = 0; q < 4; ++q) store_row<kVec>(b, cols, rows, c + q, r, v[k][q]);
  }
}

}  // namespace strata::lab::transpose_kernels

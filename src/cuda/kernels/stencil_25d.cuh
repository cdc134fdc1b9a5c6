// The 2.5D stencil kernel (Krotkiewski & Dabrowski), carried to Hopper: a block owns a
// TX x TY tile of the XY plane and a chunk of z; it streams input planes (tile + halo)
// through a STAGES-deep ring in shared memory, filled by TMA or cp.async, and keeps the
// partial sums of the 2R+1 output planes each input plane touches in registers.
#pragma once

#include <cuda.h>

#include <concepts>
#include <cstdint>
#include <type_traits>

#include "cuda/kernels/async_copy.cuh"
#include "cuda/stencil/config.hpp"

namespace strata::cuda::kernels {

// What is stored at an output point. The kernel hands the epilogue the stencil value s, the
// input's centre value u at that point (when needs_centre: kept in a register queue, since
// the plane left shared memory R planes ago) and the point's offset from the output's
// interior origin, which also indexes auxiliary fields laid out like the output. Fused
// passes (Jacobi sweeps, residuals, leapfrog updates) are epilogues; a plain pass stores s.
template <class T>
struct StoreEpilogue {
  static constexpr bool needs_centre = false;
  __device__ __forceinline__ T operator()(T s, T, std::int64_t) const { return s; }
};

template <class A>
struct StoreEpilogueAux {
  using Aux = A;
};

// An epilogue that reads auxiliary fields can expose them as a prefetch: `Aux load(off)`
// and `operator()(s, u, aux, off)`. The kernel then loads the next output plane's values
// one plane ahead, so their latency overlaps the current plane's work instead of stalling
// every store (measured: fused passes at ~55% of copy bandwidth without it).
template <class Epi>
concept PrefetchingEpilogue = requires(const Epi& e, std::int64_t off) {
  typename Epi::Aux;
  { e.load(off) } -> std::same_as<typename Epi::Aux>;
};

// A prefetching epilogue may also fetch its streams into L2 `kAhead` output planes beyond
// the register prefetch (`touch(off)`): more bytes in flight at no register cost, for memory
// whose latency one plane of work does not cover.
template <class Epi>
constexpr int l2_ahead() {
  if constexpr (requires { Epi::kAhead; })
    return Epi::kAhead;
  else
    return 0;
}

template <class Op, class Epi = StoreEpilogue<typename Op::value_type>>
struct StencilArgs {
  using T = typename Op::value_type;
  CUtensorMap in_map;           // TMA loader: the input allocation as a 3D tensor
  const T* in;                  // allocation base of the input
  T* out;                       // interior origin (0,0,0) of the output
  std::int64_t in_pitch, in_plane;
  std::int64_t out_pitch, out_plane;
  int in_xoff, in_yoff, in_zoff;  // the input's interior origin in the loader's coordinates
  int in_rows;                  // rows per plane in the input allocation (ny + 2*ghost)
  int rx, ry, rz;               // interior coordinates of the region's first output point
  int nx, ny, nz;               // the region's extent
  int tiles_x;                  // tiles along x; blockIdx.x = tile_y * tiles_x + tile_x
  int zchunk;                   // output planes per block along z
  Op op;
  Epi epi;
};

template <class Op, class Cfg, class Epi = StoreEpilogue<typename Op::value_type>>
__global__ void __launch_bounds__(Cfg::THREADS)
    stencil_25d(const __grid_constant__ StencilArgs<Op, Epi> a) {
  using T = typename Op::value_type;
  constexpr int R = Op::radius;
  using G = PlaneGeometry<T, R, Cfg>;
  constexpr int TX = Cfg::TX, VY = Cfg::VY, S = Cfg::STAGES, W = G::W;
  constexpr int NQ = 2 * R + 1;  // output planes one input plane reaches

  extern __shared__ __align__(128) unsigned char smem[];
  __shared__ std::uint64_t full[S];

  const int tile_x = blockIdx.x % a.tiles_x, tile_y = blockIdx.x / a.tiles_x;
  const int x0 = tile_x * TX, y0 = tile_y * Cfg::TY;
  const int z0 = blockIdx.y * a.zchunk;
  const int z1 = min(z0 + a.zchunk, a.nz);
  if (z0 >= z1) return;
  const int planes = (z1 - z0) + 2 * R;  // input planes z0-R .. z1-1+R

  // Allocation coordinates of the box's first element in input plane i: the box starts
  // HX elements left of the tile (16B aligned) and R rows above it.
  const int bx = a.in_xoff + a.rx + x0 - G::HX;
  const int by = a.in_yoff + a.ry + y0 - R;
  const int bz = a.in_zoff + a.rz + z0 - R;

  auto slot = [&](int i) { return reinterpret_cast<T*>(smem + (i % S) * G::SLOT_BYTES); };

  // Issues the copy of input plane i into its slot. The caller guarantees the slot is free.
  auto load = [&](int i) {
    if constexpr (Cfg::loader == Loader::tma) {
      if (threadIdx.x == 0 && i < planes) {
        mbar_arrive_expect_tx(&full[i % S], Cfg::NSUB * G::BOX_BYTES);
#pragma unroll
        for (int sub = 0; sub < Cfg::NSUB; ++sub)
          tma_load_3d(slot(i) + sub * G::SUB_ELEMS, &a.in_map, &full[i % S],
                      bx + sub * Cfg::SUBX, by, bz + i);
      }
    } else {
      if (i < planes) {
        constexpr int CPR = W / G::VEC;  // 16-byte chunks per row of a sub-slot
        constexpr int PER_SUB = G::ROWS * CPR;
        const T* plane_base = a.in + std::int64_t(bz + i) * a.in_plane;
        T* dst = slot(i);
        for (int c = threadIdx.x; c < Cfg::NSUB * PER_SUB; c += Cfg::THREADS) {
          const int sub = c / PER_SUB, r = (c % PER_SUB) / CPR;
          const int e = (c % CPR) * G::VEC, gx = bx + sub * Cfg::SUBX + e;
          // Rows past the allocation's plane and chunks past the row pitch only feed
          // outputs that are never stored (partial tiles): skip them.
          if (by + r < a.in_rows && gx < a.in_pitch)
            cp_async_16(dst + sub * G::SUB_ELEMS + r * W + e,
                        plane_base + std::int64_t(by + r) * a.in_pitch + gx);
        }
      }
      cp_async_commit();  // one group per plane, empty or not, keeps the wait count fixed
    }
  };
  auto wait = [&](int i) {
    if constexpr (Cfg::loader == Loader::tma)
      mbar_wait(&full[i % S], (i / S) & 1);
    else
      cp_async_wait<S - 2>();  // groups after plane i: planes i+1 .. i+S-2
  };

  if constexpr (Cfg::loader == Loader::tma) {
    if (threadIdx.x == 0) {
      tma_prefetch_descriptor(&a.in_map);
#pragma unroll
      for (int s = 0; s < S; ++s) mbar_init(&full[s], 1);
      mbar_fence_init();
    }
    __syncthreads();
  }

  const int tx = threadIdx.x % TX;
  const int ly = (threadIdx.x / TX) * VY;  // first output row of this thread in the tile
  const int x = x0 + tx, y = y0 + ly;
  // The thread's first output in a slot: its sub-tile, then row and column inside it.
  const int smem_offset = (tx / Cfg::SUBX) * G::SUB_ELEMS + (ly + R) * W + G::HX + tx % Cfg::SUBX;
  int rows_valid = x < a.nx ? min(VY, a.ny - y) : 0;  // outputs this thread may store

  T acc[NQ][VY];
#pragma unroll
  for (int j = 0; j < NQ; ++j)
#pragma unroll
    for (int v = 0; v < VY; ++v) acc[j][v] = T(0);
  // Centre values of the last R+1 planes (only when the epilogue reads them).
  constexpr int NC = Epi::needs_centre ? R + 1 : 1;
  T centre[NC][VY];
  // Auxiliary values of the output plane stored this iteration (cur) and the next (nxt).
  constexpr bool kPrefetch = PrefetchingEpilogue<Epi>;
  struct NoAux {};
  using Aux = typename std::conditional_t<kPrefetch, Epi, StoreEpilogueAux<NoAux>>::Aux;
  Aux cur[VY], nxt[VY];
  auto prefetch = [&](Aux (&dst)[VY], int i_out) {  // output plane of iteration i_out
    if constexpr (kPrefetch) {
      const std::int64_t base = std::int64_t(a.rz + z0 + i_out - 2 * R) * a.out_plane +
                                std::int64_t(a.ry + y) * a.out_pitch + a.rx + x;
#pragma unroll
      for (int v = 0; v < VY; ++v)
        if (v < rows_valid) dst[v] = a.epi.load(base + v * a.out_pitch);
    }
  };
  if constexpr (kPrefetch && R == 0) prefetch(cur, 0);

#pragma unroll 1
  for (int i = 0; i < S - 1; ++i) load(i);

#pragma unroll 1
  for (int i = 0; i < planes; ++i) {
    wait(i);
    __syncthreads();  // plane i visible to all; everyone is done with plane i-1's slot
    load(i + S - 1);  // into plane i-1's slot
    if (i + 1 >= 2 * R && i + 1 < planes) prefetch(nxt, i + 1);
    if constexpr (l2_ahead<Epi>() > 0) {
      const int ia = i + 1 + l2_ahead<Epi>();
      if (ia >= 2 * R && ia < planes) {
        const std::int64_t base = std::int64_t(a.rz + z0 + ia - 2 * R) * a.out_plane +
                                  std::int64_t(a.ry + y) * a.out_pitch + a.rx + x;
#pragma unroll
        for (int v = 0; v < VY; ++v)
          if (v < rows_valid) a.epi.touch(base + v * a.out_pitch);
      }
    }

    a.op.template plane<VY, W>(slot(i) + smem_offset, acc);
    if constexpr (Epi::needs_centre) {
#pragma unroll
      for (int v = 0; v < VY; ++v) centre[R][v] = slot(i)[smem_offset + v * W];
    }

    if (i >= 2 * R) {  // output plane z0 + i - 2R has seen all its input planes
      const std::int64_t base = std::int64_t(a.rz + z0 + i - 2 * R) * a.out_plane +
                                std::int64_t(a.ry + y) * a.out_pitch + a.rx + x;
#pragma unroll
      for (int v = 0; v < VY; ++v)
        if (v < rows_valid) {
          const std::int64_t off = base + v * a.out_pitch;
          T value;
          if constexpr (kPrefetch)
            value = a.epi(acc[0][v], centre[0][v], cur[v], off);
          else
            value = a.epi(acc[0][v], centre[0][v], off);
          if constexpr (Cfg::STREAM_STORES)
            __stcs(a.out + off, value);
          else
            a.out[off] = value;
        }
    }
    if constexpr (Epi::needs_centre) {
#pragma unroll
      for (int k = 0; k < R; ++k)
#pragma unroll
        for (int v = 0; v < VY; ++v) centre[k][v] = centre[k + 1][v];
    }
    if constexpr (kPrefetch) {
#pragma unroll
      for (int v = 0; v < VY; ++v) cur[v] = nxt[v];
    }
#pragma unroll
    for (int j = 0; j < NQ - 1; ++j)
#pragma unroll
      for (int v = 0; v < VY; ++v) acc[j][v] = acc[j + 1][v];
#pragma unroll
    for (int v = 0; v < VY; ++v) acc[NQ - 1][v] = T(0);
  }
}

}  // namespace strata::cuda::kernels

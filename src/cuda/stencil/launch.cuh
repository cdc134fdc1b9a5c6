// Host side of one 2.5D kernel instantiation: fills its arguments, sizes the grid so every
// block is resident at once where the grid allows, and launches it. Included by the .cu
// files that instantiate kernels; the kernel body is in kernels/stencil_25d.cuh.
#pragma once

#include <algorithm>
#include <mutex>

#include "cuda/check.hpp"
#include "cuda/kernels/stencil_25d.cuh"
#include "cuda/tensor_map.hpp"
#include "strata/field.hpp"

namespace strata::cuda {

// Per-device facts a launcher needs on every call, computed once per kernel and device.
struct LaunchFacts {
  int sms = 0, blocks_per_sm = 0;
};

template <auto KernelFn, int Threads, int Smem>
LaunchFacts launch_facts() {
  constexpr int kMaxDevices = 64;
  static std::mutex m;
  static LaunchFacts facts[kMaxDevices];
  int dev = 0;
  STRATA_CUDA_CHECK(cudaGetDevice(&dev));
  std::lock_guard<std::mutex> lock(m);
  auto& f = facts[dev % kMaxDevices];
  if (f.sms == 0) {
    STRATA_CUDA_CHECK(cudaFuncSetAttribute(KernelFn, cudaFuncAttributeMaxDynamicSharedMemorySize, Smem));
    STRATA_CUDA_CHECK(cudaDeviceGetAttribute(&f.sms, cudaDevAttrMultiProcessorCount, dev));
    STRATA_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&f.blocks_per_sm, KernelFn, Threads, Smem));
    if (f.blocks_per_sm < 1)
      throw Error("stencil kernel cannot be resident on this device (shared memory " +
                  std::to_string(Smem) + " bytes per block)");
  }
  return f;
}

// Number of z chunks. Splitting z adds blocks, to give every SM work, but each chunk
// re-reads 2R halo planes and refills its pipeline. Model (fitted to H100 runs, see
// docs/performance.md): time is the larger of the total work over the whole memory system
// and the busiest SM's work at the most one SM can draw, ~1.33x its fair share of
// bandwidth (one resident block already holds enough bytes in flight to reach that).
inline int choose_zchunks(int tiles, int nz, int radius, int sms, int stages) {
  constexpr double kSmHeadroom = 1.33;
  int best = 1;
  double best_cost = 1e300;
  for (int chunks = 1; chunks <= nz; ++chunks) {
    const int len = (nz + chunks - 1) / chunks;
    if (chunks > 1 && (chunks - 1) * len >= nz) continue;  // same split as a smaller count
    const std::int64_t blocks = std::int64_t(tiles) * chunks;
    const double work = len + 2 * radius + stages;  // planes streamed per block
    const double busiest = double((blocks + sms - 1) / sms) * work / kSmHeadroom;
    const double total = double(blocks) * work / sms;
    const double cost = std::max(busiest, total);
    if (cost < best_cost * 0.999) best_cost = cost, best = chunks;
  }
  return best;
}

// Launches out = epi(op(in), ...) on the interior, or on a region of it. Auxiliary fields
// an epilogue reads must share the output's layout (it indexes them with the output offset
// from the interior origin, whatever the region). `zero_ghosts` (TMA loaders only): the
// input is read as +0 beyond its interior, its ghost layers neither read nor needed (the
// tensor map covers the interior alone, and the kernel's coordinates become the interior's);
// `real_yz` keeps the ghost layers of y (bit 0) and z (bit 1) in the tensor map, read as
// they are: a distributed box's exchanged faces, its unsplit axes reading +0.
template <class Op, class Cfg, class Epi = kernels::StoreEpilogue<typename Op::value_type>>
void launch_25d(const Op& op, const typename Op::value_type* in_base, const Layout& lin,
                typename Op::value_type* out_origin, const Layout& lout, cudaStream_t stream,
                int zchunks = 0, const Epi& epi = {}, Region region = {},
                bool zero_ghosts = false, int real_yz = 0) {
  using T = typename Op::value_type;
  constexpr int R = Op::radius;
  using G = PlaneGeometry<T, R, Cfg>;
  constexpr auto kernel = &kernels::stencil_25d<Op, Cfg, Epi>;
  const LaunchFacts facts = launch_facts<kernel, Cfg::THREADS, G::SMEM_BYTES>();

  kernels::StencilArgs<Op, Epi> a{};
  require(!zero_ghosts || Cfg::loader == Loader::tma,
          "internal: a pass reading zeros beyond the interior needs a TMA loader");
  if constexpr (Cfg::loader == Loader::tma) {
    if (zero_ghosts) {
      const int gy = real_yz & 1 ? lin.ghost : 0, gz = real_yz & 2 ? lin.ghost : 0;
      a.in_map = make_box_tensor_map(in_base + lin.index(0, -gy, -gz), sizeof(T), lin.n.nx,
                                     lin.n.ny + 2 * gy, lin.n.nz + 2 * gz, lin.pitch, lin.plane,
                                     G::W, G::ROWS);
      a.in_yoff = gy, a.in_zoff = gz;
    }
    else
      a.in_map = make_plane_tensor_map(in_base, sizeof(T), lin.pitch, lin.rows, lin.planes, G::W,
                                       G::ROWS);  // one sub-tile box; NSUB are issued per plane
  }
  a.in = in_base;
  a.out = out_origin;
  a.in_pitch = lin.pitch;
  a.in_plane = lin.plane;
  a.out_pitch = lout.pitch;
  a.out_plane = lout.plane;
  if (!zero_ghosts) a.in_xoff = int(lin.xoff), a.in_yoff = lin.ghost, a.in_zoff = lin.ghost;
  a.in_rows = int(lin.rows);
  if (region.whole()) region = {0, 0, 0, lin.n.nx, lin.n.ny, lin.n.nz};
  // Both loaders start the tile's rows on 16 bytes: the cp.async loader copies 16-byte
  // chunks from the tile's left halo, and a TMA box whose first x is not on 16 bytes is an
  // illegal instruction (measured on the H100). The region must start on one.
  require(region.x0 >= 0 && region.y0 >= 0 && region.z0 >= 0 && region.nx > 0 && region.ny > 0 &&
              region.nz > 0 && region.x0 + region.nx <= lin.n.nx && region.y0 + region.ny <= lin.n.ny &&
              region.z0 + region.nz <= lin.n.nz && region.x0 * sizeof(T) % 16 == 0,
          "internal: a 2.5D launch region outside the interior or misaligned");
  a.rx = region.x0;
  a.ry = region.y0;
  a.rz = region.z0;
  a.nx = region.nx;
  a.ny = region.ny;
  a.nz = region.nz;
  a.tiles_x = (a.nx + Cfg::TX - 1) / Cfg::TX;
  const int tiles_y = (a.ny + Cfg::TY - 1) / Cfg::TY;
  const int tiles = a.tiles_x * tiles_y;
  const int chunks = zchunks > 0 ? std::min(zchunks, a.nz)
                                 : choose_zchunks(tiles, a.nz, R, facts.sms, Cfg::STAGES);
  a.zchunk = (a.nz + chunks - 1) / chunks;
  a.op = op;
  a.epi = epi;
  const dim3 grid(unsigned(tiles), unsigned((a.nz + a.zchunk - 1) / a.zchunk));
  kernel<<<grid, Cfg::THREADS, G::SMEM_BYTES, stream>>>(a);
  STRATA_CUDA_CHECK_LAUNCH();
}

}  // namespace strata::cuda

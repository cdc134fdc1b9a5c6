// Compile-time shape of a 2.5D stencil kernel: tile, rows per thread, pipeline depth and
// how planes reach shared memory. Shared by the kernel, its launcher and the policy table.
#pragma once

#include <cstddef>
#include <string>
#include "base/region.hpp"

namespace strata::cuda {

enum class Loader { tma, cpasync };

// TX x TY outputs per block; each thread owns one x column and VY consecutive rows, so the
// block has TX * TY / VY threads. STAGES planes are buffered in shared memory: the one being
// consumed and STAGES-1 in flight. STREAM_STORES marks outputs evict-first in L2, so they do
// not push out the input planes whose halos neighbouring blocks have yet to read.
// SUBX < TX splits the tile into TX/SUBX side-by-side sub-tiles, each loaded as its own box
// with its own halo (a TMA box is at most 256 wide): the halo the sub-tiles share is fetched
// at the same instant, so it is read from DRAM once.
template <Loader L, int TX_, int TY_, int VY_, int STAGES_, bool STREAM_STORES_ = false,
          int SUBX_ = TX_>
struct TileConfig {
  static constexpr Loader loader = L;
  static constexpr int TX = TX_, TY = TY_, VY = VY_, STAGES = STAGES_, SUBX = SUBX_;
  static constexpr int NSUB = TX / SUBX;
  static constexpr bool STREAM_STORES = STREAM_STORES_;
  static_assert(TX % SUBX == 0 && SUBX % 32 == 0, "sub-tiles are whole warps wide");
  static constexpr int THREADS = TX * (TY / VY);
  static_assert(TY % VY == 0, "VY must divide TY");
  static_assert(TX % 32 == 0, "TX must be a multiple of the warp size");
  static_assert(STAGES >= 2, "at least one plane in flight");
  static std::string name() {
    return std::string(L == Loader::tma ? "tma" : "cpa") + "-" +
           (NSUB > 1 ? std::to_string(NSUB) + "x" + std::to_string(SUBX) : std::to_string(TX)) + "x" +
           std::to_string(TY) + "v" + std::to_string(VY) + "s" + std::to_string(STAGES) +
           (STREAM_STORES ? "-cs" : "");
  }
};

// The part of the interior a launch writes (base/region.hpp): the solvers use it to run the
// plain fused update on the interior and a specialised kernel on a shell (the wave's
// absorbing layers), the distributed apply to compute the interior while halos travel.
using strata::Region;

// Shared-memory geometry of one plane slot for element T and radius R: NSUB sub-slots of
// ROWS x W elements (W = SUBX + 2*HX), each 128-byte aligned.
template <class T, int R, class Cfg>
struct PlaneGeometry {
  static constexpr int VEC = 16 / int(sizeof(T));  // elements per 16-byte chunk
  // x halo rounded up to 16 bytes so every smem row and global row start is 16B aligned.
  static constexpr int HX = R == 0 ? 0 : (R + VEC - 1) / VEC * VEC;
  static constexpr int W = Cfg::SUBX + 2 * HX;  // elements per smem row of a sub-slot
  static constexpr int ROWS = Cfg::TY + 2 * R;
  static constexpr int BOX_BYTES = W * ROWS * int(sizeof(T));           // one sub-tile box
  static constexpr int SUB_BYTES = (BOX_BYTES + 127) / 128 * 128;        // TMA wants 128B-aligned
  static constexpr int SUB_ELEMS = SUB_BYTES / int(sizeof(T));
  static constexpr int SLOT_BYTES = Cfg::NSUB * SUB_BYTES;
  static constexpr int SMEM_BYTES = Cfg::STAGES * SLOT_BYTES;
  static_assert(Cfg::loader != Loader::tma || (W <= 256 && ROWS <= 256),
                "a TMA box is at most 256 elements per dimension: split x with SUBX");
};

}  // namespace strata::cuda

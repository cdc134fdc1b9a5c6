// The wave solver's tile policy: the 2.5D configuration of the fused leapfrog update per
// precision and radius, and where its epilogue takes the centre value u(x) from. The update
// prefetches u_prev, (v dt / h)^2 (and u) one output plane ahead (the kernel's Aux), which
// costs registers per output row, so the thread columns are shorter (VY = 4, or 2 in fp64)
// than the plain stencils'. Every entry is spill-free in ptxas (-Xptxas=-v, sm_90); the
// radius-4 entries are the fastest of `strata bench --kernel wave` on an H100 at 512^3
// (fp32: centre in registers 0.860 of copy/16 B vs 0.845 re-read from L2; fp64: 64x16 tiles
// 0.841 vs 0.788 for 128x8); the others were chosen by registers and residency alone.
#pragma once

#include <string>
#include <type_traits>

#include "cuda/stencil/config.hpp"
#include "cuda/tuning/stencil_candidates.hpp"

namespace strata::cuda {

template <class T, int R>
struct WavePolicy;

// fp32 registers (ptxas): R1 55, R2 64, R3 74, R4 84; 1024 / 1024 / 512 / 512 threads.
template <int R>
struct WavePolicy<float, R> {
  using Cfg = std::conditional_t<R == 1, TileConfig<Loader::tma, 128, 32, 4, 2>,
                                 std::conditional_t<R == 2, TileConfig<Loader::tma, 128, 32, 4, 3>,
                                                    TileConfig<Loader::tma, 128, 16, 4, 4>>>;
  // The register queue of (R + 1) * VY centres fits at radius 1 only; beyond, the centre is
  // re-read from global memory (an L2 hit: its plane was loaded R planes earlier).
  static constexpr bool centre_in_registers = R == 1 || R == 4;
};

// fp64 registers (ptxas): R1 84, R2 125, R3 78, R4 94; 512 threads each.
template <int R>
struct WavePolicy<double, R> {
  using Cfg = std::conditional_t<R <= 2, TileConfig<Loader::tma, 128, 16, 4, 2>,
                                 std::conditional_t<R == 4, TileConfig<Loader::tma, 64, 16, 4, 3>,
                                                    TileConfig<Loader::tma, 128, 8, 2, 3>>>;
  static constexpr bool centre_in_registers = R == 1;
};

// How the update's epilogue gets its operands (kernels/wave.cuh): prefetched one plane ahead
// with the centre from the register queue or re-read from L2, or loaded at the store.
enum class WaveEpi { prefetch_reg, prefetch_l2, late };

// A variant of the update: a tile and an epilogue; its name is the tile's and the epilogue's.
// ahead > 0: the epilogue's streams are also fetched into L2 that many output planes beyond
// its register prefetch (kernels::l2_ahead), named "-a<ahead>".
template <class Cfg_, WaveEpi E, int A = 0>
struct WaveShape {
  using Cfg = Cfg_;
  static constexpr WaveEpi epi = E;
  static constexpr int ahead = A;
  static std::string name() {
    return Cfg::name() +
           (E == WaveEpi::prefetch_reg  ? "-pf-reg"
            : E == WaveEpi::prefetch_l2 ? "-pf-l2"
                                        : "-late") +
           (A > 0 ? "-a" + std::to_string(A) : "");
  }
};

template <class T, int R>
using WavePolicyShape =
    WaveShape<typename WavePolicy<T, R>::Cfg,
              WavePolicy<T, R>::centre_in_registers ? WaveEpi::prefetch_reg : WaveEpi::prefetch_l2>;

// The radius-4 update's candidates tuning chooses between (the solver's default, 8th order),
// the policy first, with their H100 ratios to copy/16 B at 512^3: fp32 8-row columns with
// prefetch 0.84, the policy's tile re-reading the centre from L2 0.845 (the policy 0.860);
// fp64 128x8 tiles of 2-row columns 0.79 (the policy 0.841), and the policy one plane deeper
// (not measured: more bytes in flight, for a faster memory). Other radii run their policy.
template <class T>
struct WaveCandidates;

template <>
struct WaveCandidates<float> {
  using radius4 = ShapeList<WavePolicyShape<float, 4>,
                            WaveShape<TileConfig<Loader::tma, 128, 16, 8, 4>, WaveEpi::prefetch_l2>,
                            WaveShape<WavePolicy<float, 4>::Cfg, WaveEpi::prefetch_l2>,
                            WaveShape<WavePolicy<float, 4>::Cfg, WaveEpi::prefetch_reg, 2>>;
};

template <>
struct WaveCandidates<double> {
  using radius4 = ShapeList<WavePolicyShape<double, 4>,
                            WaveShape<TileConfig<Loader::tma, 128, 8, 2, 3>, WaveEpi::prefetch_l2>,
                            WaveShape<TileConfig<Loader::tma, 64, 16, 4, 4>, WaveEpi::prefetch_l2>,
                            WaveShape<WavePolicy<double, 4>::Cfg, WaveEpi::prefetch_l2, 1>>;
};

// The correlating update's shape (the reversed step of a boundary-saving gradient: u_prev,
// c2, q and a double sum read, u_prev and the sum written, 36 B a point in f32 then; 28 B
// since the sum is kept in T), chosen with `strata bench --kernel wave` (rows
// wave_correlate) on an H200 at 512^3, on the region a
// 16-point CPML on five faces and a free top leave (480 x 480 x 496), as a ratio to
// cudaMemcpy: the wave policy's 512-thread tile takes 127 registers here, one block a SM, and
// 120 of them for 132 SMs, 0.79; with its epilogue's streams one plane further into L2 and z
// cut in 11, 0.86; the 256-thread 128x8 tile with the look-ahead, two blocks a SM, 0.85-0.86
// whatever the z cut from 8 to 22 chunks, so it is the policy, z cut in chunks of about
// kCorrelatingChunkPlanes planes. f64: 64x8 tiles of 2-row columns, 0.86 (the wave
// policy's tile 0.80; with the look-ahead 0.86 at 8 chunks, 0.825 at 1). The candidates
// after the policy are timed beside it, never chosen.
template <class T>
struct WaveCorrelatingCandidates;

template <>
struct WaveCorrelatingCandidates<float> {
  static constexpr Loader tma = Loader::tma;
  using P = WavePolicyShape<float, 4>;
  using policy = WaveShape<TileConfig<tma, 128, 8, 4, 4>, WaveEpi::prefetch_reg, 1>;
  using radius4 = ShapeList<policy, P, WaveShape<P::Cfg, P::epi, 1>>;
};

template <>
struct WaveCorrelatingCandidates<double> {
  static constexpr Loader tma = Loader::tma;
  using P = WavePolicyShape<double, 4>;
  using policy = WaveShape<TileConfig<tma, 64, 8, 2, 3>, WaveEpi::prefetch_l2>;
  using radius4 = ShapeList<policy, P, WaveShape<P::Cfg, P::epi, 1>>;
};

// Output planes a z chunk of the correlating update streams (its launcher's split where not
// given): the chunk's 2R + STAGES extra planes re-read only the u stream, 4 of its 36 B.
inline constexpr int kCorrelatingChunkPlanes = 64;

}  // namespace strata::cuda

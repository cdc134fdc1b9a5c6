// The launch shapes strata chooses between at run time for each stencil family and precision
// (tuning/tuner.hpp picks one per device by measurement, from the cache or from the shipped
// table). Every shape here is compiled into every CUDA build, so each list is a handful, not a
// sweep: the policy first (tuning/stencil_policy.hpp, measured on an H100), then the shapes
// that trade the levers docs/performance.md found: rows per tile (halo share), pipeline depth
// (bytes in flight, which a faster memory needs more of) and rows per thread (registers, so
// warps per SM). Plain C++: the CPU build reads the names (tests, `strata info`).
#pragma once

#include <string>
#include <vector>

#include "cuda/tuning/stencil_policy.hpp"

namespace strata::cuda {

template <class... Cfgs>
struct ShapeList {
  static std::vector<std::string> names() { return {Cfgs::name()...}; }
};

template <class T>
struct StencilCandidates;

template <>
struct StencilCandidates<float> {
  using P = StencilPolicy<float>;
  static constexpr Loader tma = Loader::tma;
  // A copy has no halo: deeper rings and wider blocks put more bytes in flight per SM.
  using copy = ShapeList<P::copy, TileConfig<tma, 128, 32, 8, 4>, TileConfig<tma, 128, 64, 8, 2>,
                         TileConfig<tma, 256, 32, 8, 3, false, 128>>;
  // 7pt, sym27, box27, copy_halo. Lab figures on the H100 (performance.md): 128x32v8s3 0.90,
  // 2x128x32v8s2 0.92 (shared x halo), the policy 0.92; 128x64v8s3 is the policy one plane
  // deeper (two blocks of 108 KB still fit an SM).
  using radius1 =
      ShapeList<P::radius1, TileConfig<tma, 128, 32, 8, 3>, TileConfig<tma, 128, 64, 8, 3>,
                TileConfig<tma, 256, 32, 8, 2, false, 128>>;
  using star2 = ShapeList<P::star2, TileConfig<tma, 128, 32, 8, 3>, TileConfig<tma, 128, 64, 8, 3>>;
  // star3, star4: 9 partial sums a row take 104 registers at 8 rows a thread (13% achieved
  // occupancy in Nsight Compute); 4 rows a thread take 64, so twice the warps per SM. One plane
  // less in flight, or a taller tile (a smaller halo share), are the other trades.
  using star34 = ShapeList<P::star34, TileConfig<tma, 128, 16, 8, 3>,
                           TileConfig<tma, 128, 16, 4, 4>, TileConfig<tma, 128, 32, 8, 3>>;
};

template <>
struct StencilCandidates<double> {
  using P = StencilPolicy<double>;
  static constexpr Loader tma = Loader::tma;
  using copy = ShapeList<P::copy, TileConfig<tma, 128, 16, 8, 4>, TileConfig<tma, 128, 32, 8, 2>,
                         TileConfig<tma, 128, 32, 8, 3>>;
  using radius1 = ShapeList<P::radius1, TileConfig<tma, 128, 16, 8, 3>,
                            TileConfig<tma, 128, 32, 8, 3>, TileConfig<tma, 128, 16, 8, 4>>;
  using star2 = ShapeList<P::star2, TileConfig<tma, 128, 16, 8, 3>, TileConfig<tma, 128, 32, 8, 3>>;
  // star3/star4 f64 hold 166/210 registers at 8 rows a thread, 90/124 at 4: more warps per SM.
  using star34 = ShapeList<P::star34, TileConfig<tma, 128, 16, 8, 4>,
                           TileConfig<tma, 128, 16, 4, 3>, TileConfig<tma, 128, 16, 4, 4>>;
};

// Calls f with the list a registry kernel takes ("7pt" -> radius1, "star3" -> star34, ...);
// false for a name that is not a stencil kernel.
template <class T, class F>
bool with_candidates(const std::string& kernel, F&& f) {
  using C = StencilCandidates<T>;
  if (kernel == "copy") return f(typename C::copy{}), true;
  if (kernel == "copy_halo" || kernel == "7pt" || kernel == "sym27" || kernel == "box27")
    return f(typename C::radius1{}), true;
  if (kernel == "star2") return f(typename C::star2{}), true;
  if (kernel == "star3" || kernel == "star4") return f(typename C::star34{}), true;
  return false;
}

}  // namespace strata::cuda

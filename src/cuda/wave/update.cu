// The fused leapfrog update, u+ = 2u - u- + c2 * Lap(u), as one instantiation of the 2.5D
// kernel per precision, radius and variant: StarOp computes Lap(u) from the streamed planes,
// LeapfrogEpilogue reads u-, c2 (and the centre) at the output offset. 16 B/point in fp32.
// Radius 4 (the solver's default order) runs the candidate tuning chose for the device.
#include <algorithm>
#include <type_traits>

#include "cuda/kernels/stencil_ops.cuh"
#include "cuda/kernels/wave.cuh"
#include "cuda/kernels/wave_imaging.cuh"
#include "cuda/stencil/launch.cuh"
#include "cuda/stencil/tuning.hpp"
#include "cuda/tuning/families.hpp"
#include "cuda/tuning/stencil_policy.hpp"
#include "cuda/tuning/wave_policy.hpp"
#include "cuda/wave/update.hpp"

namespace strata::cuda {

namespace {

template <class T, WaveEpi E, int A>
auto make_epilogue(const T* u, const T* up, const T* c2) {
  if constexpr (E == WaveEpi::late)
    return kernels::LeapfrogEpilogueLate<T>{u, up, c2};
  else
    return kernels::LeapfrogEpilogue<T, E == WaveEpi::prefetch_reg, A>{u, up, c2};
}

// The update's launch with any leapfrog epilogue (the plain one or the correlating one): the
// fields checked, the star's coefficients in the operator, one 2.5D pass on `region`.
template <class T, int R, class Cfg, class Epi>
void launch_leapfrog(std::span<const double> star, const Field<T>& u, const Field<T>& up, const Field<T>& c2,
                     Field<T>& out, void* stream, int zchunks, Region region, const Epi& epi) {
  require(star.size() == std::size_t(R) + 1, "internal: wave update of radius " + std::to_string(R) + " given " +
                                                 std::to_string(star.size()) + " coefficients");
  require(u.memory() == Memory::device && up.memory() == Memory::device && c2.memory() == Memory::device &&
              out.memory() == Memory::device,
          "internal: the wave update needs device fields");
  require(u.layout() == out.layout() && up.layout() == out.layout() && c2.layout() == out.layout(),
          "internal: the wave update's fields must share one layout");
  require(u.ghost() >= R, "internal: the wave update needs ghost width >= radius");
  require(out.data() != u.data(), "internal: the wave update cannot write over its input u");
  kernels::StarOp<T, R> op{};
  for (int r = 0; r <= R; ++r) op.c[r] = T(star[r]);
  launch_25d<kernels::StarOp<T, R>, Cfg, Epi>(op, u.data(), u.layout(), out.origin(), out.layout(),
                                              static_cast<cudaStream_t>(stream), zchunks, epi, region);
}

template <class T, int R, class Cfg, WaveEpi E, int A = 0>
void launch_update(std::span<const double> star, const Field<T>& u, const Field<T>& up,
                   const Field<T>& c2, Field<T>& out, void* stream, int zchunks, Region region) {
  const auto epi = make_epilogue<T, E, A>(u.origin(), up.origin(), c2.origin());
  launch_leapfrog<T, R, Cfg>(star, u, up, c2, out, stream, zchunks, region, epi);
}

template <class T, int R, class Shape>
void launch_correlating_shape(std::span<const double> star, const Field<T>& u, const Field<T>& up,
                              const Field<T>& c2, Field<T>& out, const T* q, T* corr, void* stream,
                              int zchunks, Region region) {
  require(q != nullptr && corr != nullptr, "internal: the correlating wave update needs its sums");
  const kernels::LeapfrogCorrelate<T, Shape::epi == WaveEpi::prefetch_reg, Shape::ahead> epi{
      u.origin(), up.origin(), c2.origin(), q, corr};
  if (zchunks == 0) {
    const int nz = region.whole() ? u.extent().nz : region.nz;
    zchunks = std::max(1, (nz + kCorrelatingChunkPlanes - 1) / kCorrelatingChunkPlanes);
  }
  launch_leapfrog<T, R, typename Shape::Cfg>(star, u, up, c2, out, stream, zchunks, region, epi);
}

// The radius-4 policy's tile at every radius (tuning/wave_policy.hpp): the lower radii's
// taller columns (VY 32 in f32) spill with the sums' extra prefetched values (ptxas: 92-192
// bytes), this one does not.
template <class T, int R>
void launch_correlating(std::span<const double> star, const Field<T>& u, const Field<T>& up,
                        const Field<T>& c2, Field<T>& out, const T* q, T* corr, void* stream,
                        Region region) {
  launch_correlating_shape<T, R, typename WaveCorrelatingCandidates<T>::policy>(star, u, up, c2, out, q, corr,
                                                                                stream, 0, region);
}

template <class T, int R>
void launch_adjoint_correlating(std::span<const double> star, const Field<T>& q, const Field<T>& qp,
                                const Field<T>& c2, Field<T>& out, const T* now, const T* prev, T* next,
                                T* corr, void* stream) {
  // The wave policy's tile at every radius (the lower radii's spill with the sums' loads).
  // Its streams fetched into L2 a plane ahead as well (kAhead 1) left the checkpointing shot
  // as it was on an H200 (10.77 / 10.75 s against 10.77 / 10.89; docs/imaging.md).
  using Shape = WavePolicyShape<T, 4>;
  require(now != nullptr && prev != nullptr && next != nullptr && corr != nullptr,
          "internal: the correlating adjoint update needs the forward fields and its sums");
  const kernels::AdjointCorrelate<T> epi{
      q.origin(), qp.origin(), c2.origin(), now, prev, next, corr};
  launch_leapfrog<T, R, typename Shape::Cfg>(star, q, qp, c2, out, stream, 0, Region{}, epi);
}

template <class T, int R, class Shape>
WaveUpdateVariant<T> variant(bool is_default, bool candidate = false) {
  return {R, Shape::name(), is_default, candidate,
          &launch_update<T, R, typename Shape::Cfg, Shape::epi, Shape::ahead>};
}

// The radius-4 candidates tuning chooses between (tuning/wave_policy.hpp), the policy first.
template <class T, class... Shapes>
void add_candidates(std::vector<WaveUpdateVariant<T>>& out, ShapeList<Shapes...>) {
  bool policy = true;
  ((out.push_back(variant<T, 4, Shapes>(policy, true)), policy = false), ...);
}

// The correlating update's radius-4 shapes (WaveCorrelatingCandidates), the one it runs first.
template <class T, class... Shapes>
std::vector<WaveCorrelatingVariant<T>> correlating_list(ShapeList<Shapes...>) {
  std::vector<WaveCorrelatingVariant<T>> out;
  bool first = true;
  ((out.push_back({Shapes::name(), first, &launch_correlating_shape<T, 4, Shapes>}), first = false), ...);
  return out;
}

}  // namespace

template <class T>
const std::vector<WaveUpdateVariant<T>>& wave_update_variants() {
  static const std::vector<WaveUpdateVariant<T>> v = [] {
    std::vector<WaveUpdateVariant<T>> out = {variant<T, 1, WavePolicyShape<T, 1>>(true),
                                             variant<T, 2, WavePolicyShape<T, 2>>(true),
                                             variant<T, 3, WavePolicyShape<T, 3>>(true)};
    add_candidates(out, typename WaveCandidates<T>::radius4{});
    // Timed by the benchmark beside them, never chosen: the stencil policy's 8-row columns
    // with the loads at the store (no prefetch; H100 fp32 0.30, fp64 0.43 of copy/16 B).
    out.push_back(
        variant<T, 4, WaveShape<typename StencilPolicy<T>::star34, WaveEpi::late>>(false));
    return out;
  }();
  return v;
}

template <class T>
const std::vector<WaveCorrelatingVariant<T>>& wave_correlating_variants() {
  static const std::vector<WaveCorrelatingVariant<T>> v =
      correlating_list<T>(typename WaveCorrelatingCandidates<T>::radius4{});
  return v;
}

template <class T>
const WaveUpdateVariant<T>& chosen_wave_update(int radius, void* stream) {
  const auto& all = wave_update_variants<T>();
  if (radius == 4)
    return chosen_variant<WaveUpdateVariant<T>>(
        tuning::family_name("wave4", precision_of<T>), stream,
        [&](const std::string& name) -> const WaveUpdateVariant<T>* {
          for (const auto& v : all)
            if (v.radius == 4 && v.candidate && v.name == name) return &v;
          return nullptr;
        });
  for (const auto& v : all)
    if (v.is_default && v.radius == radius) return v;
  throw Error("internal: no wave update of radius " + std::to_string(radius));
}

template <class T>
void wave_update(std::span<const double> star, const Field<T>& u, const Field<T>& up, const Field<T>& c2,
                 Field<T>& out, void* stream, int zchunks, Region region) {
  chosen_wave_update<T>(int(star.size()) - 1, stream)
      .launch(star, u, up, c2, out, stream, zchunks, region);
}

template <class T>
void wave_update_correlating(std::span<const double> star, const Field<T>& u, const Field<T>& up,
                             const Field<T>& c2, Field<T>& out, const T* q, T* corr, void* stream,
                             Region region) {
  switch (int(star.size()) - 1) {
    case 1: return launch_correlating<T, 1>(star, u, up, c2, out, q, corr, stream, region);
    case 2: return launch_correlating<T, 2>(star, u, up, c2, out, q, corr, stream, region);
    case 3: return launch_correlating<T, 3>(star, u, up, c2, out, q, corr, stream, region);
    case 4: return launch_correlating<T, 4>(star, u, up, c2, out, q, corr, stream, region);
    default: throw Error("internal: no correlating wave update of radius " + std::to_string(star.size() - 1));
  }
}

template <class T>
void wave_update_adjoint_correlating(std::span<const double> star, const Field<T>& q, const Field<T>& qp,
                                     const Field<T>& c2, Field<T>& out, const T* now, const T* prev, T* next,
                                     T* corr, void* stream) {
  with_radius(int(star.size()) - 1, [&](auto r) {
    launch_adjoint_correlating<T, decltype(r)::value>(star, q, qp, c2, out, now, prev, next, corr, stream);
  });
}

template const std::vector<WaveUpdateVariant<float>>& wave_update_variants();
template const std::vector<WaveUpdateVariant<double>>& wave_update_variants();
template const std::vector<WaveCorrelatingVariant<float>>& wave_correlating_variants();
template const std::vector<WaveCorrelatingVariant<double>>& wave_correlating_variants();
template const WaveUpdateVariant<float>& chosen_wave_update(int, void*);
template const WaveUpdateVariant<double>& chosen_wave_update(int, void*);
template void wave_update(std::span<const double>, const Field<float>&, const Field<float>&, const Field<float>&,
                          Field<float>&, void*, int, Region);
template void wave_update(std::span<const double>, const Field<double>&, const Field<double>&, const Field<double>&,
                          Field<double>&, void*, int, Region);
template void wave_update_correlating(std::span<const double>, const Field<float>&, const Field<float>&,
                                      const Field<float>&, Field<float>&, const float*, float*, void*, Region);
template void wave_update_correlating(std::span<const double>, const Field<double>&, const Field<double>&,
                                      const Field<double>&, Field<double>&, const double*, double*, void*, Region);

template void wave_update_adjoint_correlating(std::span<const double>, const Field<float>&, const Field<float>&,
                                              const Field<float>&, Field<float>&, const float*, const float*,
                                              float*, float*, void*);
template void wave_update_adjoint_correlating(std::span<const double>, const Field<double>&,
                                              const Field<double>&, const Field<double>&, Field<double>&,
                                              const double*, const double*, double*, double*, void*);

}  // namespace strata::cuda

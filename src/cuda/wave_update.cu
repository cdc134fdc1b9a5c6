// The fused leapfrog update, u+ = 2u - u- + c2 * Lap(u), as one instantiation of the 2.5D
// kernel per precision, radius and variant: StarOp computes Lap(u) from the streamed planes,
// LeapfrogEpilogue reads u-, c2 (and the centre) at the output offset. 16 B/point in fp32.
#include <type_traits>

#include "cuda/kernels/stencil_ops.cuh"
#include "cuda/kernels/wave.cuh"
#include "cuda/stencil_launch.cuh"
#include "cuda/wave_cuda.hpp"
#include "cuda/tuning/stencil_policy.hpp"
#include "cuda/tuning/wave_policy.hpp"

namespace strata::cuda {

namespace {

// How the epilogue gets its operands: prefetched one plane ahead with the centre from the
// register queue or from L2, or loaded at the store.
enum class Epi { prefetch_reg, prefetch_l2, late };

template <class T, Epi E>
auto make_epilogue(const T* u, const T* up, const T* c2) {
  if constexpr (E == Epi::late)
    return kernels::LeapfrogEpilogueLate<T>{u, up, c2};
  else
    return kernels::LeapfrogEpilogue<T, E == Epi::prefetch_reg>{u, up, c2};
}

const char* suffix(Epi e) { return e == Epi::prefetch_reg ? "-pf-reg" : e == Epi::prefetch_l2 ? "-pf-l2" : "-late"; }

template <class T, int R, class Cfg, Epi E>
void launch_update(std::span<const double> star, const Field<T>& u, const Field<T>& up, const Field<T>& c2,
                   Field<T>& out, void* stream, int zchunks, Region region) {
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
  const auto epi = make_epilogue<T, E>(u.origin(), up.origin(), c2.origin());
  launch_25d<kernels::StarOp<T, R>, Cfg, std::remove_cv_t<decltype(epi)>>(op, u.data(), u.layout(), out.origin(), out.layout(),
                                                         static_cast<cudaStream_t>(stream), zchunks, epi, region);
}

template <class T, int R, class Cfg, Epi E>
WaveUpdateVariant<T> variant(bool is_default) {
  return {R, Cfg::name() + suffix(E), is_default, &launch_update<T, R, Cfg, E>};
}

template <class T, int R>
WaveUpdateVariant<T> policy_variant() {
  using P = WavePolicy<T, R>;
  return variant<T, R, typename P::Cfg, P::centre_in_registers ? Epi::prefetch_reg : Epi::prefetch_l2>(true);
}

}  // namespace

template <class T>
const std::vector<WaveUpdateVariant<T>>& wave_update_variants() {
  static const std::vector<WaveUpdateVariant<T>> v = [] {
    std::vector<WaveUpdateVariant<T>> out = {policy_variant<T, 1>(), policy_variant<T, 2>(), policy_variant<T, 3>(),
                                             policy_variant<T, 4>()};
    // Radius-4 alternatives the benchmark times beside the defaults (all spill-free), with
    // their H100 ratios at 512^3: the stencil policy's 8-row columns with the loads at the
    // store (no prefetch: fp32 0.30, fp64 0.43); fp32: 8-row columns with prefetch (0.84),
    // the default tile re-reading the centre from L2 (0.845; default before measuring);
    // fp64: 128x8 tiles of 2-row columns (0.79; default before measuring).
    using Star34 = typename StencilPolicy<T>::star34;
    out.push_back(variant<T, 4, Star34, Epi::late>(false));
    if constexpr (sizeof(T) == 4) {
      out.push_back(variant<T, 4, TileConfig<Loader::tma, 128, 16, 8, 4>, Epi::prefetch_l2>(false));
      out.push_back(variant<T, 4, typename WavePolicy<T, 4>::Cfg, Epi::prefetch_l2>(false));
    } else {
      out.push_back(variant<T, 4, TileConfig<Loader::tma, 128, 8, 2, 3>, Epi::prefetch_l2>(false));
    }
    return out;
  }();
  return v;
}

template <class T>
void wave_update(std::span<const double> star, const Field<T>& u, const Field<T>& up, const Field<T>& c2,
                 Field<T>& out, void* stream, int zchunks, Region region) {
  const int R = int(star.size()) - 1;
  for (const auto& v : wave_update_variants<T>())
    if (v.is_default && v.radius == R) return v.launch(star, u, up, c2, out, stream, zchunks, region);
  throw Error("internal: no wave update of radius " + std::to_string(R));
}

template const std::vector<WaveUpdateVariant<float>>& wave_update_variants();
template const std::vector<WaveUpdateVariant<double>>& wave_update_variants();
template void wave_update(std::span<const double>, const Field<float>&, const Field<float>&, const Field<float>&,
                          Field<float>&, void*, int, Region);
template void wave_update(std::span<const double>, const Field<double>&, const Field<double>&, const Field<double>&,
                          Field<double>&, void*, int, Region);

}  // namespace strata::cuda

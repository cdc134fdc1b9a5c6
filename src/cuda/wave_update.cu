// The fused leapfrog update, u+ = 2u - u- + c2 * Lap(u), as one instantiation of the 2.5D
// kernel per precision, radius and variant: StarOp computes Lap(u) from the streamed planes,
// LeapfrogEpilogue reads u-, c2 (and the centre) at the output offset. 16 B/point in fp32.
// With absorbing layers, the same pass with LeapfrogCpmlEpilogue adds the CPML terms at the
// layer points: 16 B/point plus 16 B per point and layer (psi and zeta read and written).
#include <algorithm>
#include <type_traits>

#include "cuda/kernels/stencil_ops.cuh"
#include "cuda/kernels/wave.cuh"
#include "cuda/kernels/wave_cpml.cuh"
#include "cuda/stencil_launch.cuh"
#include "cuda/wave_cuda.hpp"
#include "cuda/stencil_policy.hpp"
#include "cuda/wave_policy.hpp"

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

// What every update launcher needs of its arguments (wave_cuda.hpp's contract).
template <class T>
void require_update_fields(int R, std::span<const double> star, const Field<T>& u, const Field<T>& up,
                           const Field<T>& c2, const Field<T>& out) {
  require(star.size() == std::size_t(R) + 1, "internal: wave update of radius " + std::to_string(R) + " given " +
                                                 std::to_string(star.size()) + " coefficients");
  require(u.memory() == Memory::device && up.memory() == Memory::device && c2.memory() == Memory::device &&
              out.memory() == Memory::device,
          "internal: the wave update needs device fields");
  require(u.layout() == out.layout() && up.layout() == out.layout() && c2.layout() == out.layout(),
          "internal: the wave update's fields must share one layout");
  require(u.ghost() >= R, "internal: the wave update needs ghost width >= radius");
  require(out.data() != u.data(), "internal: the wave update cannot write over its input u");
}

template <class T, int R, class Cfg, Epi E>
void launch_update(std::span<const double> star, const Field<T>& u, const Field<T>& up, const Field<T>& c2,
                   Field<T>& out, void* stream, int zchunks) {
  require_update_fields(R, star, u, up, c2, out);
  kernels::StarOp<T, R> op{};
  for (int r = 0; r <= R; ++r) op.c[r] = T(star[r]);
  const auto epi = make_epilogue<T, E>(u.origin(), up.origin(), c2.origin());
  launch_25d<kernels::StarOp<T, R>, Cfg, std::remove_cv_t<decltype(epi)>>(op, u.data(), u.layout(), out.origin(), out.layout(),
                                                         static_cast<cudaStream_t>(stream), zchunks, epi);
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

// ---- with absorbing layers ---------------------------------------------------------------

template <class T, int R>
using CpmlEpi = kernels::LeapfrogCpmlEpilogue<T, R, WavePolicy<T, R>::centre_in_registers>;

template <class T, int R>
wave::TileShape cpml_tile_shape() {
  using Cfg = typename WavePolicy<T, R>::CpmlCfg;
  const LaunchFacts f = launch_facts_25d<kernels::StarOp<T, R>, Cfg, CpmlEpi<T, R>>();
  return {Cfg::TX, Cfg::TY, Cfg::STAGES, f.sms * f.blocks_per_sm};
}

// The device view of the layers: strides along each layer's axis, and the box no layer
// touches (a layer spans the grid across its axis and starts or ends at a face).
template <class T, int R>
kernels::CpmlTerms<T, R> cpml_terms(const Layout& L, std::span<const double> d1, std::span<const double> d2,
                                    std::span<const CpmlLayerArrays<T>> layers) {
  using Terms = kernels::CpmlTerms<T, R>;
  require(d1.size() == std::size_t(R) + 1 && d2.size() == std::size_t(R) + 1,
          "internal: CPML derivatives of the wrong radius");
  require(layers.size() <= std::size_t(Terms::kMaxLayers), "internal: more than 6 absorbing layers");
  const int n[3] = {L.n.nx, L.n.ny, L.n.nz};
  Terms t{};
  for (int k = 0; k < 3; ++k) t.inner_lo[k] = 0, t.inner_hi[k] = n[k];
  for (int r = 0; r <= R; ++r) t.d1[r] = T(d1[r]), t.d2[r] = T(d2[r]);
  t.layers = int(layers.size());
  for (std::size_t l = 0; l < layers.size(); ++l) {
    const CpmlLayerArrays<T>& in = layers[l];
    const int ax = in.axis;
    for (int k = 0; k < 3; ++k)
      require(k == ax ? in.lo[k] >= 0 && in.lo[k] < in.hi[k] && in.hi[k] <= n[k] : in.lo[k] == 0 && in.hi[k] == n[k],
              "internal: a CPML layer must span the grid across its axis");
    require(in.lo[ax] == 0 || in.hi[ax] == n[ax], "internal: a CPML layer must lie against a face");
    require(in.psi_in != in.psi_out, "internal: psi_in and psi_out must be different buffers");
    if (in.lo[ax] == 0) t.inner_lo[ax] = std::max(t.inner_lo[ax], in.hi[ax]);
    else t.inner_hi[ax] = std::min(t.inner_hi[ax], in.lo[ax]);
    kernels::CpmlLayer<T>& o = t.layer[l];
    o.axis = ax;
    o.qlo = in.lo[ax];
    o.qhi = in.hi[ax];
    for (int k = 0; k < 3; ++k) o.lo[k] = in.lo[k];
    o.wx = in.hi[0] - in.lo[0];
    o.wy = in.hi[1] - in.lo[1];
    o.su = ax == 0 ? 1 : ax == 1 ? std::int64_t(L.pitch) : std::int64_t(L.plane);
    o.sp = ax == 0 ? 1 : ax == 1 ? std::int64_t(o.wx) : std::int64_t(o.wx) * o.wy;
    o.psi_in = in.psi_in;
    o.psi_out = in.psi_out;
    o.zeta = in.zeta;
    o.a = in.a;
    o.b = in.b;
  }
  return t;
}

template <class T, int R>
void launch_update_cpml(std::span<const double> star, std::span<const double> d1, std::span<const double> d2,
                        const Field<T>& u, const Field<T>& up, const Field<T>& c2, Field<T>& out,
                        std::span<const CpmlLayerArrays<T>> layers, const int* order, std::size_t order_size,
                        int zchunks, void* stream) {
  using Cfg = typename WavePolicy<T, R>::CpmlCfg;
  require_update_fields(R, star, u, up, c2, out);
  const Extent n = u.extent();
  require(zchunks >= 1, "internal: the CPML update needs the schedule's z chunk count");
  const int len = (n.nz + std::min(zchunks, n.nz) - 1) / std::min(zchunks, n.nz);
  const std::size_t blocks = std::size_t((n.nx + Cfg::TX - 1) / Cfg::TX) * std::size_t((n.ny + Cfg::TY - 1) / Cfg::TY) *
                             std::size_t((n.nz + len - 1) / len);
  require(order != nullptr && order_size == blocks,
          "internal: the CPML update's block order has " + std::to_string(order_size) + " entries for " +
              std::to_string(blocks) + " blocks");
  kernels::StarOp<T, R> op{};
  for (int r = 0; r <= R; ++r) op.c[r] = T(star[r]);
  CpmlEpi<T, R> epi{};
  epi.base = {u.origin(), up.origin(), c2.origin()};
  epi.cpml = cpml_terms<T, R>(u.layout(), d1, d2, layers);
  epi.order = order;
  launch_25d<kernels::StarOp<T, R>, Cfg, CpmlEpi<T, R>>(op, u.data(), u.layout(), out.origin(), out.layout(),
                                                         static_cast<cudaStream_t>(stream), zchunks, epi);
}

template <class F>
decltype(auto) with_radius(int radius, F&& f) {
  switch (radius) {
    case 1: return f(std::integral_constant<int, 1>{});
    case 2: return f(std::integral_constant<int, 2>{});
    case 3: return f(std::integral_constant<int, 3>{});
    case 4: return f(std::integral_constant<int, 4>{});
  }
  throw Error("internal: no wave update of radius " + std::to_string(radius));
}

}  // namespace

template <class T>
wave::TileShape wave_cpml_tile_shape(int radius) {
  return with_radius(radius, [](auto r) { return cpml_tile_shape<T, decltype(r)::value>(); });
}

template <class T>
void wave_update_cpml(std::span<const double> star, std::span<const double> d1, std::span<const double> d2,
                      const Field<T>& u, const Field<T>& up, const Field<T>& c2, Field<T>& out,
                      std::span<const CpmlLayerArrays<T>> layers, const int* order, std::size_t order_size,
                      int zchunks, void* stream) {
  with_radius(int(star.size()) - 1, [&](auto r) {
    launch_update_cpml<T, decltype(r)::value>(star, d1, d2, u, up, c2, out, layers, order, order_size, zchunks,
                                              stream);
  });
}

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
                 Field<T>& out, void* stream, int zchunks) {
  const int R = int(star.size()) - 1;
  for (const auto& v : wave_update_variants<T>())
    if (v.is_default && v.radius == R) return v.launch(star, u, up, c2, out, stream, zchunks);
  throw Error("internal: no wave update of radius " + std::to_string(R));
}

template const std::vector<WaveUpdateVariant<float>>& wave_update_variants();
template const std::vector<WaveUpdateVariant<double>>& wave_update_variants();
template void wave_update(std::span<const double>, const Field<float>&, const Field<float>&, const Field<float>&,
                          Field<float>&, void*, int);
template void wave_update(std::span<const double>, const Field<double>&, const Field<double>&, const Field<double>&,
                          Field<double>&, void*, int);
template wave::TileShape wave_cpml_tile_shape<float>(int);
template wave::TileShape wave_cpml_tile_shape<double>(int);
template void wave_update_cpml(std::span<const double>, std::span<const double>, std::span<const double>,
                               const Field<float>&, const Field<float>&, const Field<float>&, Field<float>&,
                               std::span<const CpmlLayerArrays<float>>, const int*, std::size_t, int, void*);
template void wave_update_cpml(std::span<const double>, std::span<const double>, std::span<const double>,
                               const Field<double>&, const Field<double>&, const Field<double>&, Field<double>&,
                               std::span<const CpmlLayerArrays<double>>, const int*, std::size_t, int, void*);

}  // namespace strata::cuda

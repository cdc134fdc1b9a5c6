// Launchers of the temporal-blocking kernel (kernels/temporal.cuh): K = 2..4 steps per trip
// through memory for the 7-point and radius-2 stars and both 27-point stencils, where the
// windows fit shared memory with a tile that keeps the redundant halo small; fused_steps
// answers false for the rest, and the caller takes single steps.
#include <cuda_runtime.h>

#include <algorithm>

#include "backend/stencil.hpp"
#include "cuda/check.hpp"
#include "cuda/kernels/temporal.cuh"

namespace strata::cuda {

namespace {

constexpr int kThreads = 512;
constexpr std::size_t kSmemLimit = 227 * 1024;  // dynamic shared memory per block (sm_90)

// The widest tile (of 64x32, 32x32, 32x16) whose K rings fit: wider tiles read fewer halo
// points per output (64x32 at K = 4, R = 1: 72 x 40 / (64 x 32) = 1.41 loads per point).
template <class T, int R, int K>
struct Tile {
  template <int TX, int TY>
  static constexpr bool fits = kernels::TemporalShape<T, R, K, TX, TY>::smem_bytes <= kSmemLimit;
  static constexpr int TX = fits<64, 32> ? 64 : 32;
  static constexpr int TY = fits<64, 32> ? 32 : (fits<32, 32> ? 32 : 16);
  static constexpr bool ok = fits<TX, TY>;
};

int multiprocessors() {
  int device = 0, n = 0;
  STRATA_CUDA_CHECK(cudaGetDevice(&device));
  STRATA_CUDA_CHECK(cudaDeviceGetAttribute(&n, cudaDevAttrMultiProcessorCount, device));
  return n;
}

template <class T, class Op, int K, class Epi>
bool launch(const Op& op, const Epi& epi, const Boundary& bc, const Field<T>& in, Field<T>& out, void* stream) {
  constexpr int R = Op::radius;
  using C = Tile<T, R, K>;
  if constexpr (!C::ok) {
    return false;
  } else {
    using Shape = kernels::TemporalShape<T, R, K, C::TX, C::TY>;
    constexpr auto kernel = &kernels::temporal_steps<T, Op, K, C::TX, C::TY, kThreads, Epi>;
    STRATA_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(Shape::smem_bytes)));
    const Extent n = in.extent();
    kernels::TemporalArgs<T, Op, Epi> a{};
    a.in = in.origin();
    a.out = out.origin();
    a.in_pitch = in.layout().pitch, a.in_plane = in.layout().plane;
    a.out_pitch = out.layout().pitch, a.out_plane = out.layout().plane;
    a.nx = n.nx, a.ny = n.ny, a.nz = n.nz;
    a.op = op;
    a.kind = bc.kind;
    a.value = T(bc.value);
    a.epi = epi;
    // Whole columns per block unless that leaves SMs idle: each z split costs 2 K R planes
    // of redundant streaming, so split only as far as one block per SM needs.
    const int columns = ((n.nx + C::TX - 1) / C::TX) * ((n.ny + C::TY - 1) / C::TY);
    const int splits = std::clamp(multiprocessors() / std::max(columns, 1), 1, std::max(1, n.nz / (4 * K * R)));
    a.tz = (n.nz + splits - 1) / splits;
    const dim3 grid(unsigned((n.nx + C::TX - 1) / C::TX), unsigned((n.ny + C::TY - 1) / C::TY),
                    unsigned((n.nz + a.tz - 1) / a.tz));
    kernel<<<grid, kThreads, Shape::smem_bytes, static_cast<cudaStream_t>(stream)>>>(a);
    STRATA_CUDA_CHECK_LAUNCH();
    return true;
  }
}

template <class T, class Op, class Epi>
bool by_steps(int k, const Op& op, const Epi& epi, const Boundary& bc, const Field<T>& in, Field<T>& out, void* stream) {
  switch (k) {
    case 2: return launch<T, Op, 2>(op, epi, bc, in, out, stream);
    case 3: return launch<T, Op, 3>(op, epi, bc, in, out, stream);
    case 4: return launch<T, Op, 4>(op, epi, bc, in, out, stream);
    default: return false;
  }
}

template <class T, class Epi>
bool by_stencil(int k, const Stencil& s, const Epi& epi, const Boundary& bc, const Field<T>& in, Field<T>& out,
                void* stream) {
  const auto& c = s.coeffs();
  if (s.kind() == StencilKind::star && s.radius() == 1) {
    kernels::StarPoint<T, 1> op{};
    for (int r = 0; r <= 1; ++r) op.c[r] = T(c[r]);
    return by_steps<T>(k, op, epi, bc, in, out, stream);
  }
  if (s.kind() == StencilKind::star && s.radius() == 2) {
    kernels::StarPoint<T, 2> op{};
    for (int r = 0; r <= 2; ++r) op.c[r] = T(c[r]);
    return by_steps<T>(k, op, epi, bc, in, out, stream);
  }
  if (s.kind() == StencilKind::sym27) {
    kernels::Sym27Point<T> op{};
    for (int i = 0; i < 4; ++i) op.c[i] = T(c[i]);
    return by_steps<T>(k, op, epi, bc, in, out, stream);
  }
  if (s.kind() == StencilKind::box27) {
    kernels::Box27Point<T> op{};
    for (int i = 0; i < 27; ++i) op.k[i] = T(c[i]);
    return by_steps<T>(k, op, epi, bc, in, out, stream);
  }
  return false;  // stars of radius 3 and 4: no window fits with a small halo
}

}  // namespace

template <class T>
bool fused_steps(const Stencil& s, const StepOptions& o, int k, const Boundary& bc, const Field<T>& in,
                 Field<T>& out, void* stream) {
  if (o.update == StepUpdate::repeat) return by_stencil<T>(k, s, kernels::StepStore<T>{}, bc, in, out, stream);
  return by_stencil<T>(k, s, kernels::StepRelax<T>{T(o.c)}, bc, in, out, stream);
}

template bool fused_steps(const Stencil&, const StepOptions&, int, const Boundary&, const Field<float>&, Field<float>&,
                          void*);
template bool fused_steps(const Stencil&, const StepOptions&, int, const Boundary&, const Field<double>&,
                          Field<double>&, void*);

}  // namespace strata::cuda

// The temporal-blocking launcher (kernels/temporal.cuh): the block shape for K steps of a
// point operator, the z splits, and one pass of k = 2..4 steps. Instantiated per stencil
// family in star1..4.cu and sym27.cu (one translation unit each, so that they compile in
// parallel); temporal.cu picks the family.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <span>

#include "backend/stencil.hpp"
#include "cuda/check.hpp"
#include "cuda/kernels/temporal.cuh"
#include "cuda/temporal/splits.hpp"
#include "cuda/tensor_map.hpp"
#include "cuda/tuning/temporal_block_policy.hpp"

namespace strata::cuda::temporal {


inline constexpr std::size_t kSmemLimit = 227 * 1024;  // dynamic shared memory per block (sm_90)


// The block for K steps of Op. The 7-point passes (the unrolled kernel) take the shapes
// measured per precision and K (tuning/temporal_block_policy.hpp: 12 to 24 warps, windows of
// 64 x 32 to 64 x 50). The others take 16 warps of 128 registers with as many rows per
// thread as their queues allow (8, 4 or 2). The window is 64 wide and threads / 64 x rows
// tall, or shorter (64, 48, 32, 16 rows) where shared memory does not hold it: taller
// windows compute fewer redundant halo points per output.
template <class T, class Op, int K, class Epi = kernels::StepStore<T>, bool LargeLevel = false>
struct Block {
  static constexpr int R = Op::radius;
  static constexpr int D = Op::off_centre ? R + 1 : R;
  static constexpr int words = K * (R + D + 1) * int(sizeof(T) / 4);  // queue registers per row
  // An update with an operand field (the multigrid smoothers) keeps its row a step ahead and
  // its addresses besides, so those passes take blocks of their own (smoothing_block; fp64
  // levels of kLargeSmoothingLevel points or more ask for LargeLevel).
  static constexpr bool operands = kernels::PointOperands<Epi>;
  static constexpr bool measured = kernels::temporal_unrolled<Op>;
  static constexpr TemporalBlockShape shape =
      operands ? smoothing_block(sizeof(T), LargeLevel) : seven_point_block(sizeof(T), K);
  static constexpr int threads = measured ? shape.threads : 512;
  // Registers of the queues per thread: ptxas spills past 80 of them in fp32 and 64 in fp64
  // (whose addresses and temporaries take more besides) at 128 registers.
  static constexpr int budget = sizeof(T) == 4 ? 80 : 64;
  static constexpr int RY = measured ? shape.rows
                           : words * 8 <= budget ? 8
                           : words * 4 <= budget ? 4
                                                 : 2;
  static constexpr int PX = 64;
  template <int PY>
  static constexpr bool fits = PY % RY == 0 && PX * (PY / RY) <= threads && PY > 2 * K * R + 4 &&
                               PX > 2 * K * R + 4 &&
                               kernels::TemporalShape<T, Op, K, PX, (PY % RY == 0 ? PY / RY : 1), RY>::smem_bytes <=
                                   kSmemLimit;
  static constexpr int tallest = threads / PX * RY;
  static constexpr int PY = fits<tallest> ? tallest : fits<64> ? 64 : fits<48> ? 48 : fits<32> ? 32 : 16;
  static_assert(!measured || PY == tallest, "a measured block (7-point pass or smoothing pair) must fit whole");
  static constexpr bool ok = fits<PY>;
  static constexpr int TYT = PY / RY;
};

inline int multiprocessors() {
  int device = 0, n = 0;
  STRATA_CUDA_CHECK(cudaGetDevice(&device));
  STRATA_CUDA_CHECK(cudaDeviceGetAttribute(&n, cudaDevAttrMultiProcessorCount, device));
  return n;
}

// A staged pass copies its planes in bulk (kernels/temporal.cuh) from a tensor map of the
// input's allocation, where the tensor copy can take it: a 16-byte aligned base and rows.
template <int W, int PY, class T, class Args>
void bulk_copies(const Field<T>& in, const Region& box, Args& a) {
  const Layout& l = in.layout();
  const T* base = in.data();  // the allocation, ghosts included
  a.bulk = reinterpret_cast<std::uintptr_t>(base) % 16 == 0 && l.pitch * sizeof(T) % 16 == 0;
  if (!a.bulk) return;
  const CUtensorMap map = make_plane_tensor_map(base, sizeof(T), l.pitch, l.rows, l.planes, W, PY);
  static_assert(sizeof(map) == sizeof(a.map) && alignof(CUtensorMap) <= 128);
  std::memcpy(a.map, &map, sizeof(map));
  a.map_x = int(l.xoff) + box.x0, a.map_y = l.ghost + box.y0, a.map_z = l.ghost + box.z0;
}

// `over`: the box taken for the domain (Region{}: the interior), in and out alike; it may
// reach into the ghost layers (the distributed smoothing's boxes), the ghosts past it then
// read by the boundary rule.
template <class T, class Op, int K, class Epi, bool LargeLevel = false>
bool launch(const Op& op, const Epi& epi, const Boundary& bc, const Field<T>& in, Field<T>& out, void* stream,
            const Region& over = {}) {
  using B = Block<T, Op, K, Epi, LargeLevel>;
  if constexpr (!B::ok) {
    static_cast<void>(B::TYT);
    return false;
  } else {
    using Shape = kernels::TemporalShape<T, Op, K, B::PX, B::TYT, B::RY>;
    if (!kernels::TemporalThread<T, Op, Epi, K, B::PX, B::TYT, B::RY>::supports(bc.kind)) return false;
    const Region box = over.whole() ? Region{0, 0, 0, in.extent().nx, in.extent().ny, in.extent().nz} : over;
    if (!kernels::in_plane_offsets(in.layout().pitch, box.ny, Shape::H) ||
        !kernels::in_plane_offsets(out.layout().pitch, box.ny, Shape::H))
      return false;  // planes of 2^31 points or more take single steps
    constexpr auto kernel = &kernels::temporal_steps<T, Op, Epi, K, B::PX, B::TYT, B::RY>;
    // The shared-memory opt-in is per device; how many blocks an SM holds, once per process.
    STRATA_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(Shape::smem_bytes)));
    static const int per_sm = [&] {
      int n = 0;
      STRATA_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, kernel, Shape::threads, Shape::smem_bytes));
      return std::max(n, 1);
    }();
    const Extent n{box.nx, box.ny, box.nz};
    kernels::TemporalArgs<T, Op, Epi> a{};
    auto at = [&box](const Layout& l) { return box.z0 * l.plane + box.y0 * l.pitch + box.x0; };
    a.in = in.origin() + at(in.layout());
    a.out = out.origin() + at(out.layout());
    a.in_pitch = in.layout().pitch, a.in_plane = in.layout().plane;
    a.out_pitch = out.layout().pitch, a.out_plane = out.layout().plane;
    a.nx = n.nx, a.ny = n.ny, a.nz = n.nz;
    a.op = op;
    a.kind = bc.kind;
    a.value = T(bc.value);
    a.epi = epi;
    if constexpr (Shape::staged) bulk_copies<Shape::row, Shape::PY>(in, box, a);
    const int gx = (n.nx + Shape::TX - 1) / Shape::TX, gy = (n.ny + Shape::TY - 1) / Shape::TY;
    const int splits = z_splits(gx * gy, n.nz, Shape::H + Shape::HZ, multiprocessors() * per_sm);
    a.tz = (n.nz + splits - 1) / splits;
    const dim3 grid(unsigned(gx), unsigned(gy), unsigned((n.nz + a.tz - 1) / a.tz));
    kernel<<<grid, Shape::threads, Shape::smem_bytes, static_cast<cudaStream_t>(stream)>>>(a);
    STRATA_CUDA_CHECK_LAUNCH();
    return true;
  }
}

// One pass of k = 2..KMax steps of op with the update o asks for; false where no block fits.
template <class T, class Op, int KMax = 4>
bool pass(int k, const Op& op, const StepOptions& o, const Boundary& bc, const Field<T>& in, Field<T>& out,
          void* stream) {
  auto with = [&](const auto& epi) {
    if (k == 2) return launch<T, Op, 2>(op, epi, bc, in, out, stream);
    if constexpr (KMax >= 3)
      if (k == 3) return launch<T, Op, 3>(op, epi, bc, in, out, stream);
    if constexpr (KMax >= 4)
      if (k == 4) return launch<T, Op, 4>(op, epi, bc, in, out, stream);
    return false;
  };
  if (o.update == StepUpdate::repeat) return with(kernels::StepStore<T>{});
  return with(kernels::StepRelax<T>{T(o.c)});
}

template <class T, int R>
bool star(int k, std::span<const double> c, const StepOptions& o, const Boundary& bc, const Field<T>& in,
          Field<T>& out, void* stream) {
  kernels::StarPoint<T, R> op{};
  for (int r = 0; r <= R; ++r) op.c[r] = T(c[r]);
  return pass<T>(k, op, o, bc, in, out, stream);
}

}  // namespace strata::cuda::temporal

// temporal_star<R>.cu: the star of radius R's passes, in both precisions.
#define STRATA_TEMPORAL_STAR(R)                                                                              \
  template bool strata::cuda::temporal::star<float, R>(int, std::span<const double>, const StepOptions&,      \
                                                       const Boundary&, const Field<float>&, Field<float>&, void*); \
  template bool strata::cuda::temporal::star<double, R>(int, std::span<const double>, const StepOptions&,     \
                                                        const Boundary&, const Field<double>&, Field<double>&, void*);

// Launchers of the multigrid passes. Smoothing steps and residuals are one 2.5D stencil
// pass each with a fusing epilogue (Jacobi: 12 bytes per point in fp32, Chebyshev 16,
// residual 12); transfers and the coarsest solve are small gather kernels.
#include <algorithm>
#include <string>

#include "backend/multigrid.hpp"
#include "cuda/check.hpp"
#include "cuda/kernels/multigrid.cuh"
#include "cuda/kernels/smoother.hpp"
#include "cuda/stencil/impl.cuh"
#include "cuda/temporal/launch.cuh"
#include "cuda/tuning/multigrid_policy.hpp"

namespace strata::cuda {

namespace {

// One tile shape per precision for every level (tuning/multigrid_policy.hpp).
template <class T>
using MgConfig = typename MultigridPolicy<T>::tile;
constexpr int kPointBlock = MultigridLaunch::point_block;  // point-wise gathers

template <class T>
kernels::Geometry geometry(const Field<T>& f) {
  const Extent n = f.extent();
  return {n.nx, n.ny, n.nz, f.layout().pitch, f.layout().plane};
}

// Runs the operator's stencil with an epilogue: 7-point stars and symmetric 27-point, and
// the general 27-point for the anisotropic coarse levels of some non-cubic grids (spacings
// that differ per axis: solvers/poisson/transfer.hpp). The epilogue's fields share out's
// layout (checked by the callers); u may have its own.
template <class T, class Epi>
void fused_pass(const Stencil& a, const Field<T>& u, Field<T>& out, const Epi& epi, void* stream) {
  const auto s = static_cast<cudaStream_t>(stream);
  if (a.kind() == StencilKind::star && a.radius() == 1)
    launch_25d<kernels::StarOp<T, 1>, MgConfig<T>, Epi>(make_op(OpTag<kernels::StarOp<T, 1>>{}, &a), u.data(),
                                                     u.layout(), out.origin(), out.layout(), s, 0, epi);
  else if (a.kind() == StencilKind::sym27)
    launch_25d<kernels::Sym27Op<T>, MgConfig<T>, Epi>(make_op(OpTag<kernels::Sym27Op<T>>{}, &a), u.data(),
                                                   u.layout(), out.origin(), out.layout(), s, 0, epi);
  else if (a.kind() == StencilKind::box27)
    launch_25d<kernels::Box27Op<T>, MgConfig<T>, Epi>(make_op(OpTag<kernels::Box27Op<T>>{}, &a), u.data(),
                                                   u.layout(), out.origin(), out.layout(), s, 0, epi);
  else
    throw Error("internal: the multigrid passes take the fd7 or fe27 operator, got " + a.name());
}

int multiprocessors() {
  int device = 0, n = 0;
  STRATA_CUDA_CHECK(cudaGetDevice(&device));
  STRATA_CUDA_CHECK(cudaDeviceGetAttribute(&n, cudaDevAttrMultiProcessorCount, device));
  return n;
}

dim3 point_grid(const kernels::Geometry& g, int block) {
  return dim3(unsigned((g.nx + block - 1) / block), unsigned(g.ny), unsigned(g.nz));
}

}  // namespace

template <class T>
void jacobi(Tag, const Stencil& a, double omega, const Field<T>& u, const Field<T>& f,
            Field<T>& out, void* stream) {
  require(f.layout() == out.layout(), "internal: multigrid fields of one level must share a layout");
  fused_pass(a, u, out, kernels::JacobiEpilogue<T>{f.origin(), T(omega / poisson::diagonal(a))}, stream);
}

template <class T>
void chebyshev(Tag, const Stencil& a, double alpha, double beta, const Field<T>& u,
               const Field<T>& f, Field<T>& prev_out, void* stream) {
  require(f.layout() == prev_out.layout(), "internal: multigrid fields of one level must share a layout");
  fused_pass(a, u, prev_out,
             kernels::ChebyshevEpilogue<T>{f.origin(), prev_out.origin(), T(alpha), T(beta / poisson::diagonal(a))},
             stream);
}

// Two smoothing steps of the 7-point operator in one pass of the temporal kernel
// (kernels/temporal.cuh with StepSmooth): u and f read once, the result written once, where
// the single steps move 12 + 16 bytes a point in fp32 (Jacobi + Chebyshev). The weights are
// rounded as the single passes round them, so that the bits agree. Longer fused sweeps
// would need the iterate before the last one stored for the Chebyshev step after them, and
// the 27-point operator's level two below is no longer in its queue: both take single steps.
template <class T>
bool smooth_fused(Tag, const Stencil& a, std::span<const poisson::SmoothingStep> steps,
                  const Boundary& bc, const Field<T>& u, const Field<T>& f, Field<T>& out,
                  void* stream, const Region& over) {
  require(f.layout() == out.layout() && u.layout() == out.layout(),
          "internal: multigrid fields of one level must share a layout");
  constexpr int K = 2;
  if (int(steps.size()) != K || steps[0].chebyshev || !(a.kind() == StencilKind::star && a.radius() == 1))
    return false;
  const Region box = over.whole() ? Region{0, 0, 0, u.extent().nx, u.extent().ny, u.extent().nz} : over;
  if (!over.whole()) {
    const int g = u.ghost();
    require(bc.kind == BoundaryKind::dirichlet && box.x0 >= -g && box.y0 >= -g && box.z0 >= -g &&
                box.x0 + box.nx <= u.extent().nx + g && box.y0 + box.ny <= u.extent().ny + g &&
                box.z0 + box.nz <= u.extent().nz + g,
            "internal: a fused smoothing box must be dirichlet and lie within the ghost layers");
  }
  if (bc.kind == BoundaryKind::periodic && u.ghost() < K) return false;
  const double diag = poisson::diagonal(a);
  const auto c = a.coeffs();
  kernels::StarPoint<T, 1> op{};
  op.c[0] = T(c[0]), op.c[1] = T(c[1]);
  const std::ptrdiff_t first = box.z0 * f.layout().plane + box.y0 * f.layout().pitch + box.x0;
  auto launch = [&](auto epi) {
    epi.f = f.origin() + first;
    for (int k = 1; k <= K; ++k) {
      const poisson::SmoothingStep& st = steps[std::size_t(k - 1)];
      epi.w[k] = T(st.omega / diag);
      epi.alpha[k] = T(st.alpha), epi.beta[k] = T(st.beta / diag);
    }
    // fp64 levels this large take a taller window (tuning/temporal_block_policy.hpp); fp32
    // takes one block on every level.
    if (sizeof(T) == 8 && double(box.points()) >= kLargeSmoothingLevel)
      return temporal::launch<T, kernels::StarPoint<T, 1>, K, decltype(epi), true>(op, epi, bc, u, out, stream, box);
    return temporal::launch<T, kernels::StarPoint<T, 1>, K>(op, epi, bc, u, out, stream, box);
  };
  if (steps[1].chebyshev) return launch(kernels::StepSmooth<T, true>{});
  return launch(kernels::StepSmooth<T, false>{});
}

template <class T>
void residual(Tag, const Stencil& a, const Field<T>& u, const Field<T>& f, Field<T>& r,
              void* stream) {
  require(f.layout() == r.layout(), "internal: multigrid fields of one level must share a layout");
  fused_pass(a, u, r, kernels::ResidualEpilogue<T>{f.origin()}, stream);
}

template <class T>
void restrict_to(Tag, const poisson::TransferView<T>& t, const Field<T>& r, Field<T>& fc,
                 void* stream) {
  const auto gc = geometry(fc);
  kernels::restrict_kernel<<<point_grid(gc, kPointBlock), kPointBlock, 0, static_cast<cudaStream_t>(stream)>>>(
      t, r.origin(), geometry(r), fc.origin(), gc);
  STRATA_CUDA_CHECK_LAUNCH();
}

template <class T>
bool residual_restrict(Tag, const Stencil& a, const Field<T>& u, const Field<T>& f, Field<T>& r,
                       const poisson::TransferView<T>& t, Field<T>& fc, void* stream) {
  require(f.layout() == u.layout(), "internal: multigrid fields of one level must share a layout");
  // Fused for the 7-point operator only: fe27's 27 shared-memory reads per residual made
  // the fused pass slower than the two passes (H100, 511^3: V-cycle 5.56 vs 5.36 ms).
  if (!t.full_weighting || !(a.kind() == StencilKind::star && a.radius() == 1)) {
    residual(Tag{}, a, u, f, r, stream);
    restrict_to(Tag{}, t, r, fc, stream);
    return false;
  }
  // fp64 keeps half the rows so that the ring, f and residual planes fit in 48 KiB. The
  // coarse planes per block shrink on small levels until there are enough blocks to fill
  // the GPU: a block streams its planes one after another, latency-bound when alone.
  constexpr int CX = MultigridPolicy<T>::fused_cx, CY = MultigridPolicy<T>::fused_cy;
  const auto gf = geometry(u), gc = geometry(fc);
  // The kernel's coordinates start at the first fine point coarse 0 gathers; the readable
  // u and the counting residual reach one layer further past a neighbour's face.
  kernels::FwBounds in{};
  const int n[3] = {gf.nx, gf.ny, gf.nz};
  bool beyond = false;
  for (int a = 0; a < 3; ++a) {
    const int s = t.fw_shift[a];
    require(s == 0 || s == -1, "internal: a fused restriction's box starts " + std::to_string(s) + " fine points off");
    in.u_lo[a] = (t.fw_open_lo[a] ? -2 : -1) - s;
    in.u_hi[a] = (t.fw_open_hi[a] ? n[a] + 1 : n[a]) - s;
    in.r_lo[a] = (t.fw_open_lo[a] ? -1 : 0) - s;
    in.r_hi[a] = (t.fw_open_hi[a] ? n[a] + 1 : n[a]) - s;
    beyond = beyond || s != 0 || t.fw_open_lo[a] || t.fw_open_hi[a];
  }
  require(!beyond || (u.ghost() >= 2 && f.ghost() >= 1),
          "internal: a distributed fused restriction needs two ghost layers of u and one of f");
  const std::ptrdiff_t first = t.fw_shift[2] * gf.plane + t.fw_shift[1] * gf.pitch + t.fw_shift[0];
  const long tiles = long((gc.nx + CX - 1) / CX) * ((gc.ny + CY - 1) / CY);
  const long want = long(MultigridLaunch::fused_blocks_per_sm) * multiprocessors();  // blocks
  const int zc = int(std::clamp<long>(tiles * gc.nz / want, 1, MultigridLaunch::fused_max_planes));
  const auto c = a.coeffs();
  const dim3 grid(unsigned((gc.nx + CX - 1) / CX), unsigned((gc.ny + CY - 1) / CY), unsigned((gc.nz + zc - 1) / zc));
  kernels::residual_restrict_fw_kernel<T, CX, CY><<<grid, dim3(CX, CY), 0, static_cast<cudaStream_t>(stream)>>>(
      u.origin() + first, f.origin() + first, gf, fc.origin(), gc, T(c[0]), T(c[1]), zc, in);
  STRATA_CUDA_CHECK_LAUNCH();
  return true;
}

template <class T>
void prolong_add(Tag, const poisson::TransferView<T>& t, const Field<T>& ec, Field<T>& u,
                 void* stream) {
  const auto gf = geometry(u);
  kernels::prolong_kernel<<<point_grid(gf, kPointBlock), kPointBlock, 0, static_cast<cudaStream_t>(stream)>>>(
      t, ec.origin(), geometry(ec), u.origin(), gf);
  STRATA_CUDA_CHECK_LAUNCH();
}

template <class T>
void dense_correct(Tag, const T* m, const Field<T>& r, Field<T>& u, void* stream) {
  require(r.extent().points() <= 512, "internal: dense coarse solve limited to 512 points");
  const int N = int(r.extent().points());
  const int blocks = (N + 7) / 8;
  kernels::dense_correct_kernel<<<blocks, 256, 0, static_cast<cudaStream_t>(stream)>>>(
      m, r.origin(), u.origin(), geometry(u));
  STRATA_CUDA_CHECK_LAUNCH();
}

template <class T>
void extrapolate_ghosts(Tag, const poisson::GhostRule& g, Field<T>& u, void* stream) {
  // One launch for the faces whose factor is not 0 (a block row per face): the others
  // keep their zero ghosts, and their edges with a ruled face are written (as 0) by it.
  kernels::GhostFaces<T> faces{};
  const Extent n = u.extent();
  const int ext[3] = {n.nx, n.ny, n.nz};
  int most = 0;
  for (int a = 0; a < 3; ++a) {
    faces.lo[a] = T(g.lo[a]);
    faces.hi[a] = T(g.hi[a]);
    for (int side = 0; side < 2; ++side)
      if ((side ? g.hi[a] : g.lo[a]) != 0) {
        faces.axis[faces.count] = a;
        faces.side[faces.count++] = side;
        most = std::max(most, (ext[(a + 1) % 3] + 2) * (ext[(a + 2) % 3] + 2));
      }
  }
  if (faces.count == 0) return;
  const dim3 grid(unsigned((most + 255) / 256), unsigned(faces.count));
  kernels::extrapolate_ghosts_kernel<<<grid, 256, 0, static_cast<cudaStream_t>(stream)>>>(faces, u.origin(),
                                                                                          geometry(u));
  STRATA_CUDA_CHECK_LAUNCH();
}

template <class D, class S>
void convert(Tag, const Field<S>& src, Field<D>& dst, void* stream) {
  const auto gs = geometry(src);
  kernels::convert_kernel<<<point_grid(gs, kPointBlock), kPointBlock, 0, static_cast<cudaStream_t>(stream)>>>(
      src.origin(), gs, dst.origin(), geometry(dst));
  STRATA_CUDA_CHECK_LAUNCH();
}

#include "backend/multigrid_instances.inc"

}  // namespace strata::cuda

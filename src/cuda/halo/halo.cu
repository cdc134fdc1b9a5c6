// Launchers for the halo seam's face packing (backend/halo_api.inc).
#include <algorithm>

#include "backend/halo.hpp"
#include "cuda/check.hpp"
#include "cuda/kernels/halo.cuh"

namespace strata::cuda {

namespace {

template <class T, bool Pack>
void launch_copy_box(T* origin, const Layout& l, const Region& b, T* buf, void* stream) {
  if (b.points() == 0) return;
  const kernels::BoxArgs a{l.pitch, l.plane, b.x0, b.y0, b.z0, b.nx, b.ny, b.nz};
  const auto blocks = unsigned(std::clamp<std::int64_t>((std::int64_t(b.points()) + 255) / 256, 1, 4 * 65535));
  kernels::copy_box<T, Pack><<<blocks, 256, 0, static_cast<cudaStream_t>(stream)>>>(origin, buf, a);
  STRATA_CUDA_CHECK_LAUNCH();
}

}  // namespace

template <class T>
void pack_box(Tag, const Field<T>& f, const Region& b, T* buf, void* stream) {
  launch_copy_box<T, true>(const_cast<T*>(f.origin()), f.layout(), b, buf, stream);
}

template <class T>
void unpack_box(Tag, Field<T>& f, const Region& b, const T* buf, void* stream) {
  launch_copy_box<T, false>(f.origin(), f.layout(), b, const_cast<T*>(buf), stream);
}

template void pack_box(Tag, const Field<float>&, const Region&, float*, void*);
template void pack_box(Tag, const Field<double>&, const Region&, double*, void*);
template void unpack_box(Tag, Field<float>&, const Region&, const float*, void*);
template void unpack_box(Tag, Field<double>&, const Region&, const double*, void*);

}  // namespace strata::cuda

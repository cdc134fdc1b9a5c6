// The imaging runs' backends, chosen by on_backend from the device, and the second time
// difference they share.
#include "solvers/imaging/backends.hpp"

#include "dispatch/backend.hpp"

namespace strata::imaging {

namespace {

constexpr const char* kNoCuda = "device \"cuda\": strata was built without CUDA";

Memory memory_of(Device device) {
  if (device == Device::automatic) throw Error("internal: the imaging device must be resolved");
  return device == Device::cpu ? Memory::host : Memory::device;
}

}  // namespace

template <class T>
std::unique_ptr<wave::Backend<T>> forward_backend(Device device, const wave::Setup& s) {
  return on_backend(
      memory_of(device), [&](auto tag) { return make_wave_backend<T>(tag, s); }, kNoCuda);
}

template <class T>
std::unique_ptr<wave::AdjointBackend<T>> adjoint_backend(Device device, const wave::Setup& s) {
  return on_backend(
      memory_of(device), [&](auto tag) { return make_wave_adjoint<T>(tag, s); }, kNoCuda);
}

template <class T>
void second_difference(const wave::Setup& s, const Shot& shot, int n, const T* next, const T* now,
                       const T* prev, std::vector<double>& out) {
  const std::size_t points = s.n.points(), ns = s.sources.size();
  out.resize(points);
  for (std::size_t i = 0; i < points; ++i)
    out[i] = double(next[i]) - 2.0 * double(now[i]) + double(prev[i]);
  for (std::size_t j = 0; j < ns; ++j)
    for (const wave::Tap& t : s.sources[j])
      out[(std::size_t(t.z) * s.n.ny + std::size_t(t.y)) * s.n.nx + std::size_t(t.x)] -=
          t.w * shot.wavelets[std::size_t(n) * ns + j];
}

#define STRATA_IMAGING_BACKENDS(T)                                                               \
  template std::unique_ptr<wave::Backend<T>> forward_backend(Device, const wave::Setup&);        \
  template std::unique_ptr<wave::AdjointBackend<T>> adjoint_backend(Device, const wave::Setup&); \
  template void second_difference(const wave::Setup&, const Shot&, int, const T*, const T*,      \
                                  const T*, std::vector<double>&);
STRATA_IMAGING_BACKENDS(float)
STRATA_IMAGING_BACKENDS(double)
#undef STRATA_IMAGING_BACKENDS

}  // namespace strata::imaging

// The registry of compiled stencil implementations and the public API's CUDA dispatch: each
// kernel runs the shape tuning chose for the current device (strata/tuning.hpp).
#include <map>
#include <mutex>
#include <utility>

#include "cuda/check.hpp"
#include "cuda/stencil_impl.hpp"
#include "cuda/stencil_tuning.hpp"
#include "cuda/tuning/tuner.hpp"

namespace strata::cuda {

template <class T>
const std::vector<StencilImpl<T>>& stencil_impls() {
  static const std::vector<StencilImpl<T>> impls = [] {
    std::vector<StencilImpl<T>> v;
    add_copy_impls(v);
    add_star_impls(v);
    add_star34_impls(v);
    add_box_impls(v);
#if STRATA_STENCIL_LAB
    std::vector<StencilImpl<T>> lab;
    add_lab_copy_impls(lab);
    add_lab_star_impls(lab);
    add_lab_box_impls(lab);
    for (auto& impl : lab) {  // a lab shape that is also a candidate appears once
      bool dup = false;
      for (const auto& d : v) dup = dup || (d.kernel == impl.kernel && d.variant == impl.variant);
      if (!dup) v.push_back(std::move(impl));
    }
#endif
    return v;
  }();
  return impls;
}

template <class T>
const StencilImpl<T>& default_impl(std::string_view kernel) {
  for (const auto& impl : stencil_impls<T>())
    if (impl.is_default && impl.kernel == kernel) return impl;
  throw Error("no CUDA kernel named '" + std::string(kernel) +
              "': allowed copy, copy_halo, 7pt, star2, star3, star4, sym27, box27");
}

template <class T>
const StencilImpl<T>* find_impl(std::string_view kernel, std::string_view variant) {
  for (const auto& impl : stencil_impls<T>())
    if (impl.kernel == kernel && impl.variant == variant) return &impl;
  return nullptr;
}

namespace {

bool capturing(void* stream) {
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  STRATA_CUDA_CHECK(cudaStreamIsCapturing(static_cast<cudaStream_t>(stream), &status));
  return status != cudaStreamCaptureStatusNone;
}

}  // namespace

template <class T>
const StencilImpl<T>& chosen_impl(std::string_view kernel, void* stream) {
  // What each (device, kernel) resolved to, valid while the tuner's generation stands.
  static std::mutex m;
  static std::map<std::pair<int, std::string>, std::pair<const StencilImpl<T>*, int>> known;
  int device = 0;
  STRATA_CUDA_CHECK(cudaGetDevice(&device));
  const int generation = tuning::generation();
  const std::pair<int, std::string> at{device, std::string(kernel)};
  {
    std::lock_guard<std::mutex> lock(m);
    if (const auto it = known.find(at); it != known.end() && it->second.second == generation)
      return *it->second.first;
  }
  default_impl<T>(kernel);  // throws, listing the kernels, for an unknown name
  const tuning::Resolved r =
      tuning::resolve(tuning_ops(), device, tuning::family_name(kernel, precision_of<T>),
                      !capturing(stream), stream);
  const StencilImpl<T>* impl = find_impl<T>(kernel, r.variant);
  require(impl != nullptr, "internal: tuning chose " + r.variant + " for " + std::string(kernel) +
                               ", which is not compiled");
  if (r.remembered) {
    std::lock_guard<std::mutex> lock(m);
    known[at] = {impl, generation};
  }
  return *impl;
}

template <class T>
void apply_interior(const Stencil& s, const Field<T>& in, Field<T>& out, void* stream,
                    Region region) {
  chosen_impl<T>(kernel_name(s), stream).launch(&s, in, out, stream, 0, region);
}

#define STRATA_INSTANTIATE(T)                                                      \
  template const std::vector<StencilImpl<T>>& stencil_impls<T>();                  \
  template const StencilImpl<T>& default_impl<T>(std::string_view);                \
  template const StencilImpl<T>& chosen_impl<T>(std::string_view, void*);          \
  template const StencilImpl<T>* find_impl<T>(std::string_view, std::string_view); \
  template void apply_interior(const Stencil&, const Field<T>&, Field<T>&, void*, Region);
STRATA_INSTANTIATE(float)
STRATA_INSTANTIATE(double)
#undef STRATA_INSTANTIATE

}  // namespace strata::cuda

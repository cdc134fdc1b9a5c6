// The GPU's side of tuning (stencil_tuning.hpp): a device's cache key, and the timer of a
// stencil family's candidate shapes that tuning/tuner.cpp drives; with them, the public
// tuning::tune and tuning::device_status.
#include <cstring>
#include <fstream>
#include <optional>
#include <sstream>
#include <vector>

#include "backend/problems.hpp"
#include "backend/stencil.hpp"
#include "cuda/check.hpp"
#include "cuda/stencil_cuda.hpp"
#include "cuda/stencil_tuning.hpp"
#include "strata/device.hpp"

namespace strata::cuda {

namespace {

// The NVIDIA driver's version as the kernel module states it ("580.159.04"): the first word
// of /proc/driver/nvidia/version made of digits and dots; else the CUDA driver API's version.
std::string driver_version() {
  std::ifstream in("/proc/driver/nvidia/version");
  std::string line;
  if (std::getline(in, line)) {
    std::istringstream words(line);
    for (std::string w; words >> w;)
      if (std::isdigit(static_cast<unsigned char>(w[0])) && w.find('.') != std::string::npos &&
          w.find_first_not_of("0123456789.") == std::string::npos)
        return w;
  }
  int v = 0;
  STRATA_CUDA_CHECK(cudaDriverGetVersion(&v));
  return "CUDA driver API " + std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10);
}

// Coefficients for the timing and the bit check: distinct and not uniform; the copies run
// the identity star, as `strata bench` runs them.
Stencil stencil_of(const std::string& kernel) {
  if (kernel == "copy" || kernel == "copy_halo")
    return Stencil::star(1, std::vector<double>{1.0, 0.0});
  if (kernel == "sym27") return Stencil::sym27(2.7, 0.13, -0.21, -0.067);
  if (kernel == "box27") {
    std::vector<double> k(27);
    for (int i = 0; i < 27; ++i) k[std::size_t(i)] = 0.04 * (i + 1) * (i % 2 ? 1.0 : -1.1);
    return Stencil::box27(k);
  }
  const int r = kernel == "7pt" ? 1 : kernel.back() - '0';
  std::vector<double> c(std::size_t(r) + 1);
  for (int i = 0; i <= r; ++i) c[std::size_t(i)] = i == 0 ? -6.1 : 1.3 / (i * i + 0.7);
  return Stencil::star(r, c);
}

template <class T>
class StencilTimer final : public tuning::CandidateTimer {
 public:
  StencilTimer(const tuning::FamilySpec& f, Extent shape, void* caller)
      : family_(f), shape_(shape), stencil_(stencil_of(f.kernel)) {
    for (const std::string& v : f.variants) {
      const StencilImpl<T>* impl = find_impl<T>(f.kernel, v);
      require(impl != nullptr, "internal: " + f.name + "'s candidate " + v + " is not compiled");
      impls_.push_back(impl);
    }
    // The caller's queued work first: it would share the device with the timed launches.
    STRATA_CUDA_CHECK(cudaStreamSynchronize(static_cast<cudaStream_t>(caller)));
    const Layout L = Layout::make(shape, kDefaultGhost, sizeof(T));
    require_device_memory(2 * L.bytes(),
                          "timing the launch shapes of " + f.name + " on " + shape.str());
    in_.emplace(shape, kDefaultGhost, Memory::device);
    out_.emplace(shape, kDefaultGhost, Memory::device);
    STRATA_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    STRATA_CUDA_CHECK(cudaEventCreate(&e0_));
    STRATA_CUDA_CHECK(cudaEventCreate(&e1_));
    fill_random(*in_, 0x7e57, stream_);  // never time on zeros
    fill_random(*out_, 0x0b5e, stream_);
  }
  ~StencilTimer() override {
    if (stream_) cudaStreamSynchronize(stream_);
    if (e0_) cudaEventDestroy(e0_);
    if (e1_) cudaEventDestroy(e1_);
    if (stream_) cudaStreamDestroy(stream_);
  }

  Extent shape() const override { return shape_; }

  std::string check_bits(int i, int reference) override {
    const Extent n{67, 45, 37};  // a partial tile on every axis
    Field<T> in(n, kDefaultGhost, Memory::device), a(n, kDefaultGhost, Memory::device),
        b(n, kDefaultGhost, Memory::device);
    fill_random(in, 0x5eed, stream_);
    fill_ghosts(in, Boundary::periodic(), stencil_.radius(), stream_);
    const std::size_t bytes = a.layout().bytes();
    STRATA_CUDA_CHECK(
        cudaMemsetAsync(a.data(), 0xff, bytes, stream_));  // NaN: unwritten points differ
    STRATA_CUDA_CHECK(cudaMemsetAsync(b.data(), 0xff, bytes, stream_));
    impls_[std::size_t(reference)]->launch(&stencil_, in, a, stream_, 0, {});
    impls_[std::size_t(i)]->launch(&stencil_, in, b, stream_, 0, {});
    std::vector<T> ha(a.layout().size), hb(b.layout().size);
    STRATA_CUDA_CHECK(cudaMemcpyAsync(ha.data(), a.data(), bytes, cudaMemcpyDeviceToHost, stream_));
    STRATA_CUDA_CHECK(cudaMemcpyAsync(hb.data(), b.data(), bytes, cudaMemcpyDeviceToHost, stream_));
    STRATA_CUDA_CHECK(cudaStreamSynchronize(stream_));
    std::size_t differ = 0;
    for (std::size_t k = 0; k < ha.size(); ++k)
      differ += std::memcmp(&ha[k], &hb[k], sizeof(T)) != 0;
    if (differ == 0) return "";
    return "its output differs from " + family_.variants[std::size_t(reference)] + "'s in " +
           std::to_string(differ) + " of " + std::to_string(ha.size()) + " values on " + n.str();
  }

  double time_ms(int i, int launches) override {
    STRATA_CUDA_CHECK(cudaEventRecord(e0_, stream_));
    for (int k = 0; k < launches; ++k)
      impls_[std::size_t(i)]->launch(&stencil_, *in_, *out_, stream_, 0, {});
    STRATA_CUDA_CHECK(cudaEventRecord(e1_, stream_));
    STRATA_CUDA_CHECK(cudaEventSynchronize(e1_));
    float ms = 0;
    STRATA_CUDA_CHECK(cudaEventElapsedTime(&ms, e0_, e1_));
    return double(ms);
  }

 private:
  const tuning::FamilySpec& family_;
  Extent shape_;
  Stencil stencil_;
  std::vector<const StencilImpl<T>*> impls_;
  std::optional<Field<T>> in_, out_;
  cudaStream_t stream_ = nullptr;
  cudaEvent_t e0_ = nullptr, e1_ = nullptr;
};

class CudaOps final : public tuning::DeviceOps {
 public:
  tuning::DeviceKey key(int device) const override {
    cudaDeviceProp p{};
    STRATA_CUDA_CHECK(cudaGetDeviceProperties(&p, device));
    int clock = 0;
    STRATA_CUDA_CHECK(cudaDeviceGetAttribute(&clock, cudaDevAttrMemoryClockRate, device));
    return {p.name,           p.totalGlobalMem,    clock, p.multiProcessorCount,
            driver_version(), tuning::strata_key()};
  }
  std::unique_ptr<tuning::CandidateTimer> timer(const tuning::FamilySpec& f, Extent shape,
                                                void* stream) const override {
    if (f.precision == Precision::f32)
      return std::make_unique<StencilTimer<float>>(f, shape, stream);
    return std::make_unique<StencilTimer<double>>(f, shape, stream);
  }
};

}  // namespace

const tuning::DeviceOps& tuning_ops() {
  static const CudaOps ops;
  return ops;
}

}  // namespace strata::cuda

namespace strata::tuning {

DeviceStatus device_status(int index) {
  require(index >= 0 && index < cuda_device_count(), "no CUDA device " + std::to_string(index));
  return device_status(cuda::tuning_ops(), index);
}

TuneReport tune(const TuneOptions& options,
                const std::function<void(const FamilyTiming&)>& on_family) {
  require(cuda_available(), "tuning measures the GPU's kernels: " + cuda_unavailable_reason());
  int device = 0;
  STRATA_CUDA_CHECK(cudaGetDevice(&device));
  return tune(cuda::tuning_ops(), device, options, on_family);
}

}  // namespace strata::tuning

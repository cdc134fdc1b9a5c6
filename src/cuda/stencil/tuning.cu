// The GPU's side of tuning (tuning.hpp): a device's cache key, and the timers of the
// stencil families' and the wave update's candidate shapes that tuning/tuner.cpp drives; with
// them, the public tuning::tune and tuning::device_status.
#include <array>
#include <cstring>
#include <fstream>
#include <optional>
#include <span>
#include <sstream>
#include <vector>

#include "backend/problems.hpp"
#include "backend/stencil.hpp"
#include "cuda/check.hpp"
#include "cuda/stencil/registry.hpp"
#include "cuda/stencil/tuning.hpp"
#include "cuda/tuning/tuner.hpp"
#include "cuda/wave/update.hpp"
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

// What every family's timer shares: its own stream (after the caller's queued work, which
// would share the device with the timed launches), an event pair, the bit comparison.
class TimerBase : public tuning::CandidateTimer {
 public:
  TimerBase(const tuning::FamilySpec& f, Extent shape, void* caller) : family_(f), shape_(shape) {
    STRATA_CUDA_CHECK(cudaStreamSynchronize(static_cast<cudaStream_t>(caller)));
    STRATA_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    STRATA_CUDA_CHECK(cudaEventCreate(&e0_));
    STRATA_CUDA_CHECK(cudaEventCreate(&e1_));
  }
  ~TimerBase() override {
    cudaStreamSynchronize(stream_);
    cudaEventDestroy(e0_);
    cudaEventDestroy(e1_);
    cudaStreamDestroy(stream_);
  }
  Extent shape() const override { return shape_; }

 protected:
  // The grid of the bit check: a partial tile on every axis.
  static constexpr Extent kCheck{67, 45, 37};

  // Device fields of `shape` with `ghost`, after checking that `count` of them fit.
  template <class T>
  void allocate(std::optional<Field<T>>* fields, int count, int ghost) {
    const Layout L = Layout::make(shape_, ghost, sizeof(T));
    require_device_memory(std::size_t(count) * L.bytes(),
                          "timing the launch shapes of " + family_.name + " on " + shape_.str());
    for (int k = 0; k < count; ++k) {
      fields[k].emplace(shape_, ghost, Memory::device);
      fill_random(Tag{}, *fields[k], 0x7e57 + std::uint64_t(k), stream_);  // never time on zeros
    }
  }

  // An output of the bit check, every byte NaN first so that an unwritten point differs.
  template <class T>
  Field<T> poisoned(int ghost) {
    Field<T> f(kCheck, ghost, Memory::device);
    STRATA_CUDA_CHECK(cudaMemsetAsync(f.data(), 0xff, f.layout().bytes(), stream_));
    return f;
  }

  // "" when a's and b's allocations hold the same bytes, else how many values differ.
  template <class T>
  std::string compare(const Field<T>& a, const Field<T>& b, int reference) {
    const std::size_t bytes = a.layout().bytes();
    std::vector<T> ha(a.layout().size), hb(b.layout().size);
    STRATA_CUDA_CHECK(cudaMemcpyAsync(ha.data(), a.data(), bytes, cudaMemcpyDeviceToHost, stream_));
    STRATA_CUDA_CHECK(cudaMemcpyAsync(hb.data(), b.data(), bytes, cudaMemcpyDeviceToHost, stream_));
    STRATA_CUDA_CHECK(cudaStreamSynchronize(stream_));
    std::size_t differ = 0;
    for (std::size_t k = 0; k < ha.size(); ++k)
      differ += std::memcmp(&ha[k], &hb[k], sizeof(T)) != 0;
    if (differ == 0) return "";
    return "its output differs from " + family_.variants[std::size_t(reference)] + "'s in " +
           std::to_string(differ) + " of " + std::to_string(ha.size()) + " values on " +
           kCheck.str();
  }

  // `launches` calls of launch() back to back between one pair of events: their time (ms).
  template <class Launch>
  double time_batch(int launches, Launch&& launch) {
    STRATA_CUDA_CHECK(cudaEventRecord(e0_, stream_));
    for (int k = 0; k < launches; ++k) launch();
    STRATA_CUDA_CHECK(cudaEventRecord(e1_, stream_));
    STRATA_CUDA_CHECK(cudaEventSynchronize(e1_));
    float ms = 0;
    STRATA_CUDA_CHECK(cudaEventElapsedTime(&ms, e0_, e1_));
    return double(ms);
  }

  const tuning::FamilySpec& family_;
  Extent shape_;
  cudaStream_t stream_ = nullptr;
  cudaEvent_t e0_ = nullptr, e1_ = nullptr;
};

// A stencil family: the registry's implementations of its kernel (registry.hpp).
template <class T>
class StencilTimer final : public TimerBase {
 public:
  StencilTimer(const tuning::FamilySpec& f, Extent shape, void* caller)
      : TimerBase(f, shape, caller), stencil_(stencil_of(f.kernel)) {
    for (const std::string& v : f.variants) {
      const StencilImpl<T>* impl = find_impl<T>(f.kernel, v);
      require(impl != nullptr, "internal: " + f.name + "'s candidate " + v + " is not compiled");
      impls_.push_back(impl);
    }
    allocate<T>(fields_, 2, kDefaultGhost);
  }

  std::string check_bits(int i, int reference) override {
    Field<T> in(kCheck, kDefaultGhost, Memory::device);
    fill_random(Tag{}, in, 0x5eed, stream_);
    fill_ghosts(Tag{}, in, Boundary::periodic(), stencil_.radius(), stream_);
    Field<T> a = poisoned<T>(kDefaultGhost), b = poisoned<T>(kDefaultGhost);
    impls_[std::size_t(reference)]->launch(&stencil_, in, a, stream_, 0, {});
    impls_[std::size_t(i)]->launch(&stencil_, in, b, stream_, 0, {});
    return compare(a, b, reference);
  }

  double time_ms(int i, int launches) override {
    return time_batch(launches, [&] {
      impls_[std::size_t(i)]->launch(&stencil_, *fields_[0], *fields_[1], stream_, 0, {});
    });
  }

 private:
  Stencil stencil_;
  std::vector<const StencilImpl<T>*> impls_;
  std::optional<Field<T>> fields_[2];  // in, out
};

// The radius-4 leapfrog update (wave/update.hpp): out = 2u - u_prev + c2 Lap(u).
template <class T>
class WaveTimer final : public TimerBase {
 public:
  WaveTimer(const tuning::FamilySpec& f, Extent shape, void* caller) : TimerBase(f, shape, caller) {
    for (const std::string& name : f.variants) {
      const WaveUpdateVariant<T>* found = nullptr;
      for (const auto& v : wave_update_variants<T>())
        if (v.radius == kRadius && v.candidate && v.name == name) found = &v;
      require(found != nullptr,
              "internal: " + f.name + "'s candidate " + name + " is not compiled");
      variants_.push_back(found);
    }
    allocate<T>(fields_, 4, kRadius);
  }

  std::string check_bits(int i, int reference) override {
    std::optional<Field<T>> in[3];  // u, u_prev, c2
    for (std::size_t k = 0; k < 3; ++k) {
      in[k].emplace(kCheck, kRadius, Memory::device);
      fill_random(Tag{}, *in[k], 0x5eed + k, stream_);
      fill_ghosts(Tag{}, *in[k], Boundary::periodic(), kRadius, stream_);
    }
    Field<T> a = poisoned<T>(kRadius), b = poisoned<T>(kRadius);
    variants_[std::size_t(reference)]->launch(star_, *in[0], *in[1], *in[2], a, stream_, 0, {});
    variants_[std::size_t(i)]->launch(star_, *in[0], *in[1], *in[2], b, stream_, 0, {});
    return compare(a, b, reference);
  }

  double time_ms(int i, int launches) override {
    return time_batch(launches, [&] {
      variants_[std::size_t(i)]->launch(star_, *fields_[0], *fields_[1], *fields_[2], *fields_[3],
                                        stream_, 0, {});
    });
  }

 private:
  static constexpr int kRadius = 4;
  static constexpr std::array<double, kRadius + 1> kCoeffs = {-7.1, 1.6, -0.21, 0.027, -0.0019};
  const std::span<const double> star_{kCoeffs};
  std::vector<const WaveUpdateVariant<T>*> variants_;
  std::optional<Field<T>> fields_[4];  // u, u_prev, c2, out
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
    const bool f32 = f.precision == Precision::f32;
    if (f.kernel == "wave4") {
      if (f32) return std::make_unique<WaveTimer<float>>(f, shape, stream);
      return std::make_unique<WaveTimer<double>>(f, shape, stream);
    }
    if (f32) return std::make_unique<StencilTimer<float>>(f, shape, stream);
    return std::make_unique<StencilTimer<double>>(f, shape, stream);
  }
};

}  // namespace

bool stream_capturing(void* stream) {
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  STRATA_CUDA_CHECK(cudaStreamIsCapturing(static_cast<cudaStream_t>(stream), &status));
  return status != cudaStreamCaptureStatusNone;
}

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

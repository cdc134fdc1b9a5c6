// What the lab's CUDA experiments share: device buffers, the benchmarks' event timer
// (bench/cuda_timing.cuh: warm-up, one event pair per launch, median), and rows from timings.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <iostream>
#include <string>
#include <utility>

#include "bench/cuda_timing.cuh"
#include "cuda/check.hpp"
#include "lab/lab.hpp"

namespace strata::lab {

// cudaMalloc'd storage of n values of T, freed on destruction (contents undefined).
template <class T>
class DeviceBuffer {
public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t n) : n_(n) { STRATA_CUDA_CHECK(cudaMalloc(&p_, n * sizeof(T))); }
  ~DeviceBuffer() { cudaFree(p_); }
  DeviceBuffer(DeviceBuffer&& o) noexcept : p_(std::exchange(o.p_, nullptr)), n_(std::exchange(o.n_, 0)) {}
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
    std::swap(p_, o.p_);
    std::swap(n_, o.n_);
    return *this;
  }
  T* get() const { return p_; }
  std::size_t size() const { return n_; }
  std::size_t bytes() const { return n_ * sizeof(T); }
  void upload(const T* host) { STRATA_CUDA_CHECK(cudaMemcpy(p_, host, bytes(), cudaMemcpyHostToDevice)); }
  void download(T* host) const { STRATA_CUDA_CHECK(cudaMemcpy(host, p_, bytes(), cudaMemcpyDeviceToHost)); }

private:
  T* p_ = nullptr;
  std::size_t n_ = 0;
};

inline std::string device_name() {
  int dev = 0;
  STRATA_CUDA_CHECK(cudaGetDevice(&dev));
  cudaDeviceProp p{};
  STRATA_CUDA_CHECK(cudaGetDeviceProperties(&p, dev));
  return p.name;
}

// A report with its heading: what ran, its unit, what ratios divide by, and this GPU.
inline Report begin_report(std::string experiment, std::string title, std::string unit, std::string reference) {
  Report r;
  r.experiment = std::move(experiment);
  r.title = std::move(title);
  r.unit = std::move(unit);
  r.reference = std::move(reference);
  r.device = device_name();
  return r;
}

// A row's times from a timing; value and ratio are the experiment's to fill.
inline void set_times(Row& row, const bench::Timing& t) {
  row.median_ms = t.median_ms;
  row.min_ms = t.min_ms;
  row.max_ms = t.max_ms;
}

// The median time of cudaMemcpy device to device of `bytes`: the machine's practical
// bandwidth limit, the reference of the bandwidth ladders (reads + writes 2 * bytes).
inline bench::Timing time_memcpy(std::size_t bytes, const Options& opt) {
  DeviceBuffer<char> a(bytes), b(bytes);
  STRATA_CUDA_CHECK(cudaMemset(a.get(), 1, bytes));
  return bench::time_launches([&] { STRATA_CUDA_CHECK(cudaMemcpyAsync(b.get(), a.get(), bytes, cudaMemcpyDeviceToDevice, nullptr)); },
                              opt.warmup, opt.reps, nullptr);
}

inline void progress(const Options& opt, const std::string& what) {
  if (!opt.quiet) std::cerr << "lab: " << what << "\n";
}

}  // namespace strata::lab

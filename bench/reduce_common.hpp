// What the CPU and GPU reduction benchmarks share: which kernels to run, the shape of a
// result row, the input values and the loop over precisions. Plain C++ only: reduce_cpu.cpp
// is built by the host compiler, reduce_cuda.cu by nvcc.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "bench/bench.hpp"

namespace strata::bench {

// Whether opt asks for `kernel` of the reduce family (no kernels named, or "reduce": all).
inline bool wanted(const Options& opt, const std::string& kernel) {
  if (opt.kernels.empty()) return true;
  for (const std::string& k : opt.kernels)
    if (k == kernel || k == "reduce") return true;
  return false;
}

// A result row of `points` values at `bytes_per_point` each, its rates set from t.
inline Result make_result(const std::string& device, const std::string& kernel,
                          const std::string& variant, Precision p, Extent shape, double points,
                          double bytes_per_point, const Timing& t) {
  Result r = result_row(device, kernel, variant, p, shape, bytes_per_point, points);
  set_rates(r, t);
  return r;
}

// The input values: in [0, 1) from a hash of the index, so reproducible, the same on both
// backends, and a sum that a lost chunk moves. constexpr, so that CUDA kernels may call it
// too (the benchmarks are built with --expt-relaxed-constexpr).
constexpr double hash01(std::uint64_t i) {
  std::uint64_t h = i * 0x9E3779B97F4A7C15ull;
  h ^= h >> 31, h *= 0xBF58476D1CE4E5B9ull, h ^= h >> 29;
  return double(h >> 11) * 0x1p-53;
}

// Calls run.template operator()<T>() for each precision opt names, in its order (f32 then
// f64 when it names none).
template <class Run>
void for_each_precision(const Options& opt, Run&& run) {
  const std::vector<Precision> ps = opt.precisions.empty()
                                        ? std::vector<Precision>{Precision::f32, Precision::f64}
                                        : opt.precisions;
  for (Precision p : ps) {
    if (p == Precision::f32)
      run.template operator()<float>();
    else
      run.template operator()<double>();
  }
}

}  // namespace strata::bench

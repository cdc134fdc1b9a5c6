// CPU reduction benchmark: the reference backend through the public API on 64 MiB inputs
// (dot reads two 32 MiB halves), a parallel copy of the same array as the bandwidth
// reference, and a Field sum over a 256^3 interior. Host clock, median of opt.reps.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include "bench/reduce.hpp"
#include "bench/reduce_common.hpp"
#include "strata/reduce.hpp"
#include "strata/vector_ops.hpp"

namespace strata::bench {

namespace {

// The benchmark's input values (hash01 of index + seed), filled in parallel.
template <class T>
void fill_input(T* v, std::size_t n, std::uint64_t seed) {
#pragma omp parallel for
  for (std::ptrdiff_t i = 0; i < std::ptrdiff_t(n); ++i) v[i] = T(hash01(std::uint64_t(i) + seed));
}

template <class T>
void run(const Options& opt, std::vector<Result>& out) {
  const Precision p = precision_of<T>;
  const std::size_t n =
      opt.shapes.empty() ? (std::size_t(64) << 20) / sizeof(T) : opt.shapes.front().points();
  const Extent field_shape = opt.shapes.empty() ? Extent{256, 256, 256} : opt.shapes.front();
  const Extent flat_shape{int(n), 1, 1};
  const double bytes = sizeof(T);
  std::vector<T> a(n), b(n);
  fill_input(a.data(), n, 1);
  if (!opt.quiet) std::cerr << "reduce (cpu, " << to_string(p) << "): " << n << " values\n";

  // The reference: a parallel copy of the same array (read + write).
  Result copy_ref = make_result(
      "cpu", "copy", "ref", p, flat_shape, double(n), 2 * bytes,
      time_host([&] { copy(a.data(), b.data(), n, Memory::host); }, opt.warmup, opt.reps));
  compare_to(copy_ref, copy_ref);  // the reference row reads ratio 1
  out.push_back(copy_ref);
  double result = 0;
  const auto add = [&](Result r, nlohmann::json extra) {
    compare_to(r, copy_ref);
    r.extra = std::move(extra);
    out.push_back(std::move(r));
  };

  if (wanted(opt, "sum")) {
    const Timing t =
        time_host([&] { result = sum(a.data(), n, Memory::host); }, opt.warmup, opt.reps);
    // Checked once, outside the timing, against a plain long-double loop.
    long double ref = 0, abs = 0;
    for (T v : a) ref += v, abs += std::fabs(v);
    const double tol = std::log2(double(n)) * std::numeric_limits<T>::epsilon() * double(abs);
    if (!(std::fabs(result - double(ref)) <= tol))
      throw Error("reduce bench (cpu): sum " + std::to_string(result) + " differs from " +
                  std::to_string(double(ref)) + " by more than " + std::to_string(tol));
    add(make_result("cpu", "sum", "ref", p, flat_shape, double(n), bytes, t),
        {{"bytes_read", double(n) * bytes}, {"value", result}});
  }
  if (wanted(opt, "dot")) {
    const std::size_t half = n / 2;  // two halves of one buffer: the same bytes read as sum
    const Timing t = time_host([&] { result = dot(a.data(), a.data() + half, half, Memory::host); },
                               opt.warmup, opt.reps);
    add(make_result("cpu", "dot", "ref", p, Extent{int(half), 1, 1}, double(half), 2 * bytes, t),
        {{"bytes_read", double(half) * 2 * bytes},
         {"inputs", "two halves of one array"},
         {"value", result}});
  }
  if (wanted(opt, "max_abs")) {
    T m = 0;
    const Timing t =
        time_host([&] { m = max_abs(a.data(), n, Memory::host); }, opt.warmup, opt.reps);
    add(make_result("cpu", "max_abs", "ref", p, flat_shape, double(n), bytes, t),
        {{"bytes_read", double(n) * bytes}, {"value", double(m)}});
  }
  if (wanted(opt, "sum")) {
    Field<T> f(field_shape);
    fill(f, T(0.5));
    const Timing t = time_host([&] { result = sum(f); }, opt.warmup, opt.reps);
    const double points = double(field_shape.points());
    add(make_result("cpu", "sum", "ref_field", p, field_shape, points, bytes, t),
        {{"bytes_read", points * bytes}, {"note", "interior bytes only"}});
  }
}

}  // namespace

std::vector<Result> reduce_cpu(const Options& opt) {
  std::vector<Result> out;
  for_each_precision(opt, [&]<class T>() { run<T>(opt, out); });
  return out;
}

}  // namespace strata::bench

// CPU stencil benchmark: the reference backend's loops, timed with a steady clock, each
// kernel against the CPU copy kernel on the same grid.
#include <cstdio>
#include <algorithm>
#include <random>

#include "bench/bench.hpp"
#include "cpu/cpu.hpp"

namespace strata::bench {

namespace {

template <class T>
void run_precision(const Options& opt, const Extent& shape, std::vector<Result>& out) {
  Field<T> in(shape), dst(shape);
  std::mt19937_64 rng(42);
  std::uniform_real_distribution<double> d(-1, 1);
  for (std::size_t i = 0; i < in.layout().size; ++i) in.data()[i] = T(d(rng));
  const auto& kernels = opt.kernels.empty() ? stencil_kernels() : opt.kernels;
  Result copy_ref;
  std::vector<Result> family;
  for (const std::string& kernel : stencil_kernels()) {
    const bool wanted = kernel == "copy" ||
                        std::find(kernels.begin(), kernels.end(), kernel) != kernels.end();
    if (!wanted || kernel == "copy_halo") continue;  // copy_halo is a GPU tiling benchmark
    const Stencil s = bench_stencil(kernel);
    Result r = result_row("cpu", kernel, "ref", precision_of<T>, shape, 2.0 * sizeof(T));
    const auto run = [&] {
      if (kernel == "copy")
        cpu::copy_interior(in, dst);
      else
        apply_interior(cpu::Tag{}, s, in, dst);
    };
    set_rates(r, time_host(run, opt.warmup, opt.reps));
    if (kernel == "copy") copy_ref = r;
    row_done(opt, r);
    family.push_back(r);
  }
  for (Result& r : family) {
    compare_to(r, copy_ref);
    out.push_back(r);
  }
}

}  // namespace

std::vector<Result> stencils_cpu(const Options& opt) {
  std::vector<Result> out;
  for_each_case(opt, {Extent{128, 128, 128}}, {Precision::f32, Precision::f64}, [&](auto tag, const Extent& shape) {
    run_precision<decltype(tag)>(opt, shape, out);
  });
  return out;
}

}  // namespace strata::bench

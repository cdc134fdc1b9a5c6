// CPU wave benchmark: the reference backend's whole step (rigid faces and free top, then
// 16-point CPML on five faces) on 128^3 by default, against the CPU copy loop of the same
// grid, host clock, median of the repetitions. Without CUDA, the GPU entry point explains.
#include <cstdio>

#include "bench/wave.hpp"
#include "cpu/cpu.hpp"
#include "strata/wave.hpp"

namespace strata::bench {

namespace {

template <class T>
void run_precision(const Options& opt, Extent shape, std::vector<Result>& out) {
  auto base = [&](const std::string& kernel, const std::string& variant, double bpp) {
    return result_row("cpu", kernel, variant, precision_of<T>, shape, bpp);
  };
  Result copy_ref = base("copy", "ref", 2.0 * sizeof(T));
  {
    Field<T> a(shape), b(shape);
    set_rates(copy_ref, time_host([&] { cpu::copy_interior(a, b); }, opt.warmup, opt.reps));
  }
  compare_to(copy_ref, copy_ref);  // the reference row reads ratio 1
  out.push_back(copy_ref);
  const int width = bench_pml_width(shape, 4);
  for (bool pml : {false, true}) {
    if (pml && width == 0) {
      if (!opt.quiet) std::fprintf(stderr, "  wave_step  CPML step skipped: %s is too small for layers\n", shape.str().c_str());
      continue;
    }
    wave::Config c;
    c.shape = shape;
    c.order = 8;
    c.precision = precision_of<T>;
    c.device = Device::cpu;
    c.steps = opt.warmup + opt.reps;
    for (auto& f : c.faces) f = pml ? wave::FaceKind::pml : wave::FaceKind::rigid;
    c.faces[wave::zmin] = wave::FaceKind::free;
    c.pml_width = pml ? width : 16;
    c.sources = {{{shape.nx * 5.0, shape.ny * 5.0, shape.nz * 5.0}, 10.0, 1.0, std::nullopt}};
    wave::Solver s(c);
    const Timing t = time_host([&] { s.advance(1); }, opt.warmup, opt.reps);
    Result r = base("wave_step", pml ? "cpml" + std::to_string(width) + "-free-top" : "rigid-free-top", 4.0 * sizeof(T));
    set_rates(r, t);
    compare_to(r, copy_ref);
    r.extra["radius"] = 4;
    row_done(opt, r);
    out.push_back(r);
  }
}

}  // namespace

std::vector<Result> wave_cpu(const Options& opt) {
  std::vector<Result> out;
  for_each_case(opt, {Extent{128, 128, 128}}, {Precision::f32}, [&](auto tag, const Extent& shape) {
    run_precision<decltype(tag)>(opt, shape, out);
  });
  return out;
}

}  // namespace strata::bench

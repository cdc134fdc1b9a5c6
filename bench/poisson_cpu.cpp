// Poisson benchmark on the CPU: the GPU's rows (bench/poisson_rows.hpp) at sizes a CPU
// solves in seconds, host clock, median of the repetitions. V(2,2) cycles on 127^3
// unknowns (fd7 and fe27 in fp32, fd7 in fp64, each with its convergence factor), the
// Dirichlet solves of 127^3 (f64 CG with f32 V-cycles and f64 multigrid to 1e-10, one fp32
// FMG pass and its error against the discrete solution, fp32 multigrid at the default
// tolerance), and the periodic 7-point problem at 128^3 solved by KissFFT (both precisions;
// skipped, saying why, in a build without the CPU FFT) and by fp32 multigrid. --size /
// --shape replace every size.
#include <cstdio>
#include <vector>

#include "bench/poisson.hpp"
#include "bench/poisson_rows.hpp"
#include "strata/device.hpp"

namespace strata::bench {

namespace {

// V-cycles timed as they run, one after another (the CPU has no graphs to replay).
template <class T>
std::function<Timing(poisson::Multigrid<T>&)> cycles(const Options& opt) {
  return [&opt](poisson::Multigrid<T>& M) {
    return time_host([&] { M.vcycle(0); }, opt.warmup, opt.reps);
  };
}

}  // namespace

std::vector<Result> poisson_cpu(const Options& opt) {
  const PoissonBenchDevice cpu{Memory::host, "cpu", {}};
  const Timer host = [&](const std::function<void()>& run) {
    return time_host(run, opt.warmup, opt.reps);
  };
  std::vector<Result> out;
  auto note = [&](const Result& r) {
    row_done(opt, r);
    out.push_back(r);
  };
  const std::vector<Extent> dirichlet =
      opt.shapes.empty() ? std::vector<Extent>{{127, 127, 127}} : opt.shapes;
  const std::vector<Extent> periodic =
      opt.shapes.empty() ? std::vector<Extent>{{128, 128, 128}} : opt.shapes;

  for (const Extent& n : dirichlet) {
    for (PoissonOperator op : {PoissonOperator::fd7, PoissonOperator::fe27})
      note(vcycle_row<float>(cpu, op, n, cycles<float>(opt),
                             poisson::kFusedSmoothingMinPoints<float>, "V(2,2)-cheb"));
    note(vcycle_row<double>(cpu, PoissonOperator::fd7, n, cycles<double>(opt),
                            poisson::kFusedSmoothingMinPoints<double>, "V(2,2)-cheb"));

    DirichletSolves solves = dirichlet_solve_rows(cpu, n, true);
    note(solves.mgcg);
    note(solves.fmg);
    for (const Result& r : solves.mg) note(r);
  }

  for (const Extent& n : periodic) {
    if (build_info().cpu_fft) {
      note(fft_row<float>(cpu, n, "kissfft", host));
      note(fft_row<double>(cpu, n, "kissfft", host));
    } else if (!opt.quiet) {
      std::fprintf(stderr, "  fft_periodic_fd7   skipped: %s\n",
                   cpu_fft_unavailable_reason().c_str());
    }
    note(periodic_mg_row(cpu, n));  // the same problem by multigrid
  }
  return out;
}

}  // namespace strata::bench

// A run on the CPU never starts CUDA. On a GPU host CUDA's start is paid by whichever process
// asks (4 x H200: `strata apply --device cpu` on a 23x17x19 array took 0.41 s, 0.13 s with no
// GPU visible), and a CPU command has no use for it: its advice that names --device cuda asks
// without starting it, and it synchronises no stream. Each case runs in a process of its own
// (the death test's "threadsafe" style runs the binary again), so what another test of this
// executable started does not count; a CPU-only machine checks the same thing (the probe is
// what would start CUDA there too).
#include <gtest/gtest.h>

#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "base/runtime.hpp"
#include "common/wave_cases.hpp"
#include "drivers/apply.hpp"
#include "drivers/poisson.hpp"
#include "strata/npy.hpp"
#include "strata/wave.hpp"

using namespace strata;

namespace {

// Runs `work` in a fresh process, which exits 0 when the work left CUDA unstarted, 2 when it
// started it, 3 when the work threw.
void expect_no_cuda_start(const std::function<void()>& work) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        int code = 0;
        try {
          work();
          code = runtime::cuda_started() ? 2 : 0;
        } catch (const std::exception& e) {
          std::fprintf(stderr, "the run failed: %s\n", e.what());
          code = 3;
        }
        std::_Exit(code);
      },
      testing::ExitedWithCode(0), "");
}

std::string write_input(const test::TempDir& dir) {
  const std::string path = dir / "in.npy";
  std::vector<float> v(23 * 17 * 19);
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = float((i * 7919) % 1013) / 101.3f - 5.0f;
  const std::vector<std::size_t> shape{23, 17, 19};
  npy_write<float>(path, v, shape);
  return path;
}

void apply_on_cpu(const std::string& grid) {
  test::TempDir dir("cpu-apply");
  drivers::ApplyRun run;
  run.in = write_input(dir);
  run.out = dir / "out.npy";
  run.device = Device::cpu;
  run.grid = grid;
  run.steps = 3;
  drivers::ApplyPlan plan = drivers::plan_apply(run);
  drivers::run_apply(plan);
}

void poisson_on_cpu(const std::string& grid) {
  drivers::PoissonRun run;
  run.n = {15, 15, 15};
  run.device = Device::cpu;
  run.grid = grid;
  run.options.method = PoissonMethod::mgcg;
  drivers::PoissonPlan plan = drivers::plan_poisson(run);
  drivers::run_poisson(plan);
}

}  // namespace

TEST(CpuRunsLeaveCuda, Apply) {
  expect_no_cuda_start([] { apply_on_cpu(""); });
}

TEST(CpuRunsLeaveCuda, ApplyOverTheRanksPath) {
  expect_no_cuda_start([] { apply_on_cpu("1x1x1"); });
}

TEST(CpuRunsLeaveCuda, Poisson) {
  expect_no_cuda_start([] { poisson_on_cpu(""); });
}

TEST(CpuRunsLeaveCuda, PoissonOverTheRanksPath) {
  expect_no_cuda_start([] { poisson_on_cpu("1x1x1"); });
}

TEST(CpuRunsLeaveCuda, Wave) {
  expect_no_cuda_start([] {
    test::TempDir dir("cpu-wave");
    wave::Config c = test::wave_config({20, 18, 16}, 4, Precision::f32, "cpu");
    c.steps = 10;
    c.snapshot_vti = c.snapshot_png = false;
    c.out_dir = dir / "out";
    wave::run(c, {});
  });
}

// The check itself can fail: asking whether CUDA can be used starts it (on a machine without
// a GPU too: the probe is what counts).
TEST(CpuRunsLeaveCuda, AskingCudaCounts) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        (void)cuda_available();
        std::_Exit(runtime::cuda_started() ? 2 : 0);
      },
      testing::ExitedWithCode(STRATA_HAVE_CUDA ? 2 : 0), "");
}

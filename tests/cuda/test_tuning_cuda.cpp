// Tuning on the GPU: every candidate of every family launches here and passes the tuner's bit
// check (strata tune refuses none), a family measured at first use runs its winner and gives
// the policy's bits, the cache holds this device's key, and nothing is measured while a stream
// is being captured. (Every candidate against the CPU reference and the policy's bits on odd
// sizes: StencilCuda.EveryImplementationAndZSplitMatchesTheReferenceAndThePolicysBits.)
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>

#include <gtest/gtest.h>

#include "common/require_gpu.hpp"
#include "common/tuning_env.hpp"
#include "common/test_util.hpp"
#include "base/runtime.hpp"
#include "cuda/tuning/cache.hpp"
#include "cuda/tuning/families.hpp"
#include "cuda/tuning/tuner.hpp"
#include "strata/apply.hpp"
#include "strata/device.hpp"
#include "strata/tuning.hpp"
#if STRATA_HAVE_CUDA
#include "cuda/stencil/registry.hpp"
#endif

using namespace strata;

namespace {

namespace fs = std::filesystem;

// A fresh tuner and cache file for each test (TuningEnv).
class TuningCuda : public ::testing::Test {
 protected:
  test::TuningEnv env_;
  const std::string& cache_ = env_.cache;
};

// The public apply_interior on the device of a host field whose ghosts are filled.
template <class T>
Field<T> apply_on_device(const Stencil& s, const Field<T>& in_filled) {
  const Extent n = in_filled.extent();
  Field<T> din(n, in_filled.ghost(), Memory::device), dout(n, in_filled.ghost(), Memory::device),
      got(n);
  copy(in_filled, din);
  apply_interior(s, din, dout);
  device_synchronize();
  copy(dout, got);
  return got;
}

}  // namespace

TEST_F(TuningCuda, EveryCandidateLaunchesHereAndPassesTheBitCheck) {
  REQUIRE_GPU();
  tuning::TuneOptions opt;
  opt.size = 256;  // every family, a grid that keeps the test short
  opt.save = false;
  const tuning::TuneReport r = tuning::tune(opt);
  EXPECT_EQ(r.families.size(), tuning::tuned_families().size());
  for (const tuning::FamilyTiming& t : r.families) {
    const tuning::FamilySpec* f = tuning::find_family(t.family);
    ASSERT_NE(f, nullptr);
    EXPECT_TRUE(f->has(t.chosen)) << t.family;
    for (const tuning::CandidateTime& c : t.candidates) {
      EXPECT_EQ(c.refused, "") << t.family << " " << c.variant;
      EXPECT_GT(c.median_ms, 0) << t.family << " " << c.variant;
      EXPECT_GE(c.rounds, tuning::Budget{}.min_rounds) << t.family << " " << c.variant;
      EXPECT_LE(c.rounds, tuning::Budget{}.max_rounds) << t.family << " " << c.variant;
    }
    // How long a family takes is a figure `strata tune` reports, not a bound asserted here:
    // on a GPU shared with the rest of the suite it measures the neighbours. The budget's
    // logic (stop after 1 s once every candidate has its rounds) is tested with a fake clock
    // in tests/core/test_tuning.cpp.
    EXPECT_GT(t.seconds, 0) << t.family;
  }
  EXPECT_FALSE(r.saved);
  EXPECT_FALSE(fs::exists(cache_));
  EXPECT_NE(r.shipped_row, "");
}

TEST_F(TuningCuda, AFamilyMeasuredAtFirstUseRunsItsWinnerWithThePolicysBits) {
  REQUIRE_GPU();
  tuning::set_mode(tuning::Mode::measure);  // measure even where a shipped row exists
  const Extent n{67, 45, 37};
  for (int r = 1; r <= 4; r += 3) {
    const Stencil s = test::random_stencil(StencilKind::star, r, 40 + r);
    Field<float> in(n);
    test::fill_random(in, 7);
    fill_ghosts(in, Boundary::neumann(), r);
    const Field<float> got = apply_on_device(s, in);
    const std::string family = tuning::family_name(s.name(), Precision::f32);
    std::optional<tuning::Choice> choice;
    for (const tuning::Choice& c : tuning::choices())
      if (c.family == family) choice = c;
    ASSERT_TRUE(choice) << family;
    EXPECT_EQ(choice->source, "measured") << family;
#if STRATA_HAVE_CUDA
    // The policy's output on the same input.
    const auto& policy = cuda::default_impl<float>(s.name());
    Field<float> din(n, in.ghost(), Memory::device), dout(n, in.ghost(), Memory::device), want(n);
    copy(in, din);
    policy.launch(&s, din, dout, nullptr, 0, {});
    device_synchronize();
    copy(dout, want);
    EXPECT_EQ(test::interior_bit_diffs(want, got), "") << family << " ran " << choice->variant;
    EXPECT_EQ(&cuda::chosen_impl<float>(s.name()),
              cuda::find_impl<float>(s.name(), choice->variant));
#endif
  }
  const tuning::CacheFile file = tuning::read_cache(cache_);
  ASSERT_EQ(file.entries.size(), 1u) << "measurements saved";
  EXPECT_EQ(file.entries[0].key.name, cuda_current_device().name);
  EXPECT_EQ(file.entries[0].key.strata, tuning::strata_key());
  EXPECT_TRUE(file.entries[0].families.count("7pt.f32"));
  EXPECT_TRUE(file.entries[0].families.count("star4.f32"));
  const tuning::DeviceStatus status = tuning::device_status(0);
  EXPECT_EQ(status.cached_families, 2);
}

TEST_F(TuningCuda, NothingIsMeasuredWhileAStreamIsCaptured) {
  REQUIRE_GPU();
  tuning::set_mode(tuning::Mode::measure);
  const Extent n{40, 30, 20};
  const Stencil s = test::random_stencil(StencilKind::box27, 1, 9);
  Field<double> in(n);
  test::fill_random(in, 3);
  fill_ghosts(in, Boundary::periodic(), 1);
  Field<double> din(n, in.ghost(), Memory::device), dout(n, in.ghost(), Memory::device), got(n),
      again(n);
  copy(in, din);
  void* stream = runtime::stream_create();
  void* graph =
      runtime::graph_capture(stream, [&] { apply_interior(s, din, dout, Stream{stream}); });
  EXPECT_TRUE(tuning::choices().empty()) << "a capture took a measurement";
  runtime::graph_launch(graph, stream);
  runtime::stream_synchronize(stream);
  copy(dout, got);
  apply_interior(s, din, dout, Stream{stream});  // not captured: measured now
  runtime::stream_synchronize(stream);
  copy(dout, again);
  ASSERT_EQ(tuning::choices().size(), 1u);
  EXPECT_EQ(tuning::choices()[0].source, "measured");
  EXPECT_EQ(test::interior_bit_diffs(got, again), "");
  runtime::graph_destroy(graph);
  runtime::stream_destroy(stream);
}

// The same through strata::apply with Dirichlet +0, whose zero-ghost pass first asks whether
// the chosen shape can read zeros: that lookup too must see the caller's captured stream.
TEST_F(TuningCuda, NothingIsMeasuredWhileAStreamIsCapturedZeroGhostApply) {
  REQUIRE_GPU();
  tuning::set_mode(tuning::Mode::measure);
  const Extent n{40, 30, 20};
  const Stencil s = test::random_stencil(StencilKind::star, 1, 10);
  Field<float> in(n);
  test::fill_random(in, 4);
  Field<float> din(n, in.ghost(), Memory::device), dout(n, in.ghost(), Memory::device);
  copy(in, din);
  void* stream = runtime::stream_create();
  void* graph = runtime::graph_capture(
      stream, [&] { apply(s, din, dout, Boundary::dirichlet(0.0), Stream{stream}); });
  EXPECT_TRUE(tuning::choices().empty()) << "a capture took a measurement";
  runtime::graph_launch(graph, stream);
  runtime::stream_synchronize(stream);
  runtime::graph_destroy(graph);
  runtime::stream_destroy(stream);
}

TEST_F(TuningCuda, OffRunsTheShippedOrPolicyShapeWithoutACacheFile) {
  REQUIRE_GPU();
  tuning::set_mode(tuning::Mode::off);
  const Extent n{33, 17, 9};
  Field<float> in(n);
  test::fill_random(in, 5);
  fill_ghosts(in, Boundary::dirichlet(0.5), 1);
  apply_on_device(Stencil::laplacian7(), in);
  ASSERT_EQ(tuning::choices().size(), 1u);
  const std::string source = tuning::choices()[0].source;
  EXPECT_TRUE(source == "shipped" || source == "nearest" || source == "policy") << source;
  EXPECT_FALSE(fs::exists(cache_));
}

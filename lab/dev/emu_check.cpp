// The lab's reduce and transpose kernels run on a CPU through lab/dev/cuda_emu.hpp, on small
// odd sizes, against plain references; and the reduce pass plan. CTest runs it (lab.emulated);
// by hand:
//   g++ -std=c++20 -O1 -pthread -I. -o /tmp/emu_check lab/dev/emu_check.cpp && /tmp/emu_check
// (about a minute; a planted bug, e.g. the swizzle dropped on one side or the tree stopped
// at 64 partials, fails here.) It checks indexing and barriers, not the GPU memory model.
#include "lab/dev/cuda_emu.hpp"

#include <algorithm>
#include <climits>
#include <cstdio>
#include <random>
#include <stdexcept>
#include <string>

#include "lab/reduce_kernels.cuh"
#include "lab/reduce_plan.hpp"
#include "lab/transpose_kernels.cuh"

using namespace strata::lab;
namespace rk = reduce_kernels;
namespace tk = transpose_kernels;

using namespace reduce_plan;
inline void require(bool ok, const char* what) {
  if (!ok) throw std::runtime_error(what);
}

static int failures = 0;
#define EXPECT(c, ...)                     \
  do {                                     \
    if (!(c)) {                            \
      ++failures;                          \
      std::printf("FAIL: " __VA_ARGS__);   \
      std::printf("\n");                   \
    }                                      \
  } while (0)

template <class In, class Acc>
void harris_pass(int v, const Pass& p, const void* in_, void* out_) {
  constexpr int B = kHarrisBlock;
  const auto* in = static_cast<const In*>(in_);
  auto* out = static_cast<Acc*>(out_);
  dim3 g(p.blocks), b(B);
  switch (v) {
    case 1: emu::launch(g, b, rk::interleaved_divergent<B, In, Acc>, in, out, p.n); break;
    case 2: emu::launch(g, b, rk::interleaved_strided<B, In, Acc>, in, out, p.n); break;
    case 3: emu::launch(g, b, rk::sequential<B, In, Acc>, in, out, p.n); break;
    case 4: emu::launch(g, b, rk::first_add<B, In, Acc>, in, out, p.n); break;
    case 5: emu::launch(g, b, rk::unroll_last_warp<B, In, Acc>, in, out, p.n); break;
    case 6: emu::launch(g, b, rk::complete_unroll<B, In, Acc>, in, out, p.n); break;
    case 7: emu::launch(g, b, rk::multiple_adds<B, In, Acc>, in, out, p.n); break;
    case 8: emu::launch(g, b, rk::shuffle<B, In, Acc>, in, out, p.n); break;
  }
}

// Runs variant v's passes; force64: int64 from the second pass on whatever the bound says.
std::int64_t run_harris(int v, const std::vector<int>& data, int cap, bool force64, int& npasses) {
  std::vector<Pass> passes = plan_passes(data.size(), v, cap);
  if (force64)
    for (std::size_t i = 0; i < passes.size(); ++i) {
      passes[i].in64 = i > 0;
      passes[i].acc64 = true;
    }
  npasses = int(passes.size());
  std::vector<long long> buf[2];
  for (auto& b : buf) b.assign(passes[0].blocks + 1, -1);
  const void* in = data.data();
  for (std::size_t p = 0; p < passes.size(); ++p) {
    void* out = buf[p % 2].data();
    if (passes[p].in64)
      harris_pass<long long, long long>(v, passes[p], in, out);
    else if (passes[p].acc64)
      harris_pass<int, long long>(v, passes[p], in, out);
    else
      harris_pass<int, int>(v, passes[p], in, out);
    in = out;
  }
  const void* out = buf[(passes.size() - 1) % 2].data();
  return passes.back().acc64 ? *static_cast<const long long*>(out) : *static_cast<const int*>(out);
}

template <class Acc>
std::int64_t run_vector(const std::vector<int>& data, int blocks, int times) {
  std::vector<long long> partials(blocks, -7), out(1, -1);
  unsigned ticket = 0;
  const rk::GridFinish f{partials.data(), &ticket, out.data()};
  std::int64_t r = 0;
  for (int t = 0; t < times; ++t) {
    out[0] = -1;
    emu::launch(dim3(blocks), dim3(256), rk::vector_grid<256, 4, Acc>, data.data(), data.size(), f);
    if (t > 0 && out[0] != r) return -99;
    r = out[0];
    if (ticket != 0) return -98;
  }
  return r;
}

int main() {
  std::mt19937 rng(42);
  // ---- reduce
  for (std::size_t n : {1, 2, 3, 4, 5, 31, 63, 127, 128, 129, 255, 256, 257, 511, 777, 1023, 4099, 33000, 70001}) {
    std::vector<int> data(n);
    std::int64_t want = 0;
    for (auto& x : data) want += (x = int(rng() & 3));
    // the vector kernel needs 16-byte alignment: std::vector<int> from new is 16-aligned here
    require(reinterpret_cast<std::uintptr_t>(data.data()) % 16 == 0, "alignment");
    for (int v = 1; v <= 8; ++v)
      for (int cap : {1, 3, 1000})
        for (bool f64 : {false, true}) {
          if (v < 7 && cap != 1000) continue;
          int np = 0;
          const std::int64_t got = run_harris(v, data, cap, f64, np);
          EXPECT(got == want, "harris %d n=%zu cap=%d f64=%d: %lld != %lld (%d passes)", v, n, cap, int(f64),
                 (long long)got, (long long)want, np);
        }
    for (int blocks : {1, 2, 5}) {
      if (n < 2000 || blocks == 5) {
        EXPECT(run_vector<int>(data, blocks, 3) == want, "vector int n=%zu blocks=%d", n, blocks);
        EXPECT(run_vector<long long>(data, blocks, 2) == want, "vector ll n=%zu blocks=%d", n, blocks);
      }
    }
    std::printf("reduce n=%zu done\n", n);
  }
  // the int64 switch of the plan
  {
    const auto p = plan_passes(std::size_t(1) << 29, 1, 0);
    bool any64 = false;
    for (auto& x : p) any64 |= x.acc64;
    EXPECT(!any64 && p.size() == 5, "2^29 plan v1: %zu passes, any64 %d", p.size(), int(any64));
    const auto q = plan_passes(std::size_t(1) << 30, 4, 0);
    EXPECT(!q[0].acc64 && q.back().acc64, "2^30 plan v4 switches to int64");
    const auto r = plan_passes(std::size_t(1) << 30, 7, 2112);
    std::printf("2^30 v7 plan:");
    for (auto& x : r) std::printf(" [n=%zu blocks=%d %d%d]", x.n, x.blocks, int(x.in64), int(x.acc64));
    std::printf("\n");
  }
  // ---- transpose
  struct S {
    int rows, cols;
  };
  for (S s : std::vector<S>{{1, 1}, {3, 5}, {5, 3}, {4, 4}, {8, 12}, {33, 1}, {64, 64}, {65, 63}, {128, 96}, {100, 256},
                            {136, 8}, {517, 517}, {1000, 777}, {776, 1000}, {1000, 1000}}) {
    const std::size_t n = std::size_t(s.rows) * s.cols;
    std::vector<float> a(n), want(n);
    for (auto& x : a) x = float(rng() % 100000) * 0.25f - 7.f;
    for (int r = 0; r < s.rows; ++r)
      for (int c = 0; c < s.cols; ++c) want[std::size_t(c) * s.rows + r] = a[std::size_t(r) * s.cols + c];
    const bool vec = s.rows % 4 == 0 && s.cols % 4 == 0;
    auto grid = [&](int cc, int rc) { return dim3((s.cols + cc - 1) / cc, (s.rows + rc - 1) / rc); };
    using Reg = tk::RegisterShape<8, 32, 2>;
    for (int v = 1; v <= 6; ++v) {
      std::vector<float> b(n, -12345.f);
      const float* A = a.data();
      float* B = b.data();
      const dim3 tg = grid(tk::kTile, tk::kTile), tb(tk::kTile, tk::kBlockRows);
      switch (v) {
        case 1: emu::launch(tg, tb, tk::naive, A, B, s.rows, s.cols); break;
        case 2: emu::launch(tg, tb, tk::tiled<0>, A, B, s.rows, s.cols); break;
        case 3: emu::launch(tg, tb, tk::tiled<1>, A, B, s.rows, s.cols); break;
        case 4:
          if (vec)
            emu::launch(grid(64, 64), dim3(256), tk::swizzled_tile<true>, A, B, s.rows, s.cols);
          else
            emu::launch(grid(64, 64), dim3(256), tk::swizzled_tile<false>, A, B, s.rows, s.cols);
          break;
        case 5:
          if (vec)
            emu::launch(grid(Reg::tile_cols, Reg::tile_rows), dim3(Reg::threads), tk::register_blocks<8, 32, 2, true>, A, B,
                        s.rows, s.cols);
          else
            emu::launch(grid(Reg::tile_cols, Reg::tile_rows), dim3(Reg::threads), tk::register_blocks<8, 32, 2, false>, A, B,
                        s.rows, s.cols);
          break;
        case 6:  // the scalar paths of 4 and 5 on every shape
          emu::launch(grid(64, 64), dim3(256), tk::swizzled_tile<false>, A, B, s.rows, s.cols);
          EXPECT(std::memcmp(b.data(), want.data(), n * 4) == 0, "transpose 4-scalar %dx%d", s.rows, s.cols);
          std::fill(b.begin(), b.end(), -12345.f);
          emu::launch(grid(Reg::tile_cols, Reg::tile_rows), dim3(Reg::threads), tk::register_blocks<8, 32, 2, false>, A, B,
                      s.rows, s.cols);
          break;
      }
      EXPECT(std::memcmp(b.data(), want.data(), n * 4) == 0, "transpose %d %dx%d vec=%d", v, s.rows, s.cols, int(vec));
    }
    std::printf("transpose %dx%d done\n", s.rows, s.cols);
  }
  std::printf("%d failures\n", failures);
  return failures != 0;
}

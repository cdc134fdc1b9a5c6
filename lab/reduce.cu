// strata-lab reduce: the sum of int32 data as the seed's ladder (004: Harris's kernels,
// seven of them, one value per block per pass, passes until one value), then a warp-shuffle
// block sum, a one-launch 16-byte streaming kernel, strata::sum and CUB, each checked
// exactly against the CPU's sum and timed against cudaMemcpy of the same bytes.
#include <cub/device/device_reduce.cuh>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "lab/cuda_lab.cuh"
#include "lab/reduce_kernels.cuh"
#include "lab/reduce_plan.hpp"
#include "lab/rotating.cuh"
#include "strata/reduce.hpp"

namespace strata::lab {

namespace {

namespace rk = reduce_kernels;
using namespace reduce_plan;

// Variant 9's shape: 256 threads, 4 independent 16-byte loads per thread per step, every
// SM filled (8 blocks of 256). Chosen by design (bytes in flight, notes below); lab/dev/sweep.cu
// times the alternatives on a GPU (not yet run: see lab/dev/README.md).
constexpr int kVecBlock = 256, kVecUnroll = 4;

struct Rung {
  const char* name;
  double seed_gbps;    // the seed's table, 2^22 ints, 128 threads (0: not in the seed)
  const char* harris;  // Harris 2007 on a G80, 2^22 ints (not in the seed)
};
constexpr Rung kRungs[] = {
    {"1 interleaved, divergent", 16.77, "8.054 ms, 2.083 GB/s"},
    {"2 interleaved, strided index", 23.88, "3.456 ms, 4.854 GB/s"},
    {"3 sequential addressing", 30.83, "1.722 ms, 9.741 GB/s"},
    {"4 first add during load", 58.03, "0.965 ms, 17.377 GB/s"},
    {"5 unroll last warp", 68.38, "0.536 ms, 31.289 GB/s"},
    {"6 complete unroll", 42.98, "0.381 ms, 43.996 GB/s"},
    {"7 multiple adds per thread", 0, "0.268 ms, 62.671 GB/s"},
    {"8 warp shuffles", 0, ""},
    {"9 int4 x4 grid-stride, 1 launch", 0, ""},
    {"10 strata::sum (f32 data)", 0, ""},
    {"11 CUB DeviceReduce::Sum", 0, ""},
};
constexpr int kHarrisLast = 8;  // 1-8 run as passes of one kernel
constexpr int kVector = 9, kStrata = 10, kCub = 11;

std::string size_label(std::size_t n) {
  for (int k = 0; k < 63; ++k)
    if (n == std::size_t(1) << k) return "2^" + std::to_string(k);
  return std::to_string(n);
}

// 0..3 from a hash of the index (never all zeros, no pattern a kernel could exploit).
std::vector<std::int32_t> make_data(std::size_t n) {
  std::vector<std::int32_t> v(n);
  for (std::size_t i = 0; i < n; ++i) {
    std::uint64_t x = (i + 1) * 0x9E3779B97F4A7C15ull;
    x ^= x >> 31, x *= 0xBF58476D1CE4E5B9ull, x ^= x >> 29;
    v[i] = std::int32_t(x & 3);
  }
  return v;
}

// ------------------------------------------------------------------ Harris's passes (1-8)

template <class In, class Acc>
void launch_harris(int v, const Pass& p, const void* in_, void* out_, cudaStream_t s) {
  constexpr int B = kHarrisBlock;
  const auto* in = static_cast<const In*>(in_);
  auto* out = static_cast<Acc*>(out_);
  switch (v) {
    case 1: rk::interleaved_divergent<B, In, Acc><<<p.blocks, B, 0, s>>>(in, out, p.n); break;
    case 2: rk::interleaved_strided<B, In, Acc><<<p.blocks, B, 0, s>>>(in, out, p.n); break;
    case 3: rk::sequential<B, In, Acc><<<p.blocks, B, 0, s>>>(in, out, p.n); break;
    case 4: rk::first_add<B, In, Acc><<<p.blocks, B, 0, s>>>(in, out, p.n); break;
    case 5: rk::unroll_last_warp<B, In, Acc><<<p.blocks, B, 0, s>>>(in, out, p.n); break;
    case 6: rk::complete_unroll<B, In, Acc><<<p.blocks, B, 0, s>>>(in, out, p.n); break;
    case 7: rk::multiple_adds<B, In, Acc><<<p.blocks, B, 0, s>>>(in, out, p.n); break;
    case 8: rk::shuffle<B, In, Acc><<<p.blocks, B, 0, s>>>(in, out, p.n); break;
    default: throw Error("lab reduce: no pass kernel " + std::to_string(v));
  }
  STRATA_CUDA_CHECK_LAUNCH();
}

void launch_pass(int v, const Pass& p, const void* in, void* out, cudaStream_t s) {
  if (p.in64)
    launch_harris<long long, long long>(v, p, in, out, s);
  else if (p.acc64)
    launch_harris<int, long long>(v, p, in, out, s);
  else
    launch_harris<int, int>(v, p, in, out, s);
}

// Resident blocks of `kernel` on the whole GPU: the fixed grids of 7, 8 and 9.
template <class Kernel>
int resident_blocks(Kernel kernel, int threads) {
  int dev = 0, sms = 0, per_sm = 0;
  STRATA_CUDA_CHECK(cudaGetDevice(&dev));
  STRATA_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  STRATA_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, 0));
  return std::max(1, sms * per_sm);
}

std::string accumulators(const std::vector<Pass>& passes) {
  std::string s;
  for (const Pass& p : passes) s += std::string(s.empty() ? "" : ",") + (p.acc64 ? "64" : "32");
  return "int" + s;  // "int32,32,32": one entry per pass
}

// ----------------------------------------------------------------------------- one size

struct SizeRun {
  const Options& opt;
  std::size_t n;
  std::int64_t expected;
  std::vector<DeviceBuffer<int>> ints;  // rotation sets of the same data
  double memcpy_rw = 0;                 // GB/s of cudaMemcpy, read + write bytes
};

// Times `launch(set)` over the rotation sets; `result()` fetches the answer of one launch.
template <class Launch, class Result>
Row measure(SizeRun& run, const std::string& name, const std::string& size, int sets, Launch&& launch,
            Result&& result, bench::Pace pace = bench::Pace::queued) {
  Row row;
  row.variant = name;
  row.size = size;
  row.extra["step"] = 0.0;  // filled by ladder_speedups; placed first among the extras
  row.extra["cumulative"] = 0.0;
  launch(0);
  STRATA_CUDA_CHECK(cudaDeviceSynchronize());
  const std::int64_t got = result();
  row.validated = got == run.expected;
  row.check = row.validated ? "exact" : "FAILED: sum " + std::to_string(got) + ", expected " + std::to_string(run.expected);
  int k = 0;
  const bench::Timing t = bench::time_launches([&] { launch(k++ % sets); }, run.opt.warmup, run.opt.reps, nullptr, pace);
  set_times(row, t);
  row.value = gbps(double(run.n) * sizeof(int), row.median_ms);
  row.ratio = run.memcpy_rw > 0 ? row.value / (run.memcpy_rw / 2) : 0;
  row.extra["vs memcpy read"] = run.memcpy_rw > 0 ? row.value / run.memcpy_rw : 0.0;
  return row;
}

void run_size(const Options& opt, std::size_t n, Report& report, std::vector<std::string>& memcpy_notes) {
  const std::string label = size_label(n);
  const std::size_t bytes = n * sizeof(int);
  const int sets = rotation_sets(bytes);
  progress(opt, "reduce " + label + " int32 (" + std::to_string(sets) + " rotating copies)");

  const std::vector<std::int32_t> host = make_data(n);
  std::int64_t expected = 0;
  for (std::int32_t x : host) expected += x;

  SizeRun run{opt, n, expected, {}, 0};
  for (int s = 0; s < sets; ++s) {
    run.ints.emplace_back(n);
    if (s == 0)
      run.ints[0].upload(host.data());
    else
      STRATA_CUDA_CHECK(cudaMemcpy(run.ints[s].get(), run.ints[0].get(), bytes, cudaMemcpyDeviceToDevice));
  }
  const bench::Timing memcpy_before = time_memcpy_rotating(bytes, opt);
  run.memcpy_rw = gbps(2.0 * bytes, memcpy_before.median_ms);

  const std::size_t first = report.rows.size();
  const std::string size = label + " int32";

  // 1-8: passes of one kernel through two ping-pong buffers of partials.
  const int cap7 = resident_blocks(rk::multiple_adds<kHarrisBlock, int, int>, kHarrisBlock);
  const int cap8 = resident_blocks(rk::shuffle<kHarrisBlock, int, int>, kHarrisBlock);
  const std::size_t most_blocks = std::max<std::size_t>(1, (n + kHarrisBlock - 1) / kHarrisBlock);
  DeviceBuffer<long long> partial[2] = {DeviceBuffer<long long>(most_blocks), DeviceBuffer<long long>(most_blocks)};
  for (int v = 1; v <= kHarrisLast; ++v) {
    const std::vector<Pass> passes = plan_passes(n, v, v == 7 ? cap7 : cap8);
    void* out = partial[(passes.size() - 1) % 2].get();
    const bool out64 = passes.back().acc64;
    auto launch = [&](int s) {
      const void* in = run.ints[s].get();
      for (std::size_t p = 0; p < passes.size(); ++p) {
        launch_pass(v, passes[p], in, partial[p % 2].get(), nullptr);
        in = partial[p % 2].get();
      }
    };
    auto result = [&] {
      long long r64 = 0;
      int r32 = 0;
      if (out64)
        STRATA_CUDA_CHECK(cudaMemcpy(&r64, out, sizeof r64, cudaMemcpyDeviceToHost));
      else
        STRATA_CUDA_CHECK(cudaMemcpy(&r32, out, sizeof r32, cudaMemcpyDeviceToHost));
      return out64 ? std::int64_t(r64) : std::int64_t(r32);
    };
    for (auto& b : partial) STRATA_CUDA_CHECK(cudaMemset(b.get(), 0xff, b.bytes()));  // poison
    Row row = measure(run, kRungs[v - 1].name, size, sets, launch, result);
    row.extra["passes"] = int(passes.size());
    row.extra["sums in"] = accumulators(passes);
    report.rows.push_back(std::move(row));
  }

  // 9: one launch, 16-byte loads, grid finish.
  {
    const auto k32 = rk::vector_grid<kVecBlock, kVecUnroll, int>;
    const auto k64 = rk::vector_grid<kVecBlock, kVecUnroll, long long>;
    const std::size_t n4 = n / 4;
    const int blocks = int(std::clamp<std::size_t>((n4 + kVecBlock - 1) / kVecBlock, 1,
                                                   std::size_t(resident_blocks(k32, kVecBlock))));
    const std::size_t stride = std::size_t(blocks) * kVecBlock;
    const std::size_t block_elems = ((n4 + stride - 1) / stride) * kVecBlock * 4 + kVecBlock;
    const bool acc64 = kMaxValue * std::int64_t(block_elems) > INT32_MAX;
    DeviceBuffer<long long> partials(blocks), out(1);
    DeviceBuffer<unsigned> ticket(1);
    STRATA_CUDA_CHECK(cudaMemset(ticket.get(), 0, ticket.bytes()));
    STRATA_CUDA_CHECK(cudaMemset(out.get(), 0xff, out.bytes()));
    const rk::GridFinish finish{partials.get(), ticket.get(), out.get()};
    auto launch = [&](int s) {
      require(reinterpret_cast<std::uintptr_t>(run.ints[s].get()) % 16 == 0, "lab reduce: data not 16-byte aligned");
      (acc64 ? k64 : k32)<<<blocks, kVecBlock>>>(run.ints[s].get(), n, finish);
      STRATA_CUDA_CHECK_LAUNCH();
    };
    auto result = [&] {
      long long r = 0;
      STRATA_CUDA_CHECK(cudaMemcpy(&r, out.get(), sizeof r, cudaMemcpyDeviceToHost));
      return std::int64_t(r);
    };
    Row row = measure(run, kRungs[kVector - 1].name, size, sets, launch, result);
    row.extra["passes"] = 1;
    row.extra["sums in"] = std::string(acc64 ? "int64" : "int32") + ", blocks int64";
    report.rows.push_back(std::move(row));
  }

  // 10: the library's sum; float data only (float and double): the same values as f32, the
  // same byte count. It accumulates in double, synchronises and copies its result to the
  // host inside every timed call.
  {
    std::vector<DeviceBuffer<float>> floats;
    {
      std::vector<float> hf(host.begin(), host.end());
      for (int s = 0; s < sets; ++s) {
        floats.emplace_back(n);
        floats.back().upload(hf.data());
      }
    }
    double got = -1;
    auto launch = [&](int s) { got = strata::sum(floats[s].get(), n, Memory::device, Stream{}); };
    auto result = [&] {  // a sum of small integers in double is exact: any other value fails
      return got == std::floor(got) && std::fabs(got) < 0x1p62 ? std::int64_t(got) : std::int64_t(-1);
    };
    Row row = measure(run, kRungs[kStrata - 1].name, label + " f32 (same bytes)", sets, launch, result,
                      bench::Pace::each);
    row.extra["passes"] = 1;
    row.extra["sums in"] = "f64 (f32 data)";
    report.rows.push_back(std::move(row));
  }

  // 11: CUB, its temporary storage allocated once, outside the timed launches.
  {
    DeviceBuffer<long long> out(1);
    auto cub_sum = [&](void* temp, std::size_t& temp_bytes, const int* in) {
      if (n <= UINT32_MAX)
        STRATA_CUDA_CHECK(cub::DeviceReduce::Sum(temp, temp_bytes, in, out.get(), std::uint32_t(n), nullptr));
      else
        STRATA_CUDA_CHECK(cub::DeviceReduce::Sum(temp, temp_bytes, in, out.get(), std::uint64_t(n), nullptr));
    };
    std::size_t temp_bytes = 0;
    cub_sum(nullptr, temp_bytes, run.ints[0].get());
    DeviceBuffer<char> temp(std::max<std::size_t>(temp_bytes, 1));
    STRATA_CUDA_CHECK(cudaMemset(out.get(), 0xff, out.bytes()));
    auto launch = [&](int s) { cub_sum(temp.get(), temp_bytes, run.ints[s].get()); };
    auto result = [&] {
      long long r = 0;
      STRATA_CUDA_CHECK(cudaMemcpy(&r, out.get(), sizeof r, cudaMemcpyDeviceToHost));
      return std::int64_t(r);
    };
    Row row = measure(run, kRungs[kCub - 1].name, size, sets, launch, result);
    row.extra["passes"] = 1;
    row.extra["sums in"] = "int64 (output type)";
    report.rows.push_back(std::move(row));
  }

  const bench::Timing memcpy_after = time_memcpy_rotating(bytes, opt);
  memcpy_notes.push_back("cudaMemcpy " + label + " ints (" + std::to_string(bytes) + " B, " + std::to_string(sets) +
                         " rotating copies): " + std::to_string(int(run.memcpy_rw + 0.5)) + " GB/s read+write before the ladder, " +
                         std::to_string(int(gbps(2.0 * bytes, memcpy_after.median_ms) + 0.5)) + " after");

  ladder_speedups(report, first, report.rows.size());
  for (std::size_t i = first; i < report.rows.size() && i - first < 7; ++i) {
    const Rung& r = kRungs[i - first];
    report.rows[i].extra["seed GB/s (2^22)"] = r.seed_gbps > 0 ? nlohmann::ordered_json(r.seed_gbps) : nlohmann::ordered_json("-");
    report.rows[i].extra["Harris G80 (2^22)"] = r.harris;
  }
  report.plot.series.push_back(bar_series(report, label + " int32", first, report.rows.size()));
  report.plot.references.push_back({{"label", "cudaMemcpy " + label + " (read+write) " + std::to_string(int(run.memcpy_rw + 0.5)) + " GB/s"},
                                    {"y", run.memcpy_rw}});
}

}  // namespace

Report run_reduce(const Options& opt) {
  Report r = begin_report("reduce",
                          "sum of int32: Harris's seven kernels, warp shuffles, 16-byte streaming, strata::sum, CUB",
                          "GB/s", "cudaMemcpy");
  r.plot.kind = "bars";
  r.plot.xlabel = "variant";
  r.plot.ylabel = "GB/s read (n x 4 bytes / time)";

  std::vector<std::size_t> sizes;
  for (std::int64_t s : opt.sizes) sizes.push_back(std::size_t(s));
  if (sizes.empty())
    sizes = opt.small ? std::vector<std::size_t>{(1u << 20) + 13, 777, 1}
                      : std::vector<std::size_t>{std::size_t(1) << 22, std::size_t(1) << 29};
  std::vector<std::string> memcpy_notes;
  for (std::size_t n : sizes) run_size(opt, n, r, memcpy_notes);

  r.notes = {
      "Data: int32 values 0..3 from a hash of the index; every variant's sum is compared exactly with the CPU's int64 sum "
      "before it is timed (outputs poisoned first).",
      "GB/s counts the bytes read once (n x 4) over the time of all passes. '/ cudaMemcpy' is cudaMemcpy's time over the "
      "variant's for the same n x 4 bytes: memcpy reads AND writes them, so a reduction at the memory limit shows about 2. "
      "'vs memcpy read' is GB/s read over cudaMemcpy's GB/s counting read+write bytes, i.e. against the DRAM traffic rate a "
      "copy sustains: about 1.0 at the memory limit (the target: >= 0.98 for the best variant at 2^29).",
      "Sums in (per pass): int32 where no block's sum can pass INT32_MAX (3 x the original elements under one block), else "
      "int64 from that pass on; at 2^29 x 0..3 every Harris pass still fits int32. 9 adds in int32 per thread and block, "
      "writes block partials as int64 and adds them in int64; 11 (CUB) accumulates in its output type, int64.",
      "Any n: every load past n reads zero (a bounds test in the load), so no padded copy is made; the seed's kernels need "
      "a power-of-two block size (128 here), never a power-of-two n.",
      "1-8 use the seed's block of 128 threads (its table peaks there for every version) and reduce to one value per block "
      "per pass, passes repeating until one value ('passes'). 7 and 8 use a fixed grid of resident blocks (SMs x "
      "occupancy), each thread adding many elements (Harris's algorithm cascading), then 2-3 small passes.",
      "5-7 unroll the last warp as Harris did, but with __syncwarp between a step's read and write: the seed's lock-step "
      "version has no barrier and is a race under Volta's independent thread scheduling.",
      "8 replaces the shared-memory tree by the second seed's warpReduceSum/blockReduceSum (__shfl_down_sync).",
      "9 (the bandwidth design): int4 loads through the read-only path, 4 independent loads per thread before the first "
      "add, consecutive threads on consecutive 16 B (512 B per warp load), a grid of exactly the resident blocks (256 "
      "threads x 8 per SM) striding over the array: 2048 threads x 64 B = 128 KiB in flight per SM, far above the ~20 "
      "KiB an H100 SM needs (3.35 TB/s x ~0.8 us / 132 SMs); the n % 4 tail as scalars; the last block to take a ticket adds the "
      "partials in block order (one launch, deterministic).",
      "10 is strata::sum (include/strata/reduce.hpp), which takes float or double only: it runs on the same values as f32, "
      "the same byte count, accumulating in double; each timed call includes its synchronisation and the 8-byte copy of "
      "the result to the host (the others leave the sum on the device).",
      "11 is cub::DeviceReduce::Sum (CCCL) into an int64, its temporary storage allocated outside the timed launches.",
      "Sizes below 3 x L2 are timed over rotating copies of the data (the memcpy reference too), so every launch reads "
      "DRAM; one event pair per launch, median of the reps.",
      "seed GB/s: the seed's own table (004) at 4M = 2^22 ints, 128 threads, device not named; it prints no times and "
      "stops at 6 (7 is named, 'not shown'). Harris G80: Harris's 2007 figures for his kernels at 2^22 ints on a G80 "
      "(86.4 GB/s peak), from his deck 'Optimizing Parallel Reduction in CUDA', not printed in the seed.",
      "On this project's H100 (stencils.md): torch.sum 3047 GB/s and CUB via CuPy 2902 GB/s on 2 GiB, beside a 2952 GB/s "
      "device-to-device copy.",
  };
  for (const std::string& m : memcpy_notes) r.notes.push_back(m);
  return r;
}

}  // namespace strata::lab

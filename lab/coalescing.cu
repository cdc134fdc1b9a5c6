// strata-lab coalescing (seed 000 "Memory coalescing", seed 003's stride sweep): a copy whose
// loads are shifted by 0..32 elements or strided by 1..32 elements, for 4-, 8- and 16-byte
// elements. One kernel for every point; GB/s of the bytes the copy asks for, against the
// aligned copy of the same width and cudaMemcpy.
#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <cstdio>
#include <string>
#include <vector>

#include "lab/cuda_lab.cuh"

namespace strata::lab {

namespace {

constexpr int kThreads = 256;
constexpr int kItems = 4;       // elements per thread: more loads in flight per thread
constexpr int kMaxShift = 32;   // offsets 0..32, strides 1..32 (elements)

// Word k of the input (4-byte words, whatever the element width): a hash in [-1, 1) with 24
// significant bits. Never NaN, so the 0xFF poison is never a valid value; neighbours differ,
// so a shifted index is caught. Host and device share it.
__host__ __device__ inline float word_value(std::uint64_t k) {
  std::uint64_t x = (k + 1) * 0x9E3779B97F4A7C15ull;
  x ^= x >> 31;
  x *= 0xBF58476D1CE4E5B9ull;
  x ^= x >> 29;
  return float(std::int32_t(x >> 40) - (1 << 23)) * 0x1.0p-23f;
}

__global__ void fill_words(float* p, std::int64_t n) {
  for (std::int64_t k = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; k < n;
       k += std::int64_t(gridDim.x) * blockDim.x)
    p[k] = word_value(std::uint64_t(k));
}

// out[i] = in[i * stride + offset] for i < n. Stores always unit-stride and aligned; only the
// loads move. A warp's k-th load covers 32 consecutive i, so the pattern seen by the memory
// system per warp instruction is exactly the one the sweep names.
template <class T>
__global__ void __launch_bounds__(kThreads)
    copy_gather(const T* __restrict__ in, T* __restrict__ out, std::int64_t n, std::int64_t stride,
                std::int64_t offset) {
  const std::int64_t first = std::int64_t(blockIdx.x) * (kThreads * kItems) + threadIdx.x;
  T v[kItems];
#pragma unroll
  for (int k = 0; k < kItems; ++k) {  // all loads first: kItems requests in flight
    const std::int64_t i = first + k * kThreads;
    if (i < n) v[k] = in[i * stride + offset];
  }
#pragma unroll
  for (int k = 0; k < kItems; ++k) {
    const std::int64_t i = first + k * kThreads;
    if (i < n) out[i] = v[k];
  }
}

std::string count_str(std::int64_t n) {
  if (n > 0 && (n & (n - 1)) == 0) return "2^" + std::to_string(std::countr_zero(std::uint64_t(n)));
  return std::to_string(n);
}

// 32-byte sectors one warp's load touches (32 lanes, element i = lane, aligned start): the
// L1/L2 transaction count; `bytes` of them are the ideal.
int sectors_per_warp(int bytes, std::int64_t stride, std::int64_t offset) {
  std::vector<std::int64_t> s;
  for (int lane = 0; lane < 32; ++lane) {
    const std::int64_t a = (lane * stride + offset) * bytes;
    s.push_back(a / 32);
    s.push_back((a + bytes - 1) / 32);
  }
  std::sort(s.begin(), s.end());
  return int(std::unique(s.begin(), s.end()) - s.begin());
}

// The words `got` (n elements of `wpe` words) that differ from the gathered input: the
// first one's element, or -1.
std::int64_t first_mismatch(const std::vector<float>& got, std::int64_t n, int wpe, std::int64_t stride,
                            std::int64_t offset, const std::vector<float>& in_words) {
  if (stride == 1) {  // a contiguous window of the host copy of the input: memcmp first
    const float* want = in_words.data() + offset * wpe;
    if (std::memcmp(got.data(), want, std::size_t(n) * wpe * sizeof(float)) == 0) return -1;
  }
  for (std::int64_t i = 0; i < n; ++i) {
    const std::int64_t src = (i * stride + offset) * wpe;
    for (int c = 0; c < wpe; ++c)
      if (std::bit_cast<std::uint32_t>(got[i * wpe + c]) != std::bit_cast<std::uint32_t>(word_value(std::uint64_t(src + c))))
        return i;
  }
  return -1;
}

// Both sweeps of one width on arrays of `words` 4-byte words: the offset sweep copies the
// whole array, the stride sweep half of it (its input spans 32x that: 4 GiB at the default).
// copy_gbps[p]: cudaMemcpy of the sweep's bytes, the rows' reference.
template <class T>
void sweep_width(const Options& opt, Report& r, std::int64_t words, const double (&copy_gbps)[2],
                 const char* type_name, int color) {
  constexpr int wpe = int(sizeof(T) / 4);
  const std::int64_t n_off = words / wpe, n_str = words / 2 / wpe;
  const std::int64_t span = std::max(n_off + kMaxShift, (n_str - 1) * kMaxShift + 1);
  DeviceBuffer<T> in{std::size_t(span)}, out{std::size_t(n_off)};
  fill_words<<<1024, 256>>>(reinterpret_cast<float*>(in.get()), span * wpe);
  STRATA_CUDA_CHECK_LAUNCH();
  std::vector<float> in_words(std::size_t(n_off + kMaxShift) * wpe);  // the offset sweep's reference
  for (std::size_t k = 0; k < in_words.size(); ++k) in_words[k] = word_value(k);
  std::vector<float> got(std::size_t(n_off) * wpe);

  for (int p = 0; p < 2; ++p) {
    const bool offset_sweep = p == 0;
    const std::int64_t n = offset_sweep ? n_off : n_str;
    const int first = offset_sweep ? 0 : 1;
    const std::string label = std::string(offset_sweep ? "offset, " : "stride, ") + std::to_string(sizeof(T)) +
                              " B (" + type_name + ")";
    progress(opt, "coalescing: " + label + ", " + count_str(n) + " elements");
    nlohmann::ordered_json series = {{"label", label}, {"panel", p}, {"color", "C" + std::to_string(color)},
                                     {"x", nlohmann::ordered_json::array()}, {"y", nlohmann::ordered_json::array()}};
    double aligned = 0;
    for (int s = first; s <= kMaxShift; ++s) {
      const std::int64_t stride = offset_sweep ? 1 : s, offset = offset_sweep ? s : 0;
      const auto launch = [&] {
        const std::int64_t blocks = (n + kThreads * kItems - 1) / (kThreads * kItems);
        copy_gather<T><<<unsigned(blocks), kThreads>>>(in.get(), out.get(), n, stride, offset);
        STRATA_CUDA_CHECK_LAUNCH();
      };
      Row row;
      row.variant = std::string(offset_sweep ? "offset " : "stride ") + std::to_string(s);
      row.size = count_str(n) + " x " + std::to_string(sizeof(T)) + " B";
      const int sectors = sectors_per_warp(int(sizeof(T)), stride, offset);
      row.extra["sectors/warp"] = std::to_string(sectors) + " of " + std::to_string(sizeof(T));
      // If DRAM moved exactly the touched sectors: requested / moved bytes, reads + writes.
      row.extra["sector model"] = 2.0 * double(sizeof(T)) / double(sectors + int(sizeof(T)));

      STRATA_CUDA_CHECK(cudaMemset(out.get(), 0xFF, std::size_t(n) * sizeof(T)));  // NaN words
      launch();
      STRATA_CUDA_CHECK(cudaMemcpy(got.data(), out.get(), std::size_t(n) * sizeof(T), cudaMemcpyDeviceToHost));
      const std::int64_t bad = first_mismatch(got, n, wpe, stride, offset, in_words);
      row.validated = bad < 0;
      row.check = row.validated ? "exact"
                                : "FAILED: out[" + std::to_string(bad) + "] != in[" +
                                      std::to_string(bad * stride + offset) + "]";
      if (row.validated) {
        set_times(row, bench::time_launches(launch, opt.warmup, opt.reps, nullptr));
        row.value = gbps(2.0 * double(n) * double(sizeof(T)), row.median_ms);  // read + write
        row.ratio = copy_gbps[p] > 0 ? row.value / copy_gbps[p] : 0;
        if (s == first) aligned = row.value;
        if (aligned > 0) row.extra["/ aligned"] = row.value / aligned;
        series["x"].push_back(s);
        series["y"].push_back(row.value);
      }
      if (sizeof(T) == 4 && offset_sweep && s <= 1)
        row.extra["seed"] = s == 0 ? "70.7 GB/s (356 us, 3M floats, cc 1.x)" : "7.2 GB/s = 0.10x (3,494 us, misaligned)";
      r.rows.push_back(std::move(row));
    }
    r.plot.series.push_back(std::move(series));
  }
}

std::string fmt(double v, int digits = 2) {
  char b[32];
  std::snprintf(b, sizeof b, "%.*f", digits, v);
  return b;
}

// "4 B worst 0.83x, mean 0.95x, at 32 0.91x; 8 B ..." over rows [0, end) of one pattern:
// the ratio to the aligned copy of the same width, shifted points only.
std::string summary(const Report& r, std::size_t end, const std::string& pattern) {
  std::string out;
  for (const char* w : {"4 B", "8 B", "16 B"}) {
    double worst = 1e30, mean = 0, at32 = 0;
    int count = 0;
    for (std::size_t i = 0; i < end; ++i) {
      const Row& row = r.rows[i];
      if (!row.validated || !row.extra.contains("/ aligned") || row.variant.rfind(pattern, 0) != 0 ||
          row.size.substr(row.size.find(" x ") + 3) != w)
        continue;
      const int s = std::stoi(row.variant.substr(pattern.size() + 1));
      if (s == (pattern == "offset" ? 0 : 1)) continue;
      const double q = row.extra["/ aligned"].get<double>();
      worst = std::min(worst, q), mean += q, ++count;
      if (s == kMaxShift) at32 = q;
    }
    if (count > 0)
      out += std::string(out.empty() ? "" : "; ") + w + " worst " + fmt(worst) + "x, mean " + fmt(mean / count) +
             "x, at 32 " + fmt(at32) + "x";
  }
  return out.empty() ? std::string("(no validated rows)") : out;
}

}  // namespace

Report run_coalescing(const Options& opt) {
  Report r = begin_report("coalescing",
                          "copy bandwidth against load misalignment (offset) and load stride, 4/8/16-byte elements",
                          "GB/s", "cudaMemcpy");

  std::vector<std::int64_t> sizes = opt.sizes;
  if (sizes.empty()) sizes.push_back(opt.small ? (1 << 16) + 3 : std::int64_t(1) << 26);
  std::size_t first_size_rows = 0;
  for (std::int64_t words : sizes) {
    if (words < 8) throw Error("strata-lab coalescing: --size is the 4-byte words per array, at least 8");
    // One reference per sweep: cudaMemcpy of the 4-byte width's bytes (the wider widths copy
    // at most 12 bytes fewer when `words` is not a multiple of 4).
    double copy_gbps[2];
    for (int p = 0; p < 2; ++p) {
      const std::size_t bytes = std::size_t(p == 0 ? words : words / 2) * 4;
      progress(opt, "coalescing: cudaMemcpy of " + std::to_string(bytes) + " bytes");
      copy_gbps[p] = gbps(2.0 * double(bytes), time_memcpy(bytes, opt).median_ms);
      r.plot.references.push_back({{"label", "cudaMemcpy " + fmt(copy_gbps[p], 0) + " GB/s" +
                                                 (sizes.size() > 1 ? " (" + count_str(words) + " words)" : "")},
                                   {"y", copy_gbps[p]}, {"panel", p}});
    }
    const std::size_t first_series = r.plot.series.size();
    sweep_width<float>(opt, r, words, copy_gbps, "float", 0);
    sweep_width<float2>(opt, r, words, copy_gbps, "float2", 1);
    sweep_width<float4>(opt, r, words, copy_gbps, "float4", 2);
    if (sizes.size() > 1)
      for (std::size_t k = first_series; k < r.plot.series.size(); ++k)
        r.plot.series[k]["label"] = r.plot.series[k]["label"].get<std::string>() + ", " + count_str(words) + " words";
    if (first_size_rows == 0) first_size_rows = r.rows.size();
  }

  r.notes = {
      "seed 000 (Micikevicius), on a compute-capability 1.x GPU: 3M floats read, incremented, written: 356 us "
      "coalesced (70.7 GB/s read+write), 357 us with some threads idle, 3,494 us misaligned or permuted (7.2 GB/s, "
      "10x slower): before cc 1.2 a half-warp that missed its aligned 64 B segment became 16 separate transactions. "
      "Seed 003 (Gelis) sweeps the stride 1..256 of a float copy (no figures in its text): with a stride a warp "
      "is no longer served by one cache line.",
      "misaligned loads, ratio to offset 0 here: " + summary(r, first_size_rows, "offset") +
          ". A shifted warp touches one more 32 B sector (column 'sectors/warp'), but the neighbouring warp reads "
          "that sector too, so L1/L2 serve it and DRAM moves the same bytes: since cc 2.x misalignment costs "
          "L1/L2 transactions, not DRAM bytes, which is why it stays far from seed 000's 10x.",
      "strided loads, ratio to stride 1: " + summary(r, first_size_rows, "stride") +
          ". Each 32 B sector fetched for a strided warp carries only 4, 8 or 16 useful bytes and no other warp "
          "uses the rest: bandwidth falls with the sector model (column 'sector model' = requested / moved bytes, "
          "reads + writes) down to one element per sector; if DRAM fetches 64 B per access it falls further. "
          "Wider elements waste less of each sector (16 B loads keep half of it at any stride >= 2).",
      "every point is one kernel (out[i] = in[i*stride + offset], " + std::to_string(kItems) +
          " elements per thread, loads before stores); GB/s = (n read + n written) * width / median time; stores "
          "are always aligned and unit-stride; equal bytes per width (--size = 4-byte words per array; the stride "
          "sweep copies half). Checked exactly, every element, against the host's gathered input.",
      "in strata: src/base/field.cpp (Layout::make) starts every interior row on a 128-byte boundary (xoff) with a "
      "pitch of a multiple of 32 elements, so a warp's row segment is whole sectors; the 2.5D stencil "
      "(src/cuda/kernels/stencil_25d.cuh) loads tile + x halo as 16-byte cp.async chunks or TMA boxes whose x "
      "halo is rounded to 16 B (HX), and walks z so every access is unit-stride in x; TMA L2 promotion is off "
      "(src/cuda/tensor_map.cpp) because widening a 16 B halo read to a 64-256 B line is the strided waste "
      "measured here; reductions use 16-byte vector loads (src/cuda/kernels/reduce.cuh).",
  };

  r.plot.kind = "lines";
  r.plot.title = "copy bandwidth: misaligned and strided loads";
  r.plot.xlabel = "offset or stride (elements)";
  r.plot.ylabel = "GB/s (read + write requested)";
  // Two panels side by side (lab/plot.py): series and references carry "panel".
  r.extra["plot_panels"] = {{{"title", "misaligned: out[i] = in[i + offset]"}, {"xlabel", "offset (elements)"}},
                            {{"title", "strided: out[i] = in[i * stride]"}, {"xlabel", "stride (elements)"}}};
  return r;
}

}  // namespace strata::lab

// strata-lab streams (seed 000 "Streams and async API", seed 003 streams and pinned memory):
// host-to-device copy, a kernel, device-to-host copy of the data split into one chunk per
// stream, with 1..8 streams, from pinned and from pageable host memory; the pipelined time
// against the sum of the three stages and against the ideal overlap of S chunks.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "lab/cuda_lab.cuh"

namespace strata::lab {

namespace {

constexpr int kStreamCounts[] = {1, 2, 3, 4, 6, 8};
constexpr int kMaxStreams = 8;
constexpr std::uint32_t kMulA = 0x9E3779B1u, kAddB = 0x7F4A7C15u;  // x -> x * a + b (mod 2^32)

// x -> x * a + b, `iters` times, per 32-bit word: a dependent chain whose length sets the
// kernel's cost. Integer arithmetic so that the host can check every word exactly in O(1):
// the iterates compose into one affine map (composed()).
__global__ void __launch_bounds__(256)
    affine_iterate(const std::uint32_t* __restrict__ in, std::uint32_t* __restrict__ out, std::int64_t n,
                   int iters, std::uint32_t a, std::uint32_t b) {
  const std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x;
  if (i >= n) return;
  std::uint32_t x = in[i];
#pragma unroll 4
  for (int k = 0; k < iters; ++k) x = x * a + b;
  out[i] = x;
}

void launch_kernel(const std::uint32_t* in, std::uint32_t* out, std::int64_t n, int iters, cudaStream_t st) {
  if (n <= 0) return;
  affine_iterate<<<unsigned((n + 255) / 256), 256, 0, st>>>(in, out, n, iters, kMulA, kAddB);
  STRATA_CUDA_CHECK_LAUNCH();
}

// The kernel's map as one affine map x -> A x + B (mod 2^32).
struct Affine {
  std::uint32_t a = 1, b = 0;
};
Affine composed(int iters) {
  Affine m;
  for (int k = 0; k < iters; ++k) m = {m.a * kMulA, m.b * kMulA + kAddB};
  return m;
}

// cudaMallocHost'd words, freed on destruction: the pinned host memory the DMA engines read
// and write directly.
class PinnedWords {
public:
  explicit PinnedWords(std::size_t n) { STRATA_CUDA_CHECK(cudaMallocHost(reinterpret_cast<void**>(&p_), n * 4)); }
  ~PinnedWords() { cudaFreeHost(p_); }
  PinnedWords(const PinnedWords&) = delete;
  PinnedWords& operator=(const PinnedWords&) = delete;
  std::uint32_t* data() const { return p_; }

private:
  std::uint32_t* p_ = nullptr;
};

// The streams (non-blocking: the legacy default stream would serialise them) and the
// events that fork them from stream 0 and join them back into it.
class Streams {
public:
  Streams() {
    for (int k = 0; k < kMaxStreams; ++k) {
      STRATA_CUDA_CHECK(cudaStreamCreateWithFlags(&s_[k], cudaStreamNonBlocking));
      STRATA_CUDA_CHECK(cudaEventCreateWithFlags(&join_[k], cudaEventDisableTiming));
    }
    STRATA_CUDA_CHECK(cudaEventCreateWithFlags(&fork_, cudaEventDisableTiming));
  }
  ~Streams() {
    for (int k = 0; k < kMaxStreams; ++k) cudaStreamDestroy(s_[k]), cudaEventDestroy(join_[k]);
    cudaEventDestroy(fork_);
  }
  Streams(const Streams&) = delete;
  Streams& operator=(const Streams&) = delete;
  cudaStream_t operator[](int k) const { return s_[k]; }

  // Enqueues the pipeline on streams 0..S-1, chunk c on stream c (H2D, kernel, D2H), all of
  // it between a fork and a join on stream 0: an event pair on stream 0 around this call
  // times the whole pipeline.
  void pipeline(int S, const std::uint32_t* h_in, std::uint32_t* h_out, std::uint32_t* d_in,
                std::uint32_t* d_out, std::int64_t n, int iters) {
    STRATA_CUDA_CHECK(cudaEventRecord(fork_, s_[0]));
    for (int k = 1; k < S; ++k) STRATA_CUDA_CHECK(cudaStreamWaitEvent(s_[k], fork_, 0));
    for (int c = 0; c < S; ++c) {
      const std::int64_t lo = n * c / S, hi = n * (c + 1) / S;
      const std::size_t bytes = std::size_t(hi - lo) * 4;
      STRATA_CUDA_CHECK(cudaMemcpyAsync(d_in + lo, h_in + lo, bytes, cudaMemcpyHostToDevice, s_[c]));
      launch_kernel(d_in + lo, d_out + lo, hi - lo, iters, s_[c]);
      STRATA_CUDA_CHECK(cudaMemcpyAsync(h_out + lo, d_out + lo, bytes, cudaMemcpyDeviceToHost, s_[c]));
    }
    for (int k = 1; k < S; ++k) {
      STRATA_CUDA_CHECK(cudaEventRecord(join_[k], s_[k]));
      STRATA_CUDA_CHECK(cudaStreamWaitEvent(s_[0], join_[k], 0));
    }
  }

private:
  cudaStream_t s_[kMaxStreams] = {};
  cudaEvent_t join_[kMaxStreams] = {}, fork_ = nullptr;
};

std::string fmt(double v, const char* f = "%.2f") {
  char b[48];
  std::snprintf(b, sizeof b, f, v);
  return b;
}

std::string bytes_str(std::int64_t b) {
  if (b >= (1 << 30) && b % (1 << 30) == 0) return std::to_string(b >> 30) + " GiB";
  if (b >= (1 << 20) && b % (1 << 20) == 0) return std::to_string(b >> 20) + " MiB";
  return std::to_string(b) + " B";
}

// One kind of host memory: its buffers and its stage times (median ms over the whole data).
struct HostKind {
  const char* name;
  const std::uint32_t* in;
  std::uint32_t* out;
  double h2d_ms = 0, d2h_ms = 0;
};

// Ideal time of S equal chunks through three stages on independent engines (copy H2D, SMs,
// copy D2H): one chunk's fill and drain, then the slowest stage.
double ideal_ms(double h, double k, double d, int S) {
  return (h + k + d) / S + (1.0 - 1.0 / S) * std::max({h, k, d});
}

}  // namespace

Report run_streams(const Options& opt) {
  Report r = begin_report("streams",
                          "H2D copy, kernel, D2H copy pipelined over 1..8 streams: pinned against pageable host memory",
                          "overlap", "ideal");

  std::vector<std::int64_t> sizes = opt.sizes;
  if (sizes.empty()) sizes.push_back(opt.small ? std::int64_t(8) << 20 : std::int64_t(1) << 30);
  std::string stage_note, result_note;
  for (std::int64_t total : sizes) {
    if (total < 4096) throw Error("strata-lab streams: --size is the bytes each way, at least 4096");
    const std::int64_t n = total / 4;  // 32-bit words
    const std::int64_t bytes = n * 4;
    const std::string size = bytes_str(bytes);
    progress(opt, "streams: host buffers, " + size + " pinned and pageable");
    Streams st;
    DeviceBuffer<std::uint32_t> d_in{std::size_t(n)}, d_out{std::size_t(n)};
    std::vector<std::uint32_t> in_v(n), out_v(n);  // pageable (touched: filled / poisoned)
    std::uint64_t h = 0x9E3779B97F4A7C15ull;
    for (std::uint32_t& w : in_v) {  // xorshift: never all zeros
      h ^= h << 13, h ^= h >> 7, h ^= h << 17;
      w = std::uint32_t(h >> 32);
    }
    std::memset(out_v.data(), 0xFF, std::size_t(bytes));
    PinnedWords in_p{std::size_t(n)}, out_p{std::size_t(n)};
    std::memcpy(in_p.data(), in_v.data(), std::size_t(bytes));
    std::memset(out_p.data(), 0xFF, std::size_t(bytes));
    HostKind kinds[2] = {{"pinned", in_p.data(), out_p.data()}, {"pageable", in_v.data(), out_v.data()}};

    // Stages alone, whole data, stream 0, each timed from an idle device.
    auto time_ms = [&](auto&& launch) {
      return bench::time_launches(launch, opt.warmup, opt.reps, st[0], bench::Pace::each).median_ms;
    };
    for (HostKind& k : kinds) {
      progress(opt, std::string("streams: H2D and D2H alone, ") + k.name);
      k.h2d_ms = time_ms([&] { STRATA_CUDA_CHECK(cudaMemcpyAsync(d_in.get(), k.in, bytes, cudaMemcpyHostToDevice, st[0])); });
      k.d2h_ms = time_ms([&] { STRATA_CUDA_CHECK(cudaMemcpyAsync(k.out, d_out.get(), bytes, cudaMemcpyDeviceToHost, st[0])); });
    }
    // The kernel's cost: iterations scaled (twice) until it takes about as long as the pinned
    // H2D copy, so that no stage dominates and overlap has something to win.
    progress(opt, "streams: calibrating the kernel to the pinned H2D time");
    int iters = 256;
    auto kernel_ms = [&](int it) { return time_ms([&] { launch_kernel(d_in.get(), d_out.get(), n, it, st[0]); }); };
    for (int step = 0; step < 2; ++step) {
      const double k = kernel_ms(iters);
      if (k <= 0) break;
      iters = int(std::clamp(std::lround(iters * kinds[0].h2d_ms / k), 1L, 1L << 20));
    }
    const double k_ms = kernel_ms(iters);
    const Affine map = composed(iters);

    for (int kind = 0; kind < 2; ++kind) {
      const HostKind& k = kinds[kind];
      const double sum = k.h2d_ms + k_ms + k.d2h_ms;
      const std::string label = std::string(k.name) + (sizes.size() > 1 ? ", " + size : "");
      const std::string color = "C" + std::to_string(kind);  // measured solid, ideal dashed
      nlohmann::ordered_json measured = {{"label", label + ", measured"}, {"color", color},
                                         {"x", nlohmann::ordered_json::array()}, {"y", nlohmann::ordered_json::array()}};
      nlohmann::ordered_json ideal = {{"label", label + ", ideal"}, {"color", color}, {"style", "dashed"},
                                      {"x", nlohmann::ordered_json::array()}, {"y", nlohmann::ordered_json::array()}};
      for (int S : kStreamCounts) {
        progress(opt, "streams: " + std::string(k.name) + ", " + std::to_string(S) + " streams");
        Row row;
        row.variant = std::string(k.name) + ", " + std::to_string(S) + (S == 1 ? " stream" : " streams");
        row.size = size;
        const auto run = [&] { st.pipeline(S, k.in, k.out, d_in.get(), d_out.get(), n, iters); };
        // Poison every place the data pass through, run once, check every word on the host.
        STRATA_CUDA_CHECK(cudaMemsetAsync(d_in.get(), 0xFF, std::size_t(bytes), st[0]));
        STRATA_CUDA_CHECK(cudaMemsetAsync(d_out.get(), 0xFF, std::size_t(bytes), st[0]));
        STRATA_CUDA_CHECK(cudaStreamSynchronize(st[0]));
        std::memset(k.out, 0xFF, std::size_t(bytes));
        run();
        STRATA_CUDA_CHECK(cudaStreamSynchronize(st[0]));  // joined: every stream is done
        std::int64_t bad = -1;
        for (std::int64_t i = 0; i < n && bad < 0; ++i)
          if (k.out[i] != map.a * k.in[i] + map.b) bad = i;
        row.validated = bad < 0;
        row.check = row.validated ? "exact"
                                  : "FAILED: word " + std::to_string(bad) + " is " + std::to_string(k.out[bad]) +
                                        ", want " + std::to_string(map.a * k.in[bad] + map.b);
        const double best = ideal_ms(k.h2d_ms, k_ms, k.d2h_ms, S);
        if (row.validated) {
          set_times(row, bench::time_launches(run, opt.warmup, opt.reps, st[0], bench::Pace::each));
          row.value = row.median_ms > 0 ? sum / row.median_ms : 0;  // achieved overlap
          row.ratio = row.median_ms > 0 ? best / row.median_ms : 0;  // = overlap / ideal overlap
          row.extra["GB/s each way"] = gbps(double(bytes), row.median_ms);
          measured["x"].push_back(S);
          measured["y"].push_back(row.median_ms);
        }
        row.extra["stages sum ms"] = sum;
        row.extra["ideal ms"] = best;
        ideal["x"].push_back(S);
        ideal["y"].push_back(best);
        r.rows.push_back(std::move(row));
      }
      r.plot.series.push_back(std::move(measured));
      r.plot.series.push_back(std::move(ideal));
    }

    r.extra["stages"].push_back({{"size_bytes", bytes}, {"kernel_ms", k_ms}, {"kernel_iterations", iters},
                                 {"pinned_h2d_ms", kinds[0].h2d_ms}, {"pinned_d2h_ms", kinds[0].d2h_ms},
                                 {"pageable_h2d_ms", kinds[1].h2d_ms}, {"pageable_d2h_ms", kinds[1].d2h_ms}});
    if (!stage_note.empty()) continue;  // the notes quote the first size
    stage_note = "stages alone on " + size + " (one stream, idle device): pinned H2D " + fmt(kinds[0].h2d_ms) + " ms (" +
                 fmt(gbps(double(bytes), kinds[0].h2d_ms), "%.1f") + " GB/s), D2H " + fmt(kinds[0].d2h_ms) + " ms (" +
                 fmt(gbps(double(bytes), kinds[0].d2h_ms), "%.1f") + " GB/s); pageable H2D " + fmt(kinds[1].h2d_ms) +
                 " ms (" + fmt(gbps(double(bytes), kinds[1].h2d_ms), "%.1f") + " GB/s), D2H " + fmt(kinds[1].d2h_ms) +
                 " ms (" + fmt(gbps(double(bytes), kinds[1].d2h_ms), "%.1f") + " GB/s); kernel " + fmt(k_ms) + " ms (" +
                 std::to_string(iters) + " dependent integer multiply-adds per word, calibrated to the pinned H2D). The host link is PCIe Gen5 x16 (64 GB/s raw per direction, about "
                 "50-55 GB/s expected pinned).";
    for (int kind = 0; kind < 2; ++kind) {
      const Row* best = nullptr;
      for (const Row& row : r.rows)
        if (row.validated && row.size == size && row.variant.rfind(kinds[kind].name, 0) == 0 &&
            (!best || row.value > best->value))
          best = &row;
      if (best)
        result_note += std::string(result_note.empty() ? "" : "; ") + kinds[kind].name + " best " + fmt(best->value) +
                       "x at " + best->variant.substr(best->variant.find(", ") + 2) + " (" + fmt(best->ratio) +
                       " of ideal)";
    }
  }

  r.notes = {
      "seed 000 (Micikevicius): a kernel and a copy overlap only if the copy is cudaMemcpyAsync from pinned memory "
      "and both are in different, non-default streams; any call to stream 0 waits for everything before it. Its "
      "multi-GPU 8th-order FD overlaps the ghost D2H / MPI / H2D with the interior kernel: 2.0x on 2 GPUs, "
      "3.6-4.05x on 4. Seed 003 (Gelis): host links of 32 to 128 GB/s each way; the legacy default stream "
      "synchronises with user streams, which may overlap copies with kernels.",
      stage_note,
      "achieved overlap = (H2D + kernel + D2H alone) / pipelined time: " +
          (result_note.empty() ? std::string("no row validated") : result_note) +
          ". The ideal for S equal chunks is (sum)/S + (1 - 1/S) * slowest stage: one chunk fills and drains the "
          "pipeline, then the slowest engine sets the pace; H2D and D2H run on separate copy engines, the kernel on "
          "the SMs.",
      "pageable memory: a D2H copy into it returns only when done and an H2D copy from it is first copied by the "
      "CPU into a driver-owned pinned buffer, so the host cannot queue chunk c+1's copy while chunk c runs: the "
      "pipeline serialises whatever the stream count (the pageable rows' overlap says how completely), and every "
      "copy pays the host memcpy (the stage times above).",
      "timing: CUDA events on stream 0 around the whole pipeline; stream 0 forks the others with an event and "
      "joins them back with one event each (so the stop event waits for every stream); median of --reps runs, "
      "each from an idle device; chunk c = words [c n/S, (c+1) n/S) goes H2D, kernel, D2H on stream c, queued "
      "chunk by chunk. Every run is checked word for word against the host's x -> A x + B.",
      "in strata: the distributed apply runs halo exchanges and the shell on a high-priority halo stream beside "
      "the interior, forked and joined with events (src/parallel/apply.cpp, struct Overlap); the wave solver does the "
      "same with its halo and shell streams (src/cuda/wave/wave.cu); device halos travel over NCCL from device buffers "
      "(src/parallel/nccl/device.cpp), never through host memory; host halo buffers for MPI are std::vector "
      "(pageable, host fields only); the one pinned buffer is the reduction's result (src/cuda/rows/reduce.cu). "
      "Snapshots (src/solvers/wave/run.cpp) are downloaded after a synchronize into a std::vector and written "
      "while the GPU waits: the pageable rows above bound that cost, the pinned ones what a double-buffered "
      "async download would hide.",
  };

  r.plot.kind = "lines";
  r.plot.title = "H2D + kernel + D2H pipelined in one chunk per stream";
  r.plot.xlabel = "streams (= chunks)";
  r.plot.ylabel = "whole pipeline time (ms, median)";
  return r;
}

}  // namespace strata::lab

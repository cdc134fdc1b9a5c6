// GPU host <-> device copies (bench/transfers.hpp). Each way is checked bit for bit before it
// is timed; whole calls on the host clock (the copies are synchronous, the staged one's host
// threads included), at most 5 timed runs (a 512^3 field is 0.5 GB a crossing).
#include <cuda_runtime.h>

#include <algorithm>
#include <cstring>
#include <string>

#include "base/device_array.hpp"
#include "base/runtime.hpp"
#include "bench/transfers.hpp"
#include "cuda/check.hpp"
#include "strata/device.hpp"
#include "strata/error.hpp"
#include "strata/field.hpp"

namespace strata::bench {

namespace {

struct PinnedHost {
  void* p = nullptr;
  explicit PinnedHost(std::size_t bytes) { STRATA_CUDA_CHECK(cudaMallocHost(&p, bytes)); }
  ~PinnedHost() { cudaFreeHost(p); }
  PinnedHost(const PinnedHost&) = delete;
  PinnedHost& operator=(const PinnedHost&) = delete;
};

template <class T>
void run_precision(const Options& opt, const Extent& shape, std::vector<Result>& out) {
  const std::size_t n = shape.points(), bytes = n * sizeof(T);
  require_device_memory(2 * bytes + Layout::make(shape, kDefaultGhost, sizeof(T)).bytes(),
                        "the " + shape.str() + " transfer benchmark");
  std::vector<T> host(n), back(n);
  for (std::size_t i = 0; i < n; ++i) host[i] = T(double(i % 1000003) * 0.25);
  DeviceArray<T> dev(n);
  Field<T> field(shape, kDefaultGhost, Memory::device);
  const Field<T> dense = Field<T>::wrap(host.data(), Layout::dense(shape, sizeof(T)), Memory::host);
  Field<T> dense_back = Field<T>::wrap(back.data(), Layout::dense(shape, sizeof(T)), Memory::host);
  PinnedHost pinned(bytes);
  const int reps = std::max(1, std::min(opt.reps, 5)), warmup = std::min(opt.warmup, 1);

  struct Way {
    const char* kernel;
    const char* variant;
    const char* what;
  };
  // A way timed; `check` (if given) reads what the copy left and returns whether it is the
  // caller's values bit for bit, before the timing. `bus`: the pinned row's GB/s of that
  // direction (0 for the pinned row itself).
  auto row = [&](const Way& w, auto&& copy, auto&& check, double bus) {
    copy();
    if (!check())
      throw Error(std::string("benchmark refused: ") + w.kernel + " " + w.variant +
                  " does not copy bit for bit");
    Result r = result_row("cuda", w.kernel, w.variant, precision_of<T>, shape, double(sizeof(T)));
    set_rates(r, time_host(copy, warmup, reps));
    r.extra["what"] = w.what;
    r.extra["bytes"] = double(bytes);
    if (bus > 0) {  // the table's ratio: over the bus's rate of the same direction
      r.ratio_to_copy = r.gb_per_s / bus;
      r.reference = "pinned";
    }
    row_done(opt, r);
    out.push_back(r);
    return r.gb_per_s;
  };
  const auto same = [&](const std::vector<T>& v) {
    return std::memcmp(v.data(), host.data(), bytes) == 0;
  };
  // What is on the device, brought back by the direct path (below the pinned buffers' size).
  const auto device_holds_host = [&] {
    std::fill(back.begin(), back.end(), T(-1));
    constexpr std::size_t piece = std::size_t(8) << 20;
    for (std::size_t at = 0; at < bytes; at += piece)
      runtime::copy_bytes(reinterpret_cast<char*>(back.data()) + at, Memory::host,
                          reinterpret_cast<const char*>(dev.get()) + at, Memory::device,
                          std::min(piece, bytes - at));
    return same(back);
  };
  const auto pinned_holds_host = [&] { return std::memcmp(pinned.p, host.data(), bytes) == 0; };
  const auto back_holds_host = [&] { return same(back); };

  // Up: from the dense host array into the device (flat) or into the padded field.
  std::memcpy(pinned.p, host.data(), bytes);
  const double up = row(
      {"h2d", "cudaMemcpy-pinned", "cudaMemcpy from pinned memory: the bus"},
      [&] { STRATA_CUDA_CHECK(cudaMemcpy(dev.get(), pinned.p, bytes, cudaMemcpyHostToDevice)); },
      device_holds_host, 0);
  row(
      {"h2d", "cudaMemcpy-pageable", "cudaMemcpy from the caller's pageable array"},
      [&] { STRATA_CUDA_CHECK(cudaMemcpy(dev.get(), host.data(), bytes, cudaMemcpyHostToDevice)); },
      device_holds_host, up);
  row(
      {"h2d", "strata-copy_bytes",
       "runtime::copy_bytes from the caller's array (DeviceArray::upload)"},
      [&] { runtime::copy_bytes(dev.get(), Memory::device, host.data(), Memory::host, bytes); },
      device_holds_host, up);
  row(
      {"h2d", "strata-copy-field", "strata::copy(dense host array -> padded device field)"},
      [&] { copy(dense, field); },
      [&] {
        std::fill(back.begin(), back.end(), T(-1));
        copy(field, dense_back);
        return same(back);
      },
      up);
  // Down: into pinned memory, then the caller's dense array.
  std::memset(pinned.p, 0, bytes);
  const double down = row(
      {"d2h", "cudaMemcpy-pinned", "cudaMemcpy into pinned memory: the bus"},
      [&] { STRATA_CUDA_CHECK(cudaMemcpy(pinned.p, dev.get(), bytes, cudaMemcpyDeviceToHost)); },
      pinned_holds_host, 0);
  std::fill(back.begin(), back.end(), T(-1));
  row(
      {"d2h", "cudaMemcpy-pageable", "cudaMemcpy into the caller's pageable array"},
      [&] { STRATA_CUDA_CHECK(cudaMemcpy(back.data(), dev.get(), bytes, cudaMemcpyDeviceToHost)); },
      back_holds_host, down);
  std::fill(back.begin(), back.end(), T(-1));
  row(
      {"d2h", "strata-copy_bytes",
       "runtime::copy_bytes into the caller's array (DeviceArray::download)"},
      [&] { runtime::copy_bytes(back.data(), Memory::host, dev.get(), Memory::device, bytes); },
      back_holds_host, down);
  std::fill(back.begin(), back.end(), T(-1));
  row(
      {"d2h", "strata-copy-field", "strata::copy(padded device field -> dense host array)"},
      [&] { copy(field, dense_back); }, back_holds_host, down);
}

}  // namespace

std::vector<Result> transfers_cuda(const Options& opt) {
  std::vector<Result> out;
  for_each_case(opt, {Extent{512, 512, 512}}, {Precision::f32}, [&](auto tag, const Extent& shape) {
    run_precision<decltype(tag)>(opt, shape, out);
  });
  return out;
}

}  // namespace strata::bench

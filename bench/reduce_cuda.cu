// GPU reduction benchmark: strata's one-pass kernels against cub::DeviceReduce in the same
// run, 2 GiB read per call (sum, max_abs: one 2 GiB array; dot: two 1 GiB arrays), with a
// 2 GiB device-to-device cudaMemcpyAsync (read + write counted) as the bandwidth reference,
// and a Field sum over a 512^3 interior (interior bytes only). CUDA events around each
// call, median of >= 20 after warm-up; each result is checked once, outside the timing.
#include <thrust/iterator/counting_iterator.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cub/device/device_reduce.cuh>
#include <cuda/functional>
#include <cuda/std/functional>
#include <iostream>
#include <limits>
#include <string>
#include <vector>

#include "base/device_array.hpp"
#include "bench/cuda_timing.cuh"
#include "bench/reduce.hpp"
#include "bench/reduce_common.hpp"
#include "cuda/check.hpp"
#include "cuda/rows/rows.hpp"
#include "strata/device.hpp"
#include "strata/reduce.hpp"

namespace strata::bench {

namespace {

// ---- inputs -----------------------------------------------------------------------------

// hash01 of the linear index (reduce_common.hpp): the flat array and the field interior
// get the same value at the same C-order index.
template <class T>
__global__ void init_flat(T* p, std::size_t n) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
       i += std::size_t(gridDim.x) * blockDim.x)
    p[i] = T(hash01(i));
}

template <class T>
__global__ void init_interior(T* origin, std::size_t nx, std::size_t ny, std::size_t nz,
                              std::ptrdiff_t pitch, std::ptrdiff_t plane) {
  const std::size_t n = nx * ny * nz;
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
       i += std::size_t(gridDim.x) * blockDim.x) {
    const std::size_t x = i % nx, y = i / nx % ny, z = i / nx / ny;
    origin[std::ptrdiff_t(z) * plane + std::ptrdiff_t(y) * pitch + std::ptrdiff_t(x)] =
        T(hash01(i));
  }
}

// ---- CUB's side ---------------------------------------------------------------------------

template <class T>
struct AbsOp {
  __device__ T operator()(T v) const { return v < T(0) ? -v : v; }
};

template <class T, class Acc>
struct DotTerm {
  const T* a;
  const T* b;
  __device__ Acc operator()(std::size_t i) const { return Acc(a[i]) * Acc(b[i]); }
};

// The three CUB reductions the benchmark times (accumulating in T, CUB's default) and the
// double-accumulating ones its results are checked against. tmp == nullptr: size query.
enum class CubOp { sum, dot, max_abs, sum_in_double, dot_in_double };

template <class T>
struct Cub {
  const T* in;
  std::size_t n, half;
  T* out_t;
  double* out_d;

  cudaError_t run(CubOp op, void* tmp, std::size_t& bytes, cudaStream_t s) const {
    const thrust::counting_iterator<std::size_t> index(0);
    switch (op) {
      case CubOp::sum:
        return cub::DeviceReduce::Sum(tmp, bytes, in, out_t, n, s);
      case CubOp::dot:
        return cub::DeviceReduce::TransformReduce(tmp, bytes, index, out_t, half,
                                                  ::cuda::std::plus<>{},
                                                  DotTerm<T, T>{in, in + half}, T(0), s);
      case CubOp::max_abs:
        return cub::DeviceReduce::TransformReduce(tmp, bytes, in, out_t, n, ::cuda::maximum<>{},
                                                  AbsOp<T>{}, T(0), s);
      case CubOp::sum_in_double:
        return cub::DeviceReduce::Reduce(tmp, bytes, in, out_d, n, ::cuda::std::plus<>{}, 0.0, s);
      case CubOp::dot_in_double:
        return cub::DeviceReduce::TransformReduce(tmp, bytes, index, out_d, half,
                                                  ::cuda::std::plus<>{},
                                                  DotTerm<T, double>{in, in + half}, 0.0, s);
    }
    return cudaErrorInvalidValue;
  }
};

// ---- plumbing -------------------------------------------------------------------------------

// Raw bytes on the device, viewed as T (the input, its copy, CUB's scratch and results).
struct DeviceBytes {
  DeviceArray<std::byte> bytes;
  DeviceBytes(std::size_t n, const std::string& what) {
    require_device_memory(n, what);
    bytes = DeviceArray<std::byte>(n);
  }
  template <class T>
  T* as() const {
    return reinterpret_cast<T*>(bytes.get());
  }
};

struct OwnedStream {
  cudaStream_t s = nullptr;
  OwnedStream() { STRATA_CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking)); }
  ~OwnedStream() { cudaStreamDestroy(s); }
  OwnedStream(const OwnedStream&) = delete;
  OwnedStream& operator=(const OwnedStream&) = delete;
};

// Events around each call, the stream drained after each: the device time of that call
// alone (nothing printed inside).
template <class F>
Timing time_events(const Options& opt, cudaStream_t s, F&& launch) {
  return time_launches(launch, opt.warmup, std::max(opt.reps, 20), s, Pace::each);
}

// Host clock around a whole synchronous public-API call (launch, result copy, sync).
template <class F>
double api_median_ms(const Options& opt, F&& call) {
  call();
  std::vector<double> ms;
  for (int i = 0; i < std::max(opt.reps, 20); ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    call();
    ms.push_back(
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  return summarize(ms).median_ms;
}

template <class T>
T fetch(const T* p) {
  T v{};
  STRATA_CUDA_CHECK(cudaMemcpy(&v, p, sizeof(T), cudaMemcpyDeviceToHost));
  return v;
}

void check(bool ok, const std::string& what) {
  if (!ok) throw Error("reduce bench (cuda): " + what);
}

// ---- one precision --------------------------------------------------------------------------

template <class T>
void run(const Options& opt, std::vector<Result>& out) {
  const Precision p = precision_of<T>;
  const std::size_t n =
      opt.shapes.empty() ? (std::size_t(2) << 30) / sizeof(T) : opt.shapes.front().points();
  const std::size_t half = n / 2;
  const Extent field_shape = opt.shapes.empty() ? Extent{512, 512, 512} : opt.shapes.front();
  const double eps = std::numeric_limits<T>::epsilon(), tsize = sizeof(T);
  const double log2n = std::log2(std::max(double(n), 2.0));
  if (!opt.quiet)
    std::cerr << "reduce (cuda, " << to_string(p) << "): " << n << " values, "
              << double(n) * tsize / double(1u << 30) << " GiB per call\n";

  DeviceBytes a(n * sizeof(T), "reduce bench input"), b(n * sizeof(T), "reduce bench copy");
  DeviceBytes outs(64, "reduce bench results");
  OwnedStream st;
  cuda::Workspace ws;
  init_flat<<<1024, 256, 0, st.s>>>(a.as<T>(), n);
  STRATA_CUDA_CHECK_LAUNCH();

  const Cub<T> cub_ops{a.as<const T>(), n, half, outs.as<T>(), outs.as<double>() + 1};
  std::size_t tmp_bytes = 0;
  for (CubOp op :
       {CubOp::sum, CubOp::dot, CubOp::max_abs, CubOp::sum_in_double, CubOp::dot_in_double}) {
    std::size_t bytes = 0;
    STRATA_CUDA_CHECK(cub_ops.run(op, nullptr, bytes, st.s));
    tmp_bytes = std::max(tmp_bytes, bytes);
  }
  DeviceBytes tmp(std::max<std::size_t>(tmp_bytes, 16), "CUB temp storage");  // once, untimed
  const auto run_cub = [&](CubOp op) {
    std::size_t bytes = tmp_bytes;
    STRATA_CUDA_CHECK(cub_ops.run(op, tmp.as<void>(), bytes, st.s));
  };

  const RowShape flat{n, 1, 1}, halves{half, 1, 1};
  const Strided<const T> whole{a.as<const T>(), 0, 0}, second{a.as<const T>() + half, 0, 0};
  const auto run_strata = [&](cuda::ReduceKind kind, const RowShape& s,
                              Strided<const T> x, Strided<const T> y) {
    cuda::enqueue_reduce<T>(kind, s, x, y, ws, st.s);
  };

  // The bandwidth reference: 2 GiB device-to-device copy (n points of 2*sizeof(T) bytes).
  const Timing tcopy = time_events(opt, st.s, [&] {
    STRATA_CUDA_CHECK(cudaMemcpyAsync(b.as<void>(), a.as<void>(), n * sizeof(T), cudaMemcpyDeviceToDevice, st.s));
  });
  Result copy =
      make_result("cuda", "copy", "memcpy", p, Extent{int(n), 1, 1}, double(n), 2 * tsize, tcopy);
  compare_to(copy, copy);  // the reference row reads ratio 1
  out.push_back(copy);

  // strata and CUB for one kernel; the strata row carries ratio_to_cub.
  const auto pair = [&](const std::string& kernel, Extent shape, double points, double bpp,
                        const Timing& ts, const Timing& tc, nlohmann::json extra) {
    Result s = make_result("cuda", kernel, "strata", p, shape, points, bpp, ts);
    Result c = make_result("cuda", kernel, "cub", p, shape, points, bpp, tc);
    compare_to(s, copy);
    compare_to(c, copy);
    extra["bytes_read"] = points * bpp;
    extra["ratio_to_cub"] = c.gb_per_s > 0 ? s.gb_per_s / c.gb_per_s : 0.0;
    s.extra = extra;
    c.extra = {{"bytes_read", points * bpp}, {"accumulator", to_string(p)}};
    out.push_back(s);
    out.push_back(c);
  };

  T max_abs_value = 1;
  if (wanted(opt, "max_abs")) {
    const Timing ts =
        time_events(opt, st.s, [&] { run_strata(cuda::ReduceKind::max_abs, flat, whole, whole); });
    const T mine = T(ws.fetch(st.s).hi);
    const Timing tc = time_events(opt, st.s, [&] { run_cub(CubOp::max_abs); });
    STRATA_CUDA_CHECK(cudaStreamSynchronize(st.s));
    const T theirs = fetch(outs.as<T>());
    check(mine == theirs,
          "max_abs " + std::to_string(mine) + " but CUB says " + std::to_string(theirs));
    max_abs_value = mine;
    const double api = api_median_ms(
        opt, [&] { (void)max_abs(a.as<const T>(), n, Memory::device, Stream{st.s}); });
    pair("max_abs", Extent{int(n), 1, 1}, double(n), tsize, ts, tc,
         {{"value", double(mine)}, {"api_median_ms", api}});
  }
  // Check tolerance: the documented bound with sum |x| <= n * max_abs.
  const auto tol = [&](std::size_t m) { return log2n * eps * double(m) * double(max_abs_value); };
  double flat_sum = 0;
  if (wanted(opt, "sum")) {
    const Timing ts =
        time_events(opt, st.s, [&] { run_strata(cuda::ReduceKind::sum, flat, whole, whole); });
    flat_sum = ws.fetch(st.s).value;
    const Timing tc = time_events(opt, st.s, [&] { run_cub(CubOp::sum); });
    run_cub(CubOp::sum_in_double);
    STRATA_CUDA_CHECK(cudaStreamSynchronize(st.s));
    const double ref = fetch(outs.as<double>() + 1);
    check(std::fabs(flat_sum - ref) <= tol(n),
          "sum " + std::to_string(flat_sum) + " but CUB (double) says " + std::to_string(ref));
    const double api =
        api_median_ms(opt, [&] { (void)sum(a.as<const T>(), n, Memory::device, Stream{st.s}); });
    pair("sum", Extent{int(n), 1, 1}, double(n), tsize, ts, tc,
         {{"value", flat_sum}, {"cub_double", ref}, {"api_median_ms", api}});
  }
  if (wanted(opt, "dot")) {
    const Timing ts =
        time_events(opt, st.s, [&] { run_strata(cuda::ReduceKind::dot, halves, whole, second); });
    const double mine = ws.fetch(st.s).value;
    const Timing tc = time_events(opt, st.s, [&] { run_cub(CubOp::dot); });
    run_cub(CubOp::dot_in_double);
    STRATA_CUDA_CHECK(cudaStreamSynchronize(st.s));
    const double ref = fetch(outs.as<double>() + 1);
    check(std::fabs(mine - ref) <= tol(half) * double(max_abs_value),
          "dot " + std::to_string(mine) + " but CUB (double) says " + std::to_string(ref));
    pair("dot", Extent{int(half), 1, 1}, double(half), 2 * tsize, ts, tc,
         {{"value", mine}, {"cub_double", ref}, {"inputs", "two 1 GiB arrays (2 GiB read)"}});
  }
  if (wanted(opt, "sum")) {
    // Field sum: NaN in every ghost and padding byte (a stray read would show), the same
    // values as the flat array's first points() in the interior.
    Field<T> f(field_shape, kDefaultGhost, Memory::device);
    STRATA_CUDA_CHECK(cudaMemsetAsync(f.data(), 0xFF, f.layout().bytes(), st.s));
    const Layout& L = f.layout();
    const std::size_t m = field_shape.points();
    init_interior<<<1024, 256, 0, st.s>>>(f.origin(), std::size_t(field_shape.nx),
                                          std::size_t(field_shape.ny), std::size_t(field_shape.nz),
                                          L.pitch, L.plane);
    STRATA_CUDA_CHECK_LAUNCH();
    const RowShape shape{std::size_t(field_shape.nx), std::size_t(field_shape.ny),
                               std::size_t(field_shape.nz)};
    const Strided<const T> field{f.origin(), L.pitch, L.plane};
    const Timing ts =
        time_events(opt, st.s, [&] { run_strata(cuda::ReduceKind::sum, shape, field, field); });
    const double mine = ws.fetch(st.s).value;
    if (m <= n) {
      run_strata(cuda::ReduceKind::sum, RowShape{m, 1, 1}, whole, whole);
      const double ref = ws.fetch(st.s).value;
      check(std::fabs(mine - ref) <= 2 * tol(m),
            "field sum " + std::to_string(mine) + " but the flat sum says " + std::to_string(ref));
    }
    Result r = make_result("cuda", "sum", "strata_field", p, field_shape, double(m), tsize, ts);
    compare_to(r, copy);
    r.extra = {{"bytes_read", double(m) * tsize},
               {"value", mine},
               {"note", "interior bytes only; ghosts and row padding are not counted"}};
    out.push_back(r);
  }
}

}  // namespace

std::vector<Result> reduce_cuda(const Options& opt) {
  require(cuda_available(), "strata bench --kernel reduce: " + cuda_unavailable_reason());
  std::vector<Result> out;
  for_each_precision(opt, [&]<class T>() { run<T>(opt, out); });
  return out;
}

}  // namespace strata::bench

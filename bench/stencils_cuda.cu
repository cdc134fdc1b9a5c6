// GPU stencil benchmark: every kernel (and, on request, every compiled tile variant) is
// first checked against the CPU reference on an odd-sized grid, then timed on the large
// grid and compared with the 2.5D copy kernel and cudaMemcpy measured in the same run.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <type_traits>
#include <vector>

#include "base/device_array.hpp"
#include "bench/cuda_timing.cuh"
#include "bench/tune_report.hpp"
#include "verify/stencil_check.hpp"
#include "cuda/stencil/registry.hpp"
#include "cuda/tuning/families.hpp"
#include "strata/apply.hpp"
#include "strata/device.hpp"

namespace strata::bench {

namespace {

// Diagnostic: the interior copied row by row with 16-byte vectors, no tiling and no shared
// memory. It tells whether a gap to cudaMemcpy comes from the 2.5D tiling or from the
// padded row layout itself.
template <class T>
__global__ void copy_rows(const T* __restrict__ in, T* __restrict__ out, std::int64_t pitch,
                          std::int64_t plane, int nx, int ny, int nz) {
  constexpr int V = 16 / sizeof(T);
  using Vec = std::conditional_t<sizeof(T) == 4, float4, double2>;
  const std::int64_t rows = std::int64_t(ny) * nz;
  const int vecs = nx / V;
  for (std::int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    const std::int64_t off = (r / ny) * plane + (r % ny) * pitch;
    const Vec* src = reinterpret_cast<const Vec*>(in + off);
    Vec* dst = reinterpret_cast<Vec*>(out + off);
    for (int i = threadIdx.x; i < vecs; i += blockDim.x) dst[i] = src[i];
    for (int x = vecs * V + threadIdx.x; x < nx; x += blockDim.x) out[off + x] = in[off + x];
  }
}

// Runs impl on a 67x45x37 grid (partial tiles on every axis) with Neumann ghosts and
// checks every point against the CPU reference; poisoned output, so unwritten points fail.
template <class T>
verify::Mismatch validate(const cuda::StencilImpl<T>& impl, const Stencil& s) {
  const Extent n{67, 45, 37};
  Field<T> in(n), got(n);
  for (std::size_t i = 0; i < in.layout().size; ++i)
    in.data()[i] = T(std::sin(0.37 * double(i)) + 0.25 * std::cos(0.011 * double(i)));
  fill_ghosts(in, Boundary::neumann(), s.radius());
  Field<T> din(n, in.ghost(), Memory::device), dout(n, in.ghost(), Memory::device);
  copy(in, din);
  for (std::size_t i = 0; i < got.layout().size; ++i) got.data()[i] = std::numeric_limits<T>::quiet_NaN();
  copy(got, dout);
  impl.launch(&s, din, dout, nullptr, 0, {});
  STRATA_CUDA_CHECK(cudaDeviceSynchronize());
  copy(dout, got);
  return verify::against_reference(s, in, got);
}

// strata::copy from a dense device array (wrapped at one element past an aligned start, so
// the kernel's 4- or 8-byte path) into a padded field on a 67x45x37 grid, checked bit for bit
// through the host; the timed row below copies 16-byte vectors.
template <class T>
bool copy_layouts_agrees() {
  const Extent n{67, 45, 37};
  std::vector<T> values(n.points() + 1);
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = T(std::sin(0.37 * double(i)));
  DeviceArray<T> dense(values);
  const Field<T> src = Field<T>::wrap(dense.get() + 1, Layout::dense(n, sizeof(T)), Memory::device);
  Field<T> dst(n, kDefaultGhost, Memory::device), host(n, kDefaultGhost);
  copy(src, dst);
  copy(dst, host);
  for (int z = 0; z < n.nz; ++z)
    for (int y = 0; y < n.ny; ++y)
      for (int x = 0; x < n.nx; ++x)
        if (host(x, y, z) != values[1 + (std::size_t(z) * n.ny + y) * n.nx + x]) return false;
  return true;
}

template <class T>
void run_precision(const Options& opt, const Extent& shape, std::vector<Result>& out) {
  const Layout L = Layout::make(shape, kDefaultGhost, sizeof(T));
  require_device_memory(2 * L.bytes(), "the " + shape.str() + " " + to_string(precision_of<T>) +
                                           " stencil benchmark (input and output fields)");
  Field<T> in(shape, kDefaultGhost, Memory::device), dst(shape, kDefaultGhost, Memory::device);
  cudaStream_t stream = nullptr;
  fill_device_random(in.data(), L.size, 0x5eed, stream);
  fill_device_random(dst.data(), L.size, 0xbeef, stream);
  STRATA_CUDA_CHECK(cudaDeviceSynchronize());

  auto base = [&](const std::string& kernel, const std::string& variant) {
    return result_row("cuda", kernel, variant, precision_of<T>, shape, 2.0 * sizeof(T));
  };

  // cudaMemcpy of the whole allocation: the device's own copy, for reference.
  Result memcpy_r = base("memcpy", "cudaMemcpy");
  memcpy_r.points = double(L.size);
  set_rates(memcpy_r, time_launches([&] {
              STRATA_CUDA_CHECK(cudaMemcpyAsync(dst.data(), in.data(), L.bytes(),
                                                cudaMemcpyDeviceToDevice, stream));
            }, opt.warmup, opt.reps, stream));

  // A block a row: the row copy of this layout, at what the hardware's block scheduler makes
  // of it (on an H200 0.99 of cudaMemcpy, where 16 looping blocks an SM made 0.90).
  Result flat = base("copy_flat", "rows-16B-block-a-row");
  const int flat_blocks = int(std::min<std::int64_t>(std::int64_t(shape.ny) * shape.nz,
                                                     std::numeric_limits<int>::max()));
  set_rates(flat, time_launches([&] {
              copy_rows<<<flat_blocks, 128, 0, stream>>>(in.origin(), dst.origin(), L.pitch, L.plane,
                                                     shape.nx, shape.ny, shape.nz);
              STRATA_CUDA_CHECK_LAUNCH();
            }, opt.warmup, opt.reps, stream));
  flat.extra["diagnostic"] = true;
  flat.extra["ratio_to_memcpy"] = flat.gb_per_s / memcpy_r.gb_per_s;

  // strata::copy from a dense device array (a CuPy or PyTorch array, as the Python functions
  // copy it in) into the padded field: runtime::copy_3d's pitched copy kernel.
  if (!copy_layouts_agrees<T>())
    throw Error(std::string("benchmark refused: strata::copy from a dense device array to a padded field (") +
                to_string(precision_of<T>) + ") does not copy bit for bit");
  Result layouts = base("copy_layouts", "dense->padded");
  {
    require_device_memory(shape.points() * sizeof(T), "the dense array of the copy_layouts row");
    DeviceArray<T> dense_data(shape.points());
    fill_device_random(dense_data.get(), shape.points(), 0xd15e, stream);
    const Field<T> dense = Field<T>::wrap(dense_data.get(), Layout::dense(shape, sizeof(T)), Memory::device);
    set_rates(layouts, time_launches([&] { copy(dense, dst); }, opt.warmup, opt.reps, stream));
  }
  layouts.extra["diagnostic"] = true;
  layouts.extra["what"] = "strata::copy(dense device array -> padded field): the copy between layouts "
                          "(pitched copy kernel) the Python functions make of a CuPy/PyTorch input; the "
                          "time includes the copy's own wait for completion, as a caller sees it";
  layouts.extra["ratio_to_memcpy"] = layouts.gb_per_s / memcpy_r.gb_per_s;

  const auto& kernels = opt.kernels.empty() ? stencil_kernels() : opt.kernels;
  std::vector<Result> family;
  Result copy_ref;
  for (const std::string& kernel : stencil_kernels()) {
    const bool wanted = kernel == "copy" ||
                        std::find(kernels.begin(), kernels.end(), kernel) != kernels.end();
    if (!wanted) continue;
    const Stencil s = bench_stencil(kernel);
    // What strata::apply runs on this device (tuning: measured now if the mode says so).
    const cuda::StencilImpl<T>& chosen = cuda::chosen_impl<T>(kernel, stream);
    const std::string choice = choice_source(tuning::family_name(kernel, precision_of<T>));
    for (const auto& impl : cuda::stencil_impls<T>()) {
      const bool runs = &impl == &chosen;
      if (impl.kernel != kernel || (!runs && !opt.all_variants)) continue;
      const verify::Mismatch check = validate(impl, s);
      if (!check.ok())
        throw Error("benchmark refused: " + kernel + " (" + impl.variant + ", " +
                    to_string(precision_of<T>) + ") disagrees with the CPU reference: " +
                    check.str());
      Result r = base(kernel, impl.variant);
      set_rates(r, time_launches([&] { impl.launch(&s, in, dst, stream, opt.zchunks, {}); },
                                 opt.warmup, opt.reps, stream));
      r.extra["default"] = runs;            // the shape strata::apply runs here
      r.extra["policy"] = impl.is_default;  // the compiled policy (measured on an H100)
      if (runs) r.extra["choice"] = choice;
      r.extra["validated"] = check.str();
      r.extra["ratio_to_memcpy"] = r.gb_per_s / memcpy_r.gb_per_s;
      if (kernel == "copy" && runs) copy_ref = r;
      row_done(opt, r);
      family.push_back(r);
      if (kernel == "copy" || !runs) continue;
      // The whole call a C++ user makes with Dirichlet 0: this kernel reading +0 beyond the
      // interior where its loader can (TMA), else the ghost fill and then the kernel. The rate
      // the Python binding's strata.apply on a Field is measured against.
      const bool zeros = impl.launch_zero_ghosts != nullptr;
      Result whole = base("apply:" + kernel, (zeros ? "zero-ghosts+" : "fill_ghosts+") + impl.variant);
      set_rates(whole, time_launches([&] { strata::apply(s, in, dst, Boundary::dirichlet(0), Stream{stream}); },
                                     opt.warmup, opt.reps, stream));
      whole.extra["diagnostic"] = true;
      whole.extra["what"] = zeros ? "strata::apply(stencil, in, out, Boundary::dirichlet(0)): the pass reading +0 "
                                    "beyond the interior (TMA zero fill), no ghost fill"
                                  : "strata::apply(stencil, in, out, Boundary::dirichlet(0)): fill_ghosts then apply_interior";
      whole.extra["ratio_to_memcpy"] = whole.gb_per_s / memcpy_r.gb_per_s;
      family.push_back(whole);
      // The whole-field ghost fill alone (Neumann; what an apply with any rule but Dirichlet +0
      // pays before its pass), at radius 1 (7pt) and 4 (star4).
      if (kernel == "7pt" || kernel == "star4") {
        Result g = base("fill_ghosts:r" + std::to_string(s.radius()), "neumann");
        set_rates(g, time_launches([&] { fill_ghosts(in, Boundary::neumann(), s.radius(), Stream{stream}); },
                                   opt.warmup, opt.reps, stream));
        g.extra["diagnostic"] = true;
        g.extra["what"] = "fill_ghosts(in, Boundary::neumann(), radius): every ghost point of the field, alone";
        g.extra["time_over_pass"] = g.median_ms / r.median_ms;
        family.push_back(g);
      }
    }
  }
  compare_to(memcpy_r, copy_ref);
  out.push_back(memcpy_r);
  compare_to(flat, copy_ref);
  out.push_back(flat);
  compare_to(layouts, copy_ref);
  out.push_back(layouts);
  for (Result& r : family) {
    compare_to(r, copy_ref);
    if (r.kernel == "copy" && !(std::find(kernels.begin(), kernels.end(), "copy") != kernels.end()) &&
        !opt.kernels.empty() && r.extra["default"] == true)
      r.extra["reference_only"] = true;
    out.push_back(r);
  }
}

}  // namespace

std::vector<Result> stencils_cuda(const Options& opt) {
  require(cuda_available(), "the GPU benchmark needs a CUDA device: " + cuda_unavailable_reason());
  std::vector<Result> out;
  for_each_case(opt, {Extent{512, 512, 512}}, {Precision::f32, Precision::f64}, [&](auto tag, const Extent& shape) {
    run_precision<decltype(tag)>(opt, shape, out);
  });
  return out;
}

}  // namespace strata::bench

// The CUDA adjoint of the wave scheme (backend/wave_adjoint.hpp). It keeps q = c2 * lambda
// (c2 = (v dt / h)^2, lambda the adjoint of u) rather than lambda: the adjoint recursion
// lambda_n = 2 lambda_{n+1} - lambda_{n+2} + A (c2 lambda_{n+1}), A the Laplacian with the
// mirror ghosts (symmetric, so its own transpose), becomes in q
//   q_n = 2 q_{n+1} - q_{n+2} + c2 A q_{n+1},
// the forward leapfrog update itself: the bulk of a step back runs the forward's tuned fused
// kernel (cuda/wave/update.hpp). The CPML layers add their transposed statements
// (kernels/wave_adjoint.cuh) and, in q, their share c2 * (D2 t - D1 s) of the new q. The
// state is converted at save/load, injection and sampling (divided or multiplied by c2),
// so the interface speaks of lambda as the CPU's does. One process (no exchanged faces).
#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdlib>
#include <future>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "backend/wave_adjoint.hpp"
#include "base/device_array.hpp"
#include "cuda/check.hpp"
#include "cuda/handles.hpp"
#include "cuda/step_marks.hpp"
#include "cuda/kernels/wave.cuh"
#include "cuda/kernels/wave_adjoint.cuh"
#include "cuda/kernels/wave_imaging.cuh"
#include "cuda/wave/mirror.cuh"
#include "cuda/wave/update.hpp"
#include "cuda/wave/velocity.cuh"
#include "strata/device.hpp"

namespace strata::wave {

namespace {

namespace kernels = cuda::kernels;

unsigned blocks_for(std::int64_t work, int threads) {
  return unsigned(std::clamp<std::int64_t>((work + threads - 1) / threads, 1, 8 * 1024));
}

// The launch shape of kernels::each_point: x in blocks of kImageThreads, rows (y, z) over
// blockIdx.y (at most 65535: a block then takes every 65535th row).
dim3 image_points(const kernels::ImagingGrid& g) {
  const int rows = g.ny * g.nz;
  return dim3(unsigned((g.nx + kernels::kImageThreads - 1) / kernels::kImageThreads),
              unsigned(std::clamp(rows, 1, 65535)));
}

// Taps grouped by grid point, the points in dense [z][y][x] order and each point's taps in
// the order of their sets (sources or receivers): what one thread per point walks, so taps
// sharing a point neither race nor change the order of their terms.
struct PointTaps {
  std::vector<std::size_t> dense;  // the points
  std::vector<int> first = {0};    // point k's taps: [first[k], first[k + 1])
  std::vector<int> set;            // each tap's source or receiver
  std::vector<Tap> tap;            // and the tap itself
};

PointTaps point_taps(const Extent& n, const std::vector<std::vector<Tap>>& sets) {
  std::map<std::size_t, std::vector<std::pair<int, Tap>>> nodes;
  for (std::size_t j = 0; j < sets.size(); ++j)
    for (const Tap& t : sets[j])
      nodes[(std::size_t(t.z) * std::size_t(n.ny) + std::size_t(t.y)) * std::size_t(n.nx) +
            std::size_t(t.x)]
          .push_back({int(j), t});
  PointTaps p;
  for (const auto& [i, list] : nodes) {
    p.dense.push_back(i);
    for (const auto& [j, t] : list) p.set.push_back(j), p.tap.push_back(t);
    p.first.push_back(int(p.set.size()));
  }
  return p;
}

// The fused correlation's rest (AdjointBackend::fuse_correlation) as lists: the sources'
// points the step's box `box` ({x0, y0, z0, x1, y1, z1}) holds (their sums redone: first,
// `redo` of them), the other sources' points, then the points of [lo, hi) within the grid
// outside the step's box; each point's offset in the fields' layout (plane, pitch), and its
// taps ([first[k], first[k + 1]) of src and w). `rest`: how many points the box gives.
struct RestLists {
  std::vector<std::int64_t> off;
  std::vector<int> first = {0}, src;
  std::vector<double> w;
  int redo = 0;
};

// Point (x, y, z)'s offset from a field's interior origin (its layout's plane and pitch).
std::int64_t field_offset(std::int64_t plane, std::int64_t pitch, int x, int y, int z) {
  return std::int64_t(z) * plane + std::int64_t(y) * pitch + x;
}

RestLists rest_lists(const PointTaps& p, const Extent& n, std::int64_t plane, std::int64_t pitch,
                     const std::array<int, 6>& box, const std::array<int, 3>& lo,
                     const std::array<int, 3>& hi, std::size_t rest) {
  RestLists r;
  auto offset = [&](int x, int y, int z) { return field_offset(plane, pitch, x, y, z); };
  auto in_box = [&](int x, int y, int z) {
    return x >= box[0] && x < box[3] && y >= box[1] && y < box[4] && z >= box[2] && z < box[5];
  };
  auto add_sources = [&](bool covered) {
    for (std::size_t k = 0; k < p.dense.size(); ++k) {
      const Tap& at = p.tap[std::size_t(p.first[k])];
      if (in_box(at.x, at.y, at.z) != covered) continue;
      r.off.push_back(offset(at.x, at.y, at.z));
      for (int t = p.first[k]; t < p.first[k + 1]; ++t)
        r.src.push_back(p.set[std::size_t(t)]), r.w.push_back(p.tap[std::size_t(t)].w);
      r.first.push_back(int(r.src.size()));
    }
  };
  add_sources(true);
  r.redo = int(r.off.size());
  add_sources(false);
  // Room first (grown point by point, the two lists of some 5 M points at 512^3 took most of
  // the 0.09 s this took on the H200's host).
  r.off.reserve(r.off.size() + rest);
  r.first.reserve(r.first.size() + rest);
  for (int z = std::max(0, lo[2]); z < std::min(n.nz, hi[2]); ++z)
    for (int y = std::max(0, lo[1]); y < std::min(n.ny, hi[1]); ++y) {
      const int x0 = std::max(0, lo[0]), x1 = std::min(n.nx, hi[0]);
      const bool row_in = y >= box[1] && y < box[4] && z >= box[2] && z < box[5];
      for (int x = x0; x < x1; ++x) {
        if (row_in && x == std::max(x0, box[0])) x = std::max(x, box[3]);  // skip the box
        if (x >= x1) continue;
        const std::size_t d =
            (std::size_t(z) * std::size_t(n.ny) + std::size_t(y)) * std::size_t(n.nx) +
            std::size_t(x);
        if (!std::binary_search(p.dense.begin(), p.dense.end(), d)) {  // a source's: above
          r.off.push_back(offset(x, y, z));
          r.first.push_back(int(r.src.size()));
        }
      }
    }
  require(r.off.size() < (std::size_t(1) << 31),
          "internal: the correlation's rest too large for one launch");
  return r;
}

template <class T>
class CudaAdjoint final : public AdjointBackend<T> {
 public:
  explicit CudaAdjoint(const Setup& s) : s_(s) {
    const Layout L = Layout::make(s.n, s.radius, sizeof(T));
    std::size_t bytes = 3 * L.bytes();
    for (const PmlFace& f : s.pml) bytes += 2 * f.points() * sizeof(T);  // psi, zeta
    require_device_memory(bytes, "the " + s.n.str() + " " + to_string(precision_of<T>) +
                                     " adjoint wave fields (q, q_prev, (v dt / h)^2, CPML memory)");
    fork_ = cuda::make_order_event();
    q_ = Field<T>(s.n, s.radius, Memory::device);
    qp_ = Field<T>(s.n, s.radius, Memory::device);
    c2_ = Field<T>(s.n, s.radius, Memory::device);
    mirror_ = mirror_plan(s, L);
    const int n[3] = {s.n.nx, s.n.ny, s.n.nz};
    for (const PmlFace& f : s.pml) {
      kernels::AdjointLayer a;
      for (int k = 0; k < 3; ++k) a.lo[k] = f.lo[k], a.hi[k] = f.hi[k];
      a.axis = f.axis;
      a.radius = s.radius;
      for (int r = 0; r <= s.radius; ++r)
        a.d1[r] = s.d1[std::size_t(r)], a.d2[r] = s.d2[std::size_t(r)];
      a.pitch = std::int64_t(L.pitch);
      a.plane = std::int64_t(L.plane);
      // The layer's derivatives reach R points past its box: on its own face side the pml
      // ghosts (0), on the other interior points, never a mirrored ghost.
      const bool low = f.lo[f.axis] == 0;
      require(low ? f.hi[f.axis] + s.radius <= n[f.axis] : f.lo[f.axis] - s.radius >= 0,
              "internal: an absorbing layer within the stencil's reach of the opposite face");
      layers_.push_back(a);
      lines_.push_back(layer_lines(a, std::max(0, f.lo[f.axis] - s.radius),
                                   std::min(n[f.axis], f.hi[f.axis] + s.radius)));
      side_.push_back(cuda::make_side_stream());
      done_.push_back(cuda::make_order_event());
      psi_.emplace_back(f.points());  // allocated zeroed on the device
      zeta_.emplace_back(f.points());
      // As doubles for the layer kernels (what they compute in), each rounded to T first:
      // the coefficients T's CPML update uses.
      auto in_t = [](const std::vector<double>& c) {
        std::vector<double> out;
        for (double x : c) out.push_back(double(T(x)));
        return out;
      };
      coef_a_.emplace_back(in_t(f.a));
      coef_b_.emplace_back(in_t(f.b));
    }
  }

  // c2 formed on the device by the forward's own kernel (the same bits), so that the set-up
  // makes no pass over the grid on the host: at 512^3 that pass and c2's upload were most of
  // the adjoint's set-up.
  void set_velocity(std::span<const T> v, double dt_over_h) override {
    lambda_marked_ = false;  // what the step back reads changes after any mark
    require(v.size() == s_.n.points(), "internal: velocity model of the wrong size");
    synchronize();
    c2_.load_interior(v);
    form_c2(c2_, nullptr, dt_over_h, stream());
    c2_changed();
  }

  void set_velocity_planes(std::span<const T> planes, double dt_over_h) override {
    lambda_marked_ = false;  // what the step back reads changes after any mark
    require(planes.size() == std::size_t(s_.n.nz), "internal: velocity planes of the wrong count");
    synchronize();
    const DeviceArray<T> table(std::vector<T>(planes.begin(), planes.end()));
    form_c2(c2_, table.get(), dt_over_h, stream());
    synchronize();  // before the table is freed
    c2_changed();
  }

  std::vector<NamedArray<double>> save() const override {
    synchronize();
    std::vector<NamedArray<double>> out;
    for (const StateSlot& slot : state_slots(s_)) {
      const std::string name = state_name(slot, s_);
      switch (slot.kind) {
        case StateSlot::u:
          out.push_back({name, lambda(q_, 1.0)});
          break;
        case StateSlot::u_prev:
          out.push_back({name, lambda(qp_, -1.0)});
          break;
        case StateSlot::psi:
          out.push_back({name, widen(psi_[slot.layer])});
          break;
        case StateSlot::zeta:
          out.push_back({name, widen(zeta_[slot.layer])});
          break;
      }
    }
    return out;
  }

  void load(const std::vector<NamedArray<double>>& arrays) override {
    lambda_marked_ = false;  // what the step back reads changes after any mark
    synchronize();
    std::vector<T> zero(s_.n.points(), T(0));
    q_.load_interior(zero);
    qp_.load_interior(zero);
    for (std::size_t f = 0; f < s_.pml.size(); ++f) {
      psi_[f].upload(std::vector<T>(s_.pml[f].points(), T(0)));
      zeta_[f].upload(std::vector<T>(s_.pml[f].points(), T(0)));
    }
    for (const NamedArray<double>& a : arrays) {
      const StateSlot slot = state_slot(a.name, a.data.size(), s_);
      switch (slot.kind) {
        case StateSlot::u:
          q_.load_interior(scaled(a.data, 1.0));
          break;
        case StateSlot::u_prev:
          qp_.load_interior(scaled(a.data, -1.0));
          break;
        case StateSlot::psi:
          psi_[slot.layer].upload(std::vector<T>(a.data.begin(), a.data.end()));
          break;
        case StateSlot::zeta:
          zeta_[slot.layer].upload(std::vector<T>(a.data.begin(), a.data.end()));
          break;
      }
    }
  }

  // lambda += w * v at the receivers' taps, so q += c2 w v: the forward's injection kernel
  // with weights w c2 (one thread per distinct point, so taps sharing a point never race).
  void inject_at_receivers(std::span<const double> values) override {
    lambda_marked_ = false;  // what the step back reads changes after any mark
    require(values.size() == s_.receivers.size(), "internal: one value per receiver");
    const Injection& in = receivers_in();
    if (in.nodes == 0) return;
    amps_.upload(std::vector<T>(values.begin(), values.end()));
    kernels::wave_inject<T><<<blocks_for(in.nodes, 128), 128, 0, stream()>>>(
        q_.origin(), in.off.get(), in.first.get(), in.src.get(), in.w.get(), amps_.get(), in.nodes);
    STRATA_CUDA_CHECK_LAUNCH();
  }

  // sum of w lambda = sum of (w / c2) q over each source's taps: the receivers' kernel.
  void sample_at_sources(std::span<double> out) const override {
    require(out.size() == s_.sources.size(), "internal: one value per source");
    if (out.empty()) return;
    const Sampling& sm = sources_out();
    kernels::wave_record<T><<<blocks_for(int(out.size()), 128), 128, 0, stream()>>>(
        q_.origin(), sm.off.get(), sm.w.get(), int(out.size()), row_.get());
    STRATA_CUDA_CHECK_LAUNCH();
    const std::vector<T> v = row_.download(out.size());
    for (std::size_t j = 0; j < out.size(); ++j) out[j] = double(v[j]);
  }

  std::span<const double> adjoint_u() const override {
    adjoint_u_ = lambda(q_, 1.0);
    return adjoint_u_;
  }

  void begin_imaging(std::span<const double> wavelets, bool illumination) override {
    const std::size_t n = s_.n.points(), ns = s_.sources.size();
    const Layout& L = q_.layout();
    require(ns == 0 || wavelets.size() % ns == 0,
            "internal: the wavelets are not whole rows of one value per source");
    const std::size_t sum_bytes = sizeof(T) + (kBlocks ? sizeof(double) : 0);  // a point's
    require_device_memory(L.size * (sizeof(T) + sum_bytes) +
                              n * ((illumination ? 1 : 0) * sum_bytes + 1) +
                              wavelets.size() * sizeof(double),
                          "the imaging condition's sums (correlation, illumination), the state it "
                          "keeps and the sources' mask (" +
                              s_.n.str() + ")");
    fused_.reset();
    Imaging im;
    im.grid = {s_.n.nx, s_.n.ny, s_.n.nz, std::int64_t(L.pitch), std::int64_t(L.plane)};
    im.corr = DeviceArray<T>(L.size);  // the fields' layout: indexed as they are
    im.corr_origin = im.corr.get() + L.index(0, 0, 0);
    if (kBlocks) {
      im.total = DeviceArray<double>(L.size);
      im.total_origin = im.total.get() + L.index(0, 0, 0);
      zero(im.total.get(), L.size * sizeof(double));
    }
    if (illumination) {
      im.ill = DeviceArray<T>(n);
      zero(im.ill.get(), n * sizeof(T));
      if (kBlocks) {
        im.ill_total = DeviceArray<double>(n);
        zero(im.ill_total.get(), n * sizeof(double));
      }
    }
    ill_calls_ = 0;
    im.next = DeviceArray<T>(L.size);  // the fields' layout too (AdjointCorrelate's offsets)
    im.next_origin = im.next.get() + L.index(0, 0, 0);
    zero(im.corr.get(), L.size * sizeof(T));
    zero(im.next.get(), L.size * sizeof(T));
    if (!wavelets.empty())
      im.wavelets = DeviceArray<double>(std::vector<double>(wavelets.begin(), wavelets.end()));
    im.rows = ns ? wavelets.size() / ns : 0;
    // The sources' points, each with its taps in source order (the CPU subtracts them so).
    const PointTaps p = point_taps(s_.n, s_.sources);
    im.mask = DeviceArray<unsigned char>(n);  // zeroed; 1 at the sources' points
    im.points = int(p.dense.size());
    if (im.points) {
      const DeviceArray<std::int64_t> at(std::vector<std::int64_t>(p.dense.begin(), p.dense.end()));
      const DeviceArray<unsigned char> ones(std::vector<unsigned char>(p.dense.size(), 1));
      kernels::ring_scatter<unsigned char><<<blocks_for(im.points, 128), 128, 0, stream()>>>(
          im.mask.get(), at.get(), im.points, ones.get());
      STRATA_CUDA_CHECK_LAUNCH();
      synchronize();  // before `at` and `ones` are freed
      std::vector<double> w;
      for (const Tap& t : p.tap) w.push_back(t.w);
      im.dense =
          DeviceArray<std::int64_t>(std::vector<std::int64_t>(p.dense.begin(), p.dense.end()));
      im.first = DeviceArray<int>(p.first);
      im.src = DeviceArray<int>(p.set);
      im.w = DeviceArray<double>(w);
      im.saved = DeviceArray<T>(std::size_t(im.points));
    }
    im_.emplace(std::move(im));
  }

  void illuminate(const Field<T>& u) override {
    Imaging& im = imaging(u, "illuminate");
    require(im.ill.get() != nullptr, "internal: illuminate without an illumination sum");
    kernels::image_illuminate<T><<<image_points(im.grid), kernels::kImageThreads, 0, stream()>>>(
        u.origin(), im.grid, im.ill.get());
    STRATA_CUDA_CHECK_LAUNCH();
    if (kBlocks && ++ill_calls_ % kernels::kImageBlockSteps == 0) flush_illumination();
  }

  void keep(const Field<T>& u) override {
    Imaging& im = imaging(u, "keep");
    kernels::image_keep<T><<<image_points(im.grid), kernels::kImageThreads, 0, stream()>>>(
        u.origin(), im.grid, im.next_origin);
    STRATA_CUDA_CHECK_LAUNCH();
  }

  void correlate(const Field<T>& now, const Field<T>& prev, int n) override {
    Imaging& im = imaging(now, "correlate");
    imaging(prev, "correlate");
    require(n >= 0 && (s_.sources.empty() || std::size_t(n) < im.rows),
            "internal: no wavelet row for the step");
    if (im.points) {  // first: they read `next` before the pass below moves it
      const double* amps = im.wavelets.get() + std::size_t(n) * s_.sources.size();
      kernels::image_correlate_sources<T><<<blocks_for(im.points, 128), 128, 0, stream()>>>(
          now.origin(), prev.origin(), q_.origin(), c2_.origin(), im.next_origin, im.grid,
          im.dense.get(), im.first.get(), im.src.get(), im.w.get(), amps, im.points, im.corr_origin,
          nullptr);
      STRATA_CUDA_CHECK_LAUNCH();
    }
    kernels::image_correlate<T><<<image_points(im.grid), kernels::kImageThreads, 0, stream()>>>(
        now.origin(), prev.origin(), q_.origin(), c2_.origin(), im.mask.get(), im.grid,
        im.next_origin, im.corr_origin);
    STRATA_CUDA_CHECK_LAUNCH();
    end_block(n);
  }

  // The correlation inside the step's bulk update (kernels::AdjointCorrelate), which reads q
  // and c2 anyway: the sources' points first, their sums into `saved` (they read `next`
  // before the step moves it), put back over what the update stored there.
  bool correlate_stepping_back(const Field<T>& now, const Field<T>& prev, int n) override {
    lambda_marked_ = false;  // what the step back reads changes after any mark
    Imaging& im = imaging(now, "correlate_stepping_back");
    imaging(prev, "correlate_stepping_back");
    require(n >= 0 && (s_.sources.empty() || std::size_t(n) < im.rows),
            "internal: no wavelet row for the step");
    require(im.next.get() != nullptr, "internal: correlate_stepping_back after fuse_correlation");
    if (im.points) {
      const double* amps = im.wavelets.get() + std::size_t(n) * s_.sources.size();
      kernels::image_correlate_sources<T><<<blocks_for(im.points, 128), 128, 0, stream()>>>(
          now.origin(), prev.origin(), q_.origin(), c2_.origin(), im.next_origin, im.grid,
          im.dense.get(), im.first.get(), im.src.get(), im.w.get(), amps, im.points, im.corr_origin,
          im.saved.get());
      STRATA_CUDA_CHECK_LAUNCH();
    }
    step_back_with(stream(), [&](cudaStream_t st) {
      cuda::wave_update_adjoint_correlating<T>(s_.lap, q_, qp_, c2_, qp_, now.origin(),
                                               prev.origin(), im.next_origin, im.corr_origin, st);
    });
    if (im.points) {  // on the step's stream after its update (the layers' passes leave corr)
      kernels::image_put_saved<T><<<blocks_for(im.points, 128), 128, 0, stream()>>>(
          im.grid, im.dense.get(), im.saved.get(), im.points, im.corr_origin);
      STRATA_CUDA_CHECK_LAUNCH();
    }
    end_block(n);
    return true;
  }

  void correlation(std::span<double> out) const override {
    require(im_.has_value(), "internal: correlation before begin_imaging");
    require(out.size() == s_.n.points(), "internal: correlation into an array of the wrong size");
    // The interior's rows straight into the dense array (no host copy of the padded layout:
    // 1.1 GB at 512^3), in one copy through pinned buffers (runtime::copy_3d) once the sums
    // are done: in f64 the sums, in f32 the total after the last block's sums joined it (a
    // block ended there already adds zeros: the same bits).
    const Layout& L = q_.layout();
    const std::size_t row = std::size_t(s_.n.nx) * sizeof(double);
    const double* sums = nullptr;
    if constexpr (kBlocks) {
      flush();
      sums = im_->total_origin;
    } else {
      sums = im_->corr_origin;
    }
    synchronize();
    runtime::copy_3d(out.data(), Memory::host, row, std::size_t(s_.n.ny), sums, Memory::device,
                     std::size_t(L.pitch) * sizeof(double), std::size_t(L.rows), row,
                     std::size_t(s_.n.ny), std::size_t(s_.n.nz));
  }

  bool fuse_correlation(Backend<T>& fwd, std::array<int, 3> lo, std::array<int, 3> hi) override {
    Imaging& im = imaging(fwd.wavefield(), "fuse_correlation");
    imaging(fwd.previous_wavefield(), "fuse_correlation");
    const std::array<int, 6> box = fwd.correlating_box();
    if (box == std::array<int, 6>{}) return false;
    // The rest's points: at most the box [lo, hi) within the grid less its overlap with the
    // step's box, and the sources' points (some of them inside both: a bound). Its memory is
    // checked here, before the forward sweep; the lists themselves are made beside it.
    PointTaps p = point_taps(s_.n, s_.sources);
    const int n3[3] = {s_.n.nx, s_.n.ny, s_.n.nz};
    std::size_t whole = 1, shared = 1;
    for (int a = 0; a < 3; ++a) {
      const int a0 = std::max(0, lo[std::size_t(a)]), a1 = std::min(n3[a], hi[std::size_t(a)]);
      const int b0 = std::max(a0, box[std::size_t(a)]), b1 = std::min(a1, box[std::size_t(a + 3)]);
      whole *= std::size_t(std::max(0, a1 - a0));
      shared *= std::size_t(std::max(0, b1 - b0));
    }
    const std::size_t rest = whole - shared, bound = rest + p.dense.size();
    require(bound < (std::size_t(1) << 31),
            "internal: the correlation's rest too large for one launch");
    require_device_memory(
        bound * (sizeof(std::int64_t) + sizeof(int) + 2 * sizeof(T)),
        "the fused imaging condition's list of up to " + std::to_string(bound) + " points");
    // Made on a host thread of its own while the forward sweep runs (at 512^3 some 5 M points,
    // 0.09-0.10 s of the H200 host's set-up), taken and uploaded at the first reversed step
    // (Fused::take). Everything it reads is its own copy.
    Fused f;
    f.fwd = &fwd;
    f.lists = std::async(
        std::launch::async | std::launch::deferred,
        [p = std::move(p), box, lo, hi, rest, n = s_.n, plane = std::int64_t(q_.layout().plane),
         pitch = std::int64_t(q_.layout().pitch)] {
          return rest_lists(p, n, plane, pitch, box, lo, hi, rest);
        });
    fused_.emplace(std::move(f));
    back_ = cuda::make_side_stream();
    lambda_ready_ = cuda::make_order_event();
    back_done_ = cuda::make_order_event();
    im.next = DeviceArray<T>();  // neither `next` nor the mask is read again
    im.next_origin = nullptr;
    im.mask = DeviceArray<unsigned char>();
    return true;
  }

  void step_correlated(int m, bool layers) override {
    require(fused_.has_value(), "internal: step_correlated before fuse_correlation");
    Fused& f = fused_->take();
    timing_ = marks_.next();
    if (timing_) mark(timing_->start, stream());
    // lambda is final here (row m injected): the step back may start beside what follows.
    STRATA_CUDA_CHECK(cudaEventRecord(lambda_ready_.get(), stream()));
    lambda_marked_ = true;
    // Before the step replaces u_{m+1} and adds to the redone sums: both as correlate_rest(m + 1)
    // left them, else gathered here (the first step, or after anything else).
    if (f.points &&
        (f.carried != m + 1 || f.carried_from != f.fwd->previous_wavefield().origin())) {
      kernels::image_rest_before<T><<<blocks_for(f.points, 128), 128, 0, stream()>>>(
          f.fwd->previous_wavefield().origin(), f.off.get(), f.points, f.redo, im_->corr_origin,
          f.next.get(), f.saved.get());
      STRATA_CUDA_CHECK_LAUNCH();
    }
    f.carried = -1;
    f.fwd->step_correlating(m, q_.origin(), im_->corr_origin, layers);
  }

  void correlate_rest(int m) override {
    require(fused_.has_value(), "internal: correlate_rest before fuse_correlation");
    Fused& f = fused_->take();
    const Imaging& im = *im_;
    require(m >= 0 && (s_.sources.empty() || std::size_t(m) < im.rows),
            "internal: no wavelet row for the step");
    if (timing_) mark(timing_->reversed, stream());  // the reversed step and the ring put back
    if (f.points) {
      const double* amps =
          s_.sources.empty() ? nullptr : im.wavelets.get() + std::size_t(m) * s_.sources.size();
      kernels::image_correlate_rest<T><<<blocks_for(f.points, 128), 128, 0, stream()>>>(
          f.fwd->previous_wavefield().origin(), f.fwd->wavefield().origin(), q_.origin(),
          c2_.origin(), f.off.get(), f.next.get(), f.saved.get(), f.redo, f.first.get(),
          f.src.get(), f.w.get(), amps, f.points, im.corr_origin);
      STRATA_CUDA_CHECK_LAUNCH();
      // `next` holds u_m and `saved` the sums: what step_correlated(m - 1) reads, unless the
      // block ends here (the sums zeroed under `saved`: gathered again then).
      f.carried = end_block(m) ? -1 : m;
      f.carried_from = f.fwd->previous_wavefield().origin();  // u_m's buffer: that step's u_prev
    } else {
      end_block(m);
    }
    if (timing_) mark(timing_->rest, stream());
  }
  void illumination(std::span<double> out) const override {
    require(im_.has_value() && im_->ill.get() && out.size() == s_.n.points(),
            "internal: illumination without its sum, or of the wrong size");
    const double* sums = nullptr;  // in f32 the total, the last block's sums added first
    if constexpr (kBlocks) {
      flush_illumination();
      sums = im_->ill_total.get();
    } else {
      sums = im_->ill.get();
    }
    synchronize();
    runtime::copy_bytes(out.data(), Memory::host, sums, Memory::device,
                        out.size() * sizeof(double));
  }

  // The bulk update (q into q_prev), then each layer's pass (zeta, psi and the layer's share of
  // the new q in one kernel: kernels::adjoint_layer_tiles). With the fused correlation of boundary
  // saving, on a stream of its own from step_correlated's start, beside the forward field's
  // reversed step and the correlation's rest: those read q and write neither q_prev nor the
  // layers' arrays, and the step back reads q and writes nothing they read (the mirrored
  // ghosts it writes lie outside the grid: the correlation reads q at grid points). The layer
  // passes, latency-bound (0.50 of the step back's 1.22 ms at 512^3 f32 on an H200), were to
  // share the GPU with the bandwidth-bound reversed step instead of following it (measured: a
  // 512^3 shot 3.50 -> 3.45 forward runs, docs/imaging.md). The default stream waits for it
  // before anything after (the next injection writes the new q).
  void step_back() override {
    auto bulk = [&](cudaStream_t st) {
      cuda::wave_update<T>(s_.lap, q_, qp_, c2_, qp_, st);  // q_prev <- 2 q - q_prev + c2 A q
      if (timing_) mark(timing_->bulk, st);
    };
    if (!fused_.has_value()) return step_back_with(stream(), bulk);
    if (!lambda_marked_)  // not after step_correlated: from here (the same bits, later)
      STRATA_CUDA_CHECK(cudaEventRecord(lambda_ready_.get(), stream()));
    lambda_marked_ = false;
    STRATA_CUDA_CHECK(cudaStreamWaitEvent(back_.get(), lambda_ready_.get(), 0));
    step_back_with(back_.get(), bulk);
    if (timing_) mark(timing_->back, back_.get());
    STRATA_CUDA_CHECK(cudaEventRecord(back_done_.get(), back_.get()));
    STRATA_CUDA_CHECK(cudaStreamWaitEvent(stream(), back_done_.get(), 0));
    if (timing_) mark(timing_->end, stream());
    timing_ = nullptr;
  }

  // Medians over the marked backward steps, ms from each step's start (the list in
  // backend/wave_adjoint.hpp); empty unless STRATA_IMAGING_TIMELINE=1 marked whole steps.
  std::vector<std::pair<std::string, double>> step_timeline() override {
    if (!marks_.any()) return {};
    synchronize();
    return marks_.medians({{"reversed_done", &Marks::reversed},
                           {"rest_done", &Marks::rest},
                           {"bulk_done", &Marks::bulk},
                           {"back_done", &Marks::back},
                           {"step_done", &Marks::end}});
  }

 private:
  // step_back on stream st with `bulk(st)` launching the bulk update of q into q_prev.
  template <class Bulk>
  void step_back_with(cudaStream_t st, Bulk&& bulk) {
    if (mirror_.faces > 0) {
      kernels::wave_mirror_ghosts<T>
          <<<dim3(blocks_for(mirror_.work, 256), mirror_.faces), 256, 0, st>>>(q_.origin(),
                                                                               mirror_.args);
      STRATA_CUDA_CHECK_LAUNCH();
    }
    bulk(st);
    // Each layer's pass after the bulk (it adds into the new q), in the layers' order; two
    // layers of one axis whose reaches do not meet side by side (they touch different points
    // and each its own psi and zeta). Same points, same order of additions at each point: the
    // same bits as one stream.
    for (std::size_t f = 0; f < layers_.size(); ++f) {
      if (f + 1 < layers_.size() && apart(f, f + 1)) {  // side by side: f on st, f + 1 beside
        STRATA_CUDA_CHECK(cudaEventRecord(fork_.get(), st));
        STRATA_CUDA_CHECK(cudaStreamWaitEvent(side_[f + 1].get(), fork_.get(), 0));
        layer_pass(f, st);
        layer_pass(f + 1, side_[f + 1].get());
        STRATA_CUDA_CHECK(cudaEventRecord(done_[f + 1].get(), side_[f + 1].get()));
        STRATA_CUDA_CHECK(cudaStreamWaitEvent(st, done_[f + 1].get(), 0));
        ++f;
      } else {
        layer_pass(f, st);
      }
    }
    std::swap(q_, qp_);
  }

  // Layer f's pass (kernels::adjoint_layer_tiles, or adjoint_layer where one line of its reach
  // fills more than a tile) on `on`, after the bulk update of q into q_prev.
  void layer_pass(std::size_t f, cudaStream_t on) {
    const kernels::LayerLines& ll = lines_[f];
    constexpr int threads = kernels::kLayerThreads;
    cuda::with_radius(layers_[f].radius, [&](auto r) {
      constexpr int R = decltype(r)::value;
      const int lines = kernels::tile_lines(ll.reach_hi - ll.reach_lo, ll.lines);
      if (lines > 0) {
        static const int resident = blocks_resident(kernels::adjoint_layer_tiles<T, R>);
        const std::int64_t tiles = (ll.lines + lines - 1) / lines;
        kernels::adjoint_layer_tiles<T, R>
            <<<unsigned(std::clamp<std::int64_t>(tiles, 1, resident)), threads, 0, on>>>(
                q_.origin(), qp_.origin(), c2_.origin(), layers_[f], ll, coef_a_[f].get(),
                coef_b_[f].get(), psi_[f].get(), zeta_[f].get(), lines);
      } else {
        static const int resident = blocks_resident(kernels::adjoint_layer<T, R>);
        const std::int64_t blocks = (ll.lines + threads - 1) / threads;
        kernels::adjoint_layer<T, R>
            <<<unsigned(std::clamp<std::int64_t>(blocks, 1, resident)), threads, 0, on>>>(
                q_.origin(), qp_.origin(), c2_.origin(), layers_[f], ll, coef_a_[f].get(),
                coef_b_[f].get(), psi_[f].get(), zeta_[f].get());
      }
      STRATA_CUDA_CHECK_LAUNCH();
    });
  }

  // The lines of a layer's pass: for y and z layers side by side along x.
  static kernels::LayerLines layer_lines(const kernels::AdjointLayer& a, int reach_lo,
                                         int reach_hi) {
    kernels::LayerLines ll;
    ll.reach_lo = reach_lo;
    ll.reach_hi = reach_hi;
    ll.line_axis = a.axis == 0 ? 1 : 0;
    ll.outer_axis = a.axis == 2 ? 1 : 2;
    ll.lines = std::int64_t(a.width(ll.line_axis)) * a.width(ll.outer_axis);
    return ll;
  }
  // As many blocks of kLayerThreads as the device holds at once of `kernel` (the layer kernels
  // stride over the lines): the most a layer's pass launches.
  template <class Kernel>
  static int blocks_resident(Kernel kernel) {
    int per_sm = 0, sms = 0, dev = 0;
    STRATA_CUDA_CHECK(cudaGetDevice(&dev));
    STRATA_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    STRATA_CUDA_CHECK(
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, kernels::kLayerThreads, 0));
    return std::max(1, per_sm) * std::max(1, sms);
  }

  // Layers f and g lie on one axis with passes that reach no common point.
  bool apart(std::size_t f, std::size_t g) const {
    const kernels::LayerLines &a = lines_[f], &b = lines_[g];
    return layers_[f].axis == layers_[g].axis &&
           (a.reach_hi <= b.reach_lo || b.reach_hi <= a.reach_lo);
  }

  using StreamPtr = cuda::StreamPtr;
  using EventPtr = cuda::EventPtr;

  // The imaging condition's state (begin_imaging): sums, the kept state, the sources' points.
  // The correlation's sums in T (kernels::add_term); in f32 each block's (kBlocks), added into
  // `total` in double at the block's end (end_block).
  static constexpr bool kBlocks = sizeof(T) < sizeof(double);
  struct Imaging {
    kernels::ImagingGrid grid;
    DeviceArray<T> corr;
    DeviceArray<T> ill;                                 // dense [z][y][x]
    DeviceArray<double> total, ill_total, wavelets, w;  // ill_total: dense too (kBlocks)
    T* corr_origin = nullptr;        // corr is in the fields' layout: its interior origin
    double* total_origin = nullptr;  // so is total (kBlocks)
    DeviceArray<T> next;             // and `next`
    T* next_origin = nullptr;
    DeviceArray<T> saved;  // the sources' points' sums (correlate_stepping_back)
    DeviceArray<unsigned char> mask;
    DeviceArray<std::int64_t> dense;
    DeviceArray<int> first, src;
    int points = 0;
    std::size_t rows = 0;
  };

  // The imaging state, after checking that `f` is a forward field it can read.
  Imaging& imaging(const Field<T>& f, const char* what) {
    require(im_.has_value(), std::string("internal: ") + what + " before begin_imaging");
    require(f.memory() == Memory::device && f.extent() == s_.n &&
                std::int64_t(f.layout().pitch) == im_->grid.pitch &&
                std::int64_t(f.layout().plane) == im_->grid.plane,
            std::string("internal: ") + what + " needs a device field of the adjoint's layout");
    return *im_;
  }
  // After step n's correlation: where n ends a block (kernels::kImageBlockSteps), an f32 run's
  // sums join the total (flush). Returns whether they did.
  bool end_block(int n) const {
    if (!kBlocks || n % kernels::kImageBlockSteps != 0) return false;
    flush();
    return true;
  }
  void flush() const { flush(im_->corr_origin, im_->total_origin, false); }
  // The illumination's block sums into its total (kBlocks: every kImageBlockSteps calls of
  // illuminate, and before it is read).
  void flush_illumination() const { flush(im_->ill.get(), im_->ill_total.get(), true); }
  // sum (the fields' layout, or `dense`) into total, sum zeroed: kernels::image_flush.
  void flush(T* sum, double* total, bool dense) const {
    if constexpr (kBlocks) {
      kernels::image_flush<T><<<image_points(im_->grid), kernels::kImageThreads, 0, stream()>>>(
          sum, im_->grid, total, dense);
      STRATA_CUDA_CHECK_LAUNCH();
    }
  }
  int ill_calls_ = 0;  // illuminate's calls since begin_imaging
  static void zero(void* p, std::size_t bytes) {
    if (bytes) STRATA_CUDA_CHECK(cudaMemsetAsync(p, 0, bytes, stream()));
  }

  static cudaStream_t stream() { return nullptr; }
  static void synchronize() { STRATA_CUDA_CHECK(cudaStreamSynchronize(stream())); }

  void c2_changed() {
    c2_set_ = true;
    c2_host_.clear();       // downloaded again when a whole-field conversion needs it
    receivers_in_.reset();  // their weights hold c2
    sources_out_.reset();
  }
  // c2 over the interior on the host, downloaded at first need (save, load, adjoint_u).
  const std::vector<T>& c2_host() const {
    require(c2_set_, "the adjoint needs the velocity model first (set_velocity)");
    if (c2_host_.empty()) {
      synchronize();
      c2_host_.resize(s_.n.points());
      c2_.store_interior(c2_host_);
    }
    return c2_host_;
  }
  // c2 at the given field offsets, gathered on the device.
  std::vector<T> c2_at(const std::vector<std::int64_t>& off) const {
    require(c2_set_, "the adjoint needs the velocity model first (set_velocity)");
    if (off.empty()) return {};
    const DeviceArray<std::int64_t> at(off);
    DeviceArray<T> row(off.size());
    kernels::ring_gather<T><<<blocks_for(std::int64_t(off.size()), 128), 128, 0, stream()>>>(
        c2_.origin(), at.get(), std::int64_t(off.size()), row.get());
    STRATA_CUDA_CHECK_LAUNCH();
    synchronize();
    return row.download(off.size());
  }

  std::int64_t offset(int x, int y, int z) const {
    return field_offset(std::int64_t(q_.layout().plane), std::int64_t(q_.layout().pitch), x, y, z);
  }

  // lambda = sign * q / c2 over the interior, and its inverse.
  std::vector<double> lambda(const Field<T>& q, double sign) const {
    const std::vector<T>& c2 = c2_host();
    std::vector<T> v(s_.n.points());
    q.store_interior(v);
    std::vector<double> out(v.size());
    for (std::size_t i = 0; i < v.size(); ++i) out[i] = sign * double(v[i]) / double(c2[i]);
    return out;
  }
  std::vector<T> scaled(const std::vector<double>& lam, double sign) const {
    const std::vector<T>& c2 = c2_host();
    std::vector<T> v(lam.size());
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = T(sign * lam[i] * double(c2[i]));
    return v;
  }
  static std::vector<double> widen(const DeviceArray<T>& a) {
    const std::vector<T> v = a.download(a.size());
    return {v.begin(), v.end()};
  }

  struct Injection {
    int nodes = 0;
    DeviceArray<std::int64_t> off;
    DeviceArray<int> first, src;
    DeviceArray<T> w;
  };
  struct Sampling {
    DeviceArray<std::int64_t> off;
    DeviceArray<T> w;
  };

  // The receivers' injection (weights w c2) and the sources' sampling (weights w / c2), built
  // at first use after the velocity is set.
  const Injection& receivers_in() {
    if (receivers_in_) return *receivers_in_;
    const PointTaps p = point_taps(s_.n, s_.receivers);
    std::vector<std::int64_t> off;
    for (std::size_t k = 0; k < p.dense.size(); ++k) {
      const Tap& at = p.tap[std::size_t(p.first[k])];  // the point's coordinates
      off.push_back(offset(at.x, at.y, at.z));
    }
    const std::vector<T> c2 = c2_at(off);
    std::vector<T> w;
    for (std::size_t k = 0; k < p.dense.size(); ++k)
      for (int t = p.first[k]; t < p.first[k + 1]; ++t)
        w.push_back(T(p.tap[std::size_t(t)].w * double(c2[k])));
    Injection in;
    in.nodes = int(off.size());
    if (in.nodes) {
      in.off = DeviceArray<std::int64_t>(off);
      in.first = DeviceArray<int>(p.first);
      in.src = DeviceArray<int>(p.set);
      in.w = DeviceArray<T>(w);
    }
    amps_ = DeviceArray<T>(std::max<std::size_t>(1, s_.receivers.size()));
    receivers_in_.emplace(std::move(in));
    return *receivers_in_;
  }

  const Sampling& sources_out() const {
    if (sources_out_) return *sources_out_;
    std::vector<std::int64_t> off;
    for (const auto& set : s_.sources) {
      require(!set.empty() && set.size() <= 8, "internal: a source of 1 to 8 taps");
      for (int k = 0; k < 8; ++k) {  // 8 taps each, unused ones weight 0 on the first tap's point
        const Tap& t = k < int(set.size()) ? set[std::size_t(k)] : set.front();
        off.push_back(offset(t.x, t.y, t.z));
      }
    }
    const std::vector<T> c2 = c2_at(off);
    std::vector<T> w;
    for (std::size_t j = 0; j < s_.sources.size(); ++j)
      for (std::size_t k = 0; k < 8; ++k)
        w.push_back(k < s_.sources[j].size() ? T(s_.sources[j][k].w / double(c2[8 * j + k]))
                                             : T(0));
    sources_out_.emplace(Sampling{DeviceArray<std::int64_t>(off), DeviceArray<T>(w)});
    row_ = DeviceArray<T>(s_.sources.size());
    return *sources_out_;
  }

  Setup s_;
  Field<T> q_, qp_, c2_;
  bool c2_set_ = false;
  mutable std::vector<T> c2_host_;  // c2_host()
  MirrorPlan mirror_;
  std::vector<kernels::AdjointLayer> layers_;
  std::vector<kernels::LayerLines> lines_;
  std::vector<DeviceArray<T>> psi_, zeta_;
  std::vector<DeviceArray<double>> coef_a_, coef_b_;  // rounded to T, held as doubles
  std::optional<Injection> receivers_in_;
  mutable std::optional<Sampling> sources_out_;
  DeviceArray<T> amps_;
  mutable DeviceArray<T> row_;
  mutable std::vector<double> adjoint_u_;
  std::optional<Imaging> im_;
  // step_back's streams beside the one it runs on (the default, or back_ with the fused
  // correlation; one per layer, non-blocking: ordered by the events alone), the fork from that
  // stream and each layer's done mark.
  std::vector<StreamPtr> side_;
  EventPtr fork_;
  std::vector<EventPtr> done_;
  // The fused correlation's rest (fuse_correlation): the points' offsets and taps, u_{m+1}
  // there and the redone sums before each step.
  struct Fused {
    Backend<T>* fwd = nullptr;
    std::future<RestLists> lists;  // made beside the forward sweep; taken once
    // The lists on the device, waiting for them the first time.
    Fused& take() {
      if (!lists.valid()) return *this;
      const RestLists r = lists.get();
      const std::size_t k = r.off.size();
      points = int(k);
      redo = r.redo;
      if (k) {
        off = DeviceArray<std::int64_t>(r.off);
        first = DeviceArray<int>(r.first);
        next = DeviceArray<T>(k);
      }
      if (!r.src.empty()) src = DeviceArray<int>(r.src), w = DeviceArray<double>(r.w);
      if (redo) saved = DeviceArray<T>(std::size_t(redo));
      return *this;
    }
    int points = 0, redo = 0;
    // The m of the correlate_rest that left u_m in `next` and the sums in `saved` (-1: none
    // since the last step): step_correlated(m - 1) then gathers neither.
    int carried = -1;
    const T* carried_from = nullptr;
    DeviceArray<std::int64_t> off;
    DeviceArray<int> first, src;
    DeviceArray<double> w;
    DeviceArray<T> saved, next;
  };
  std::optional<Fused> fused_;
  // With fused_: the stream step_back runs on beside the reversed step, the mark of lambda
  // made final (step_correlated; lambda_marked_ until the step back waits for it, cleared by
  // every call that writes what the step back reads or writes: then the step back marks the
  // default stream itself), and the step back's end, which the default stream waits for.
  StreamPtr back_;
  EventPtr lambda_ready_, back_done_;
  bool lambda_marked_ = false;
  // STRATA_IMAGING_TIMELINE=1 (a diagnostic): the fused backward steps 20 .. 51 carry timed
  // events at their milestones (cuda::StepMarks; timing_ the current step's, from
  // step_correlated to step_back); step_timeline() reads them.
  struct Marks {
    EventPtr start, reversed, rest, bulk, back, end;
  };
  cuda::StepMarks<Marks> marks_{"STRATA_IMAGING_TIMELINE", 20, 32};
  Marks* timing_ = nullptr;
  static void mark(EventPtr& e, cudaStream_t s) { cuda::StepMarks<Marks>::record(e, s); }
};

}  // namespace

}  // namespace strata::wave

namespace strata::cuda {

template <class T>
std::unique_ptr<wave::AdjointBackend<T>> make_wave_adjoint(Tag, const wave::Setup& s) {
  require(s.exchanged == std::array<bool, 6>{},
          "the wave adjoint runs in one process (no exchanged faces) for now");
  return std::make_unique<wave::CudaAdjoint<T>>(s);
}

template std::unique_ptr<wave::AdjointBackend<float>> make_wave_adjoint(Tag, const wave::Setup&);
template std::unique_ptr<wave::AdjointBackend<double>> make_wave_adjoint(Tag, const wave::Setup&);

}  // namespace strata::cuda

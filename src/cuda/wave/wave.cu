// The CUDA backend of the wave solver (backend/wave.hpp). One step on the stream:
// mirror ghosts of the non-pml faces; the fused update over the interior box (the grid
// less its absorbing layers) into u_prev's buffer; the whole update of the shell that holds
// the layers, CPML terms included, in one pass; source injection; then the buffers swap.
// The layers cost extra only where they are. Deterministic: no atomics, fixed summation
// orders, so restarts are bit-identical.
#include <algorithm>
#include <array>
#include <cstdlib>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <tuple>
#include <type_traits>

#include "backend/wave.hpp"
#include "backend/wave_ghosts.hpp"
#include "base/device_array.hpp"
#include "cuda/check.hpp"
#include "cuda/handles.hpp"
#include "cuda/step_marks.hpp"
#include "cuda/kernels/wave.cuh"
#include "cuda/kernels/wave_imaging.cuh"
#include "cuda/wave/mirror.cuh"
#include "cuda/wave/update.hpp"
#include "cuda/wave/velocity.cuh"
#include "strata/device.hpp"
#include "strata/reduce.hpp"

namespace strata::wave {

namespace {

namespace kernels = cuda::kernels;

template <class T>
std::vector<T> cast(const std::vector<double>& v) {
  return {v.begin(), v.end()};
}

unsigned blocks_for(std::int64_t work, int threads) {
  return unsigned(std::clamp<std::int64_t>((work + threads - 1) / threads, 1, 8 * 1024));
}

template <class T>
class CudaBackend final : public Backend<T> {
 public:
  explicit CudaBackend(const Setup& s) : s_(s) {
    const Layout L = Layout::make(s.n, s.radius, sizeof(T));
    std::size_t bytes = 3 * L.bytes() + std::size_t(s.trace_rows) * s.receivers.size() * sizeof(T);
    for (const PmlFace& f : s.pml) bytes += 3 * f.points() * sizeof(T);  // psi (two buffers), zeta
    require_device_memory(bytes, "the " + s.n.str() + " " + to_string(precision_of<T>) +
                                     " wave fields (u, u_prev, (v dt / h)^2, CPML memory, traces)");
    pool_.emplace_back(s.n, s.radius, Memory::device);
    pool_.emplace_back(s.n, s.radius, Memory::device);
    kept_refs_.assign(2, 0);
    c2_ = Field<T>(s.n, s.radius, Memory::device);

    set_mirror_faces(L);

    for (const PmlFace& f : s.pml) {
      psi_.emplace_back(f.points());
      psi_next_.emplace_back(f.points());
      zeta_.emplace_back(f.points());
      coef_a_.emplace_back(cast<T>(f.a));
      coef_b_.emplace_back(cast<T>(f.b));
    }
    set_shell();
    // The update's launch shape, measured now if this device has none (strata/tuning.hpp):
    // during the setup, not inside the first step's time.
    cuda::chosen_wave_update<T>(s.radius);

    // Sources: the distinct grid points they touch, each with its (source, weight) taps.
    std::map<std::tuple<int, int, int>, std::vector<std::pair<int, double>>> nodes;
    for (std::size_t j = 0; j < s.sources.size(); ++j)
      for (const Tap& t : s.sources[j]) nodes[{t.z, t.y, t.x}].push_back({int(j), t.w});
    std::vector<std::int64_t> node_off;
    std::vector<int> first = {0}, src;
    std::vector<T> w;
    for (const auto& [xyz, taps] : nodes) {
      const auto [z, y, x] = xyz;
      node_off.push_back(offset(x, y, z));
      for (const auto& [j, wt] : taps) src.push_back(j), w.push_back(T(wt));
      first.push_back(int(src.size()));
    }
    inject_nodes_ = int(node_off.size());
    inject_off_ = DeviceArray<std::int64_t>(node_off);
    inject_first_ = DeviceArray<int>(first);
    inject_src_ = DeviceArray<int>(src);
    inject_w_ = DeviceArray<T>(w);

    // Receivers: 8 taps each, unused ones weight 0 on the first tap's point.
    std::vector<std::int64_t> roff;
    std::vector<T> rw;
    for (const auto& taps : s.receivers)
      for (int k = 0; k < 8; ++k) {
        const Tap& t = k < int(taps.size()) ? taps[k] : taps.front();
        roff.push_back(offset(t.x, t.y, t.z));
        rw.push_back(k < int(taps.size()) ? T(t.w) : T(0));
      }
    record_off_ = DeviceArray<std::int64_t>(roff);
    record_w_ = DeviceArray<T>(rw);
    traces_ = DeviceArray<T>(std::size_t(s.trace_rows) * s.receivers.size());
  }

  // (v dt / h)^2 is formed on the device: the model is uploaded as it is (dense), or its
  // planes' values written over each plane (constant and layered models: no host grid).
  void set_velocity(std::span<const T> v, double dt_over_h) override {
    require(v.size() == s_.n.points(), "internal: velocity model of the wrong size");
    c2_.load_interior(v);
    form_c2(c2_, nullptr, dt_over_h, stream());
  }

  void set_velocity_planes(std::span<const T> planes, double dt_over_h) override {
    require(planes.size() == std::size_t(s_.n.nz), "internal: velocity planes of the wrong count");
    const DeviceArray<T> table(std::vector<T>(planes.begin(), planes.end()));
    form_c2(c2_, table.get(), dt_over_h, stream());
    STRATA_CUDA_CHECK(cudaStreamSynchronize(stream()));  // before the table goes
  }

  bool wavefield_finite() override { return check_finite(u(), Stream{stream()}).all_finite; }

  void set_wavelets(int first, int count, std::span<const double> amps) override {
    // The previous block may still be read by queued injections: wait before replacing it.
    STRATA_CUDA_CHECK(cudaStreamSynchronize(stream()));
    std::vector<T> a(amps.begin(), amps.end());
    if (amps_.size() < a.size()) amps_ = DeviceArray<T>(a.size());
    amps_.upload(a);
    wl_first_ = first;
    wl_count_ = count;
  }

  void step(int n) override { step(n, nullptr, nullptr, true); }
  void step_without_layers(int n) override { step(n, nullptr, nullptr, false); }

  std::array<int, 6> correlating_box() const override {
    if (exchange_) return {};  // one process only: the near regions would need it too
    if (s_.pml.empty()) return {0, 0, 0, s_.n.nx, s_.n.ny, s_.n.nz};
    if (!has_interior_) return {};
    const cuda::Region& r = interior_;
    return {r.x0, r.y0, r.z0, r.x0 + r.nx, r.y0 + r.ny, r.z0 + r.nz};
  }
  void step_correlating(int n, const T* q, T* corr, bool layers) override {
    require(q && corr && correlating_box() != std::array<int, 6>{},
            "internal: a correlating step without its fields or its box");
    step(n, q, corr, layers);
  }

  // One step; with q and corr, the interior update correlates as it goes (correlating_box).
  // `layers` false (step_without_layers): of the shell, only the interior's columns it keeps
  // (columns_), where there is an interior and no exchange; psi and zeta left as they are.
  void step(int n, const T* q, T* corr, bool layers) {
    const cudaStream_t st = stream();
    Field<T>& cur = u();
    const Field<T>& prev = up();
    const int to = output();  // u-'s buffer, or a free one where a kept state holds u-'s
    Field<T>& out = pool_[std::size_t(to)];
    // The interior's update, or the whole grid's (region {}), correlating when asked.
    auto update = [&](const cuda::Region& r) {
      if (corr)
        cuda::wave_update_correlating<T>(s_.lap, cur, prev, c2_, out, q, corr, st, r);
      else
        cuda::wave_update<T>(s_.lap, cur, prev, c2_, out, st, 0, r);
    };
    const bool halo = bool(exchange_);
    Marks* mk = marks_.next();
    if (mk) mark(mk->start, st);
    if (halo) {
      // u(n)'s ghosts from the neighbours on the halo stream (and the receivers' row of u(n)
      // after them), beside the points that do not read them. u_prev, written below, was
      // u(n-1): its exchange and row (the last step's halo work) must be done first.
      if (halo_started_) STRATA_CUDA_CHECK(cudaStreamWaitEvent(st, halo_done_.get(), 0));
      STRATA_CUDA_CHECK(cudaEventRecord(ready_.get(), st));
      STRATA_CUDA_CHECK(cudaStreamWaitEvent(halo_stream(), ready_.get(), 0));
      exchange_(halo_stream(), packed_.get());
      if (pending_row_ >= 0) launch_record(pending_row_, halo_stream());
      pending_row_ = -1;
      STRATA_CUDA_CHECK(cudaEventRecord(halo_done_.get(), halo_stream()));
      if (mk) mark(mk->halo, halo_stream());
      halo_started_ = true;
      // The step's kernels start once the x and y faces are packed: NCCL's kernel, queued
      // right after the packs on the higher-priority stream, then finds SMs free. Launched
      // beside the packs, the interior's long-lived 2.5D blocks took every SM first and the
      // messages waited for them (4 x H200, 1x2x2: the exchange ended 0.26 ms into a 0.41 ms
      // step, after the far interior; 0.08-0.11 ms at 2 ranks, where z planes need no pack).
      STRATA_CUDA_CHECK(cudaStreamWaitEvent(st, packed_.get(), 0));
    }
    // The update's points next to the exchanged faces wait for the halo (the far ones, and
    // with no split, all, do not).
    auto near = [&] {
      if (!halo) return;
      STRATA_CUDA_CHECK(cudaStreamWaitEvent(st, halo_done_.get(), 0));
      for (const cuda::Region& r : near_)
        cuda::wave_update<T>(s_.lap, cur, prev, c2_, out, st, 0, r);
    };
    if (mirror_faces_ > 0) {
      kernels::wave_mirror_ghosts<T>
          <<<dim3(blocks_for(mirror_work_, 256), mirror_faces_), 256, 0, st>>>(cur.origin(),
                                                                               mirror_);
      STRATA_CUDA_CHECK_LAUNCH();
    }
    if (s_.pml.empty()) {
      if (!halo)
        update({});  // in place over u_prev
      else if (!far_.whole())
        cuda::wave_update<T>(s_.lap, cur, prev, c2_, out, st, 0, far_);
      if (mk) mark(mk->far, st);
      near();
    } else {
      // The shell runs beside the interior, each kind of box on a stream of its own: the
      // interior's 2.5D blocks leave SMs idle (120 tiles on 132 SMs at 512^3), and the
      // latency-bound shell kernels fill them, the interior's tail and each other's (one
      // stream for the whole shell: 2.6% slower at 512^3, 4-6% on a 2-rank split's boxes).
      // Forked after the mirror ghosts, joined before the sources.
      const bool shell = layers || halo || !has_interior_;
      STRATA_CUDA_CHECK(cudaEventRecord(fork_.get(), st));
      for (int k = 0; k < shell_streams_used_; ++k) {
        STRATA_CUDA_CHECK(cudaStreamWaitEvent(shell_streams_[k].get(), fork_.get(), 0));
        if (halo)
          STRATA_CUDA_CHECK(cudaStreamWaitEvent(shell_streams_[k].get(), halo_done_.get(), 0));
      }
      if (has_interior_ && !halo) update(interior_);
      if (has_interior_ && halo && !far_.whole())
        cuda::wave_update<T>(s_.lap, cur, prev, c2_, out, st, 0, far_);
      if (mk) mark(mk->far, st);
      cuda::with_radius(s_.radius,
                        [&](auto radius) { shell_update<decltype(radius)::value>(shell, out); });
      if (has_interior_) near();
      for (int k = 0; k < shell_streams_used_; ++k) {
        STRATA_CUDA_CHECK(cudaEventRecord(joins_[k].get(), shell_streams_[k].get()));
        STRATA_CUDA_CHECK(cudaStreamWaitEvent(st, joins_[k].get(), 0));
      }
      if (mk) mark(mk->joined, st);
      if (shell) std::swap(psi_, psi_next_);
    }
    if (inject_nodes_ > 0) {
      require(n >= wl_first_ && n < wl_first_ + wl_count_,
              "internal: no source amplitudes loaded for step " + std::to_string(n));
      const T* row = amps_.get() + std::size_t(n - wl_first_) * s_.sources.size();
      kernels::wave_inject<T><<<blocks_for(inject_nodes_, 128), 128, 0, st>>>(
          out.origin(), inject_off_.get(), inject_first_.get(), inject_src_.get(), inject_w_.get(),
          row, inject_nodes_);
      STRATA_CUDA_CHECK_LAUNCH();
    }
    if (mk) mark(mk->end, st);
    live_prev_ = live_u_;  // u becomes u-, the output u
    live_u_ = to;
  }

  std::vector<std::pair<std::string, double>> step_timeline() override {
    if (!marks_.any()) return {};
    STRATA_CUDA_CHECK(cudaStreamSynchronize(stream()));
    if (halo_started_) STRATA_CUDA_CHECK(cudaStreamSynchronize(halo_stream()));
    return marks_.medians({{"halo_done", &Marks::halo},
                           {"far_interior_done", &Marks::far},
                           {"shell_joined", &Marks::joined},
                           {"step_done", &Marks::end}});
  }

  void record(int row) override {
    require(row < s_.trace_rows, "internal: trace row past the buffer");
    if (!exchange_) return launch_record(row, stream());
    // Sampled after the next exchange of u's ghosts. A rank without receivers keeps the row
    // waiting too: flush_row exchanges, and every rank must make the same exchanges.
    flush_row();  // (a row is sampled once per step at most; this never waits in a run)
    pending_row_ = row;
  }

  std::vector<T> traces(int rows) const override {
    const_cast<CudaBackend*>(this)->flush_row();
    STRATA_CUDA_CHECK(cudaStreamSynchronize(stream()));
    if (halo_started_) STRATA_CUDA_CHECK(cudaStreamSynchronize(halo_stream()));
    return traces_.download(std::size_t(rows) * s_.receivers.size());
  }

  void set_halo_exchange(std::function<void(void*, void*)> exchange) override {
    exchange_ = std::move(exchange);
    cudaStream_t h = nullptr;
    int least = 0,
        greatest = 0;  // the highest priority: its packs and NCCL's kernel take SMs first
    STRATA_CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
    STRATA_CUDA_CHECK(cudaStreamCreateWithPriority(&h, cudaStreamNonBlocking, greatest));
    halo_stream_.reset(h);
    ready_ = cuda::make_order_event();
    halo_done_ = cuda::make_order_event();
    packed_ = cuda::make_order_event();
    set_near_far();
  }

  void set_traces(std::span<const T> data, int rows) override {
    require(data.size() == std::size_t(rows) * s_.receivers.size() && rows <= s_.trace_rows,
            "internal: trace rows of the wrong size");
    traces_.upload(std::vector<T>(data.begin(), data.end()));
  }

  std::vector<NamedArray<T>> save() const override {
    STRATA_CUDA_CHECK(cudaStreamSynchronize(stream()));
    std::vector<NamedArray<T>> out;
    for (const StateSlot& slot : state_slots(s_)) {
      const std::string name = state_name(slot, s_);
      switch (slot.kind) {
        case StateSlot::u:
          out.push_back({name, dense(u())});
          break;
        case StateSlot::u_prev:
          out.push_back({name, dense(up())});
          break;
        case StateSlot::psi:
          out.push_back({name, psi_[slot.layer].download(psi_[slot.layer].size())});
          break;
        case StateSlot::zeta:
          out.push_back({name, zeta_[slot.layer].download(zeta_[slot.layer].size())});
          break;
      }
    }
    return out;
  }

  void read_state(const StateSlot& slot, std::size_t first, std::size_t count,
                  T* dst) const override {
    STRATA_CUDA_CHECK(cudaStreamSynchronize(stream()));
    if (slot.kind == StateSlot::psi || slot.kind == StateSlot::zeta) {
      const DeviceArray<T>& a = slot.kind == StateSlot::psi ? psi_[slot.layer] : zeta_[slot.layer];
      require(first + count <= a.size(), "internal: state read past its array");
      STRATA_CUDA_CHECK(
          cudaMemcpy(dst, a.get() + first, count * sizeof(T), cudaMemcpyDeviceToHost));
      return;
    }
    const Field<T>& f = slot.kind == StateSlot::u ? u() : up();
    const std::size_t nx = std::size_t(s_.n.nx), plane = nx * std::size_t(s_.n.ny);
    require(first % plane == 0 && (count % plane == 0 || first + count == s_.n.points()),
            "internal: u is read in whole planes");
    for (std::size_t i = first; i < first + count; i += plane) {
      const int z = int(i / plane);
      STRATA_CUDA_CHECK(cudaMemcpy2D(dst + (i - first), nx * sizeof(T),
                                     f.data() + f.layout().index(0, 0, z),
                                     f.layout().pitch * sizeof(T), nx * sizeof(T),
                                     std::size_t(s_.n.ny), cudaMemcpyDeviceToHost));
    }
  }

  void load(const std::vector<NamedArray<T>>& arrays) override {
    STRATA_CUDA_CHECK(cudaStreamSynchronize(stream()));
    if (halo_started_) STRATA_CUDA_CHECK(cudaStreamSynchronize(halo_stream()));
    pending_row_ = -1;  // the state it would sample is replaced
    own_live();         // written below: no kept state may share the buffers
    for (const auto& a : arrays) {
      const StateSlot slot = state_slot(a.name, a.data.size(), s_);
      switch (slot.kind) {
        case StateSlot::u:
          u().load_interior(a.data);
          break;
        case StateSlot::u_prev:
          up().load_interior(a.data);
          break;
        case StateSlot::psi:
          psi_[slot.layer].upload(a.data);
          break;
        case StateSlot::zeta:
          zeta_[slot.layer].upload(a.data);
          break;
      }
    }
  }

  Field<T>& wavefield() override { return u(); }
  Field<T>& previous_wavefield() override { return up(); }

  void synchronize() override { STRATA_CUDA_CHECK(cudaStreamSynchronize(stream())); }

  // Kept states in device memory. u and u_prev are not copied: the live fields and the kept
  // states share one pool of field buffers (pool_), a store makes the slot refer to the live
  // state's two buffers, a restore makes the live state refer to the slot's, and a step whose
  // u- buffer a kept state refers to writes u+ into a free buffer instead of over u- (the
  // step after a store or a restore, and the one after it). The layers' psi and zeta are
  // copied, device to device on the backend's stream (a tenth of a state at 512^3 with
  // 16-point layers on five faces). Each kept state's two buffers, plus the live state's two,
  // are enough: when a step needs a free buffer, u- is one of the kept states' (at most 2C),
  // so at most 2C + 1 are taken. (With copies, a 512^3 x 2000 shot with 50 kept states moved
  // 1830 stores and 2000 restores of 1.2 GB each on an H200: 2.6 s of a 15 s shot.)
  Memory kept_state_memory() const override { return Memory::device; }
  double kept_state_bytes(const Setup&) const override { return double(state_bytes()); }
  void reserve_states(int count) override {
    require(count >= 0, "internal: a negative number of kept states");
    device_kept_.clear();
    std::fill(kept_refs_.begin(), kept_refs_.end(), 0);
    // The live state's buffers first (0 and 1), then the rest let go or made.
    std::swap(pool_[0], pool_[std::size_t(live_u_)]);
    if (live_prev_ == 0) live_prev_ = live_u_;
    std::swap(pool_[1], pool_[std::size_t(live_prev_)]);
    live_u_ = 0, live_prev_ = 1;
    while (pool_.size() > 2) pool_.pop_back(), kept_refs_.pop_back();
    require_device_memory(std::size_t(count) * state_bytes(),
                          std::to_string(count) + " kept forward states on the GPU (" +
                              std::to_string(state_bytes() >> 20) +
                              " MiB each): give a smaller memory budget or fewer checkpoints");
    for (int k = 0; k < 2 * count; ++k) {
      pool_.emplace_back(s_.n, s_.radius, Memory::device);
      kept_refs_.push_back(0);
    }
    for (int k = 0; k < count; ++k) {
      KeptState st;
      for (std::size_t f = 0; f < psi_.size(); ++f) {
        st.psi.emplace_back(psi_[f].size());
        st.zeta.emplace_back(zeta_[f].size());
      }
      device_kept_.push_back(std::move(st));
    }
  }
  void store_state(int slot) override {
    if (halo_started_) STRATA_CUDA_CHECK(cudaStreamSynchronize(halo_stream()));
    KeptState& st = device_kept_.at(std::size_t(slot));
    let_go(st);  // a slot is free when stored into; this keeps the counts right if not
    st.u = live_u_, st.up = live_prev_;
    ++kept_refs_[std::size_t(st.u)], ++kept_refs_[std::size_t(st.up)];
    for (std::size_t f = 0; f < psi_.size(); ++f) {
      copy(st.psi[f].get(), psi_[f].get(), psi_[f].size());
      copy(st.zeta[f].get(), zeta_[f].get(), zeta_[f].size());
    }
  }
  void reserve_rings(std::span<const std::size_t> points, int rows) override {
    ring_rows_.reset();
    ring_off_.reset();
    ring_points_ = std::int64_t(points.size());
    // The rows, the points' offsets, and for a moment their dense indices (uploaded to form
    // the offsets from).
    const std::size_t bytes = points.size() * (std::size_t(rows) * sizeof(T) +
                                               sizeof(std::int64_t) + sizeof(std::size_t));
    require_device_memory(bytes, std::to_string(rows) + " rings of " +
                                     std::to_string(points.size()) +
                                     " points (boundary saving) on the GPU");
    if (points.empty()) return;
    // The points' field offsets, formed on the device from their dense indices.
    const std::int64_t k = std::int64_t(points.size());
    {
      const DeviceArray<std::size_t> dense(points.size());
      runtime::copy_bytes(dense.get(), Memory::device, points.data(), Memory::host,
                          points.size() * sizeof(std::size_t));
      ring_off_.emplace(points.size());
      const Layout& L = u().layout();
      kernels::ring_offsets<<<blocks_for(k, 256), 256, 0, stream()>>>(
          dense.get(), k, s_.n.nx, s_.n.ny, std::int64_t(L.pitch), std::int64_t(L.plane),
          ring_off_->get());
      STRATA_CUDA_CHECK_LAUNCH();
      STRATA_CUDA_CHECK(cudaStreamSynchronize(stream()));  // before `dense` is freed
    }
    ring_rows_.emplace(points.size() * std::size_t(rows));  // zeroed (row 0: u_0 = 0)
  }
  void keep_ring(int row) override {
    if (!ring_points_) return;
    kernels::ring_gather<T><<<blocks_for(ring_points_, 256), 256, 0, stream()>>>(
        u().origin(), ring_off_->get(), ring_points_,
        ring_rows_->get() + std::size_t(row) * std::size_t(ring_points_));
    STRATA_CUDA_CHECK_LAUNCH();
  }
  void put_ring(int row) override {
    if (!ring_points_) return;
    const T* src =
        row < 0 ? nullptr : ring_rows_->get() + std::size_t(row) * std::size_t(ring_points_);
    own_live();  // written: no kept state may share the buffer
    kernels::ring_scatter<T><<<blocks_for(ring_points_, 256), 256, 0, stream()>>>(
        u().origin(), ring_off_->get(), ring_points_, src);
    STRATA_CUDA_CHECK_LAUNCH();
  }
  void swap_time() override {
    if (halo_started_) STRATA_CUDA_CHECK(cudaStreamSynchronize(halo_stream()));
    pending_row_ = -1;
    std::swap(live_u_, live_prev_);
  }

  // The live state refers to the slot's buffers (the next steps write elsewhere: output()).
  // A slot's last use (`release`) lets them go and trades its psi and zeta with the live
  // ones; other restores copy those.
  void restore_state(int slot, bool release) override {
    if (halo_started_) STRATA_CUDA_CHECK(cudaStreamSynchronize(halo_stream()));
    pending_row_ = -1;  // the state it would sample is replaced
    KeptState& st = device_kept_.at(std::size_t(slot));
    require(st.u >= 0, "internal: restoring a kept state never stored");
    live_u_ = st.u, live_prev_ = st.up;
    if (release) {
      let_go(st);
      std::swap(psi_, st.psi);
      std::swap(zeta_, st.zeta);
      return;
    }
    for (std::size_t f = 0; f < psi_.size(); ++f) {
      copy(psi_[f].get(), st.psi[f].get(), psi_[f].size());
      copy(zeta_[f].get(), st.zeta[f].get(), zeta_[f].size());
    }
  }

 private:
  struct KeptState {
    int u = -1, up = -1;  // pool_'s buffers holding u and u_prev (-1: none)
    std::vector<DeviceArray<T>> psi, zeta;
  };
  // The live fields: buffers of the pool.
  Field<T>& u() { return pool_[std::size_t(live_u_)]; }
  const Field<T>& u() const { return pool_[std::size_t(live_u_)]; }
  Field<T>& up() { return pool_[std::size_t(live_prev_)]; }
  const Field<T>& up() const { return pool_[std::size_t(live_prev_)]; }
  // A buffer neither live nor a kept state's.
  int free_buffer() const {
    for (std::size_t b = 0; b < pool_.size(); ++b)
      if (kept_refs_[b] == 0 && int(b) != live_u_ && int(b) != live_prev_) return int(b);
    throw Error("internal: no free wave field buffer");
  }
  // Where a step writes u+: over u- unless a kept state refers to u-'s buffer.
  int output() const {
    return kept_refs_[std::size_t(live_prev_)] == 0 ? live_prev_ : free_buffer();
  }
  void let_go(KeptState& st) {
    if (st.u >= 0) --kept_refs_[std::size_t(st.u)], --kept_refs_[std::size_t(st.up)];
    st.u = st.up = -1;
  }
  // Before the live fields are written in place (a load, a ring put back): copies of any a kept
  // state refers to.
  void own_live() {
    for (int* b : {&live_u_, &live_prev_}) {
      if (kept_refs_[std::size_t(*b)] == 0) continue;
      const int to = free_buffer();
      copy(pool_[std::size_t(to)].data(), pool_[std::size_t(*b)].data(), u().layout().size);
      *b = to;
    }
  }
  std::size_t state_bytes() const {
    std::size_t values = u().layout().size + up().layout().size;
    for (std::size_t f = 0; f < psi_.size(); ++f) values += psi_[f].size() + zeta_[f].size();
    return values * sizeof(T);
  }
  static void copy(T* dst, const T* src, std::size_t values) {
    if (values)
      STRATA_CUDA_CHECK(
          cudaMemcpyAsync(dst, src, values * sizeof(T), cudaMemcpyDeviceToDevice, stream()));
  }

  static cudaStream_t stream() { return nullptr; }  // the legacy default stream
  cudaStream_t halo_stream() const { return halo_stream_.get(); }

  void launch_record(int row, cudaStream_t st) {
    const int nr = int(s_.receivers.size());
    if (nr == 0) return;
    kernels::wave_record<T>
        <<<blocks_for(nr, 128), 128, 0, st>>>(u().origin(), record_off_.get(), record_w_.get(), nr,
                                              traces_.get() + std::size_t(row) * nr);
    STRATA_CUDA_CHECK_LAUNCH();
  }

  // A row still waiting for u's ghosts: one exchange now, then the row (collective: every
  // rank reaches it at the same step).
  void flush_row() {
    if (pending_row_ < 0) return;
    const int row = pending_row_;
    pending_row_ = -1;
    STRATA_CUDA_CHECK(cudaStreamSynchronize(stream()));
    exchange_(stream(), nullptr);
    launch_record(row, stream());
  }

  // The update's split beside the exchange: the box it covers (the whole grid, or the
  // interior between the absorbing layers) less R planes at each exchanged y or z face (far_),
  // and those planes (near_), which wait for the exchange. With x faces exchanged the x
  // planes would break the 2.5D kernel's aligned rows: no split, everything waits.
  void set_near_far() {
    near_.clear();
    const Extent n = s_.n;
    const cuda::Region base = s_.pml.empty() ? cuda::Region{0, 0, 0, n.nx, n.ny, n.nz} : interior_;
    if ((s_.pml.empty() || has_interior_) && !s_.exchanged[0] && !s_.exchanged[1]) {
      int lo[3] = {base.x0, base.y0, base.z0},
          hi[3] = {base.x0 + base.nx, base.y0 + base.ny, base.z0 + base.nz};
      for (int a = 2; a >= 1; --a)
        for (int side = 0; side < 2; ++side) {
          if (!s_.exchanged[2 * a + side] || lo[a] >= hi[a]) continue;
          int b0[3] = {lo[0], lo[1], lo[2]}, b1[3] = {hi[0], hi[1], hi[2]};
          if (side == 0)
            b1[a] = std::min(hi[a], lo[a] + s_.radius), lo[a] = b1[a];
          else
            b0[a] = std::max(lo[a], hi[a] - s_.radius), hi[a] = b0[a];
          near_.push_back({b0[0], b0[1], b0[2], b1[0] - b0[0], b1[1] - b0[1], b1[2] - b0[2]});
        }
      far_ = lo[0] < hi[0] && lo[1] < hi[1] && lo[2] < hi[2]
                 ? cuda::Region{lo[0], lo[1], lo[2], hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]}
                 : cuda::Region{};
    } else {
      far_ = {};
      if (s_.pml.empty() || has_interior_) near_.push_back(base);
    }
  }

  std::int64_t offset(int x, int y, int z) const {
    return std::int64_t(z) * u().layout().plane + std::int64_t(y) * u().layout().pitch + x;
  }

  static std::vector<T> dense(const Field<T>& f) {
    std::vector<T> v(f.extent().points());
    f.store_interior(v);
    return v;
  }

  using ShellKind = kernels::ShellKind;
  struct ShellLaunch {  // the boxes of one kind of shell box, and their blocks
    kernels::ShellBox boxes[26];
    int count = 0, blocks = 0;
    int stream = 0;  // which of shell_streams_ it runs on
  };

  // The interior box: the grid less the absorbing layers, its x start rounded up to a
  // 32-byte sector so the 2.5D kernel's rows stay aligned (where that leaves no interior,
  // the shell is the whole grid). The shell around it is cut, per axis, into the intervals
  // before, inside and after the interior: of the 26 boxes, the 6 faces lie in one layer
  // (y and z faces march along it, x faces are staged plane by plane) and the edges and
  // corners, where layers cross, gather per point. Without layers there is no shell.
  // The columns of the interior that the rounding leaves in the low x face box are also a
  // box of their own (columns_, of that box's kind, so their bits are the same): what
  // step_without_layers runs of the shell.
  void set_shell() {
    if (s_.pml.empty()) return;
    fork_ = cuda::make_order_event();
    const int n[3] = {s_.n.nx, s_.n.ny, s_.n.nz};
    int cut[3][4], layer_of[3][3];  // per axis: interval bounds; the layer of intervals 0 and 2
    for (int a = 0; a < 3; ++a) cut[a][0] = 0, cut[a][1] = 0, cut[a][2] = n[a], cut[a][3] = n[a];
    for (int a = 0; a < 3; ++a) layer_of[a][0] = layer_of[a][1] = layer_of[a][2] = -1;
    for (std::size_t f = 0; f < s_.pml.size(); ++f) {
      const PmlFace& p = s_.pml[f];
      if (p.face % 2 == 0)
        cut[p.axis][1] = p.hi[p.axis], layer_of[p.axis][0] = int(f);
      else
        cut[p.axis][2] = p.lo[p.axis], layer_of[p.axis][2] = int(f);
    }
    constexpr int kSector = 32 / int(sizeof(T));
    const int x_lo = cut[0][1];  // the interior's own x start
    cut[0][1] = std::min((cut[0][1] + kSector - 1) / kSector * kSector,
                         cut[0][2]);  // y, z: lo <= hi (plan)
    has_interior_ = cut[0][1] < cut[0][2] && cut[1][1] < cut[1][2] && cut[2][1] < cut[2][2];
    if (has_interior_)
      interior_ = {cut[0][1],
                   cut[1][1],
                   cut[2][1],
                   cut[0][2] - cut[0][1],
                   cut[1][2] - cut[1][1],
                   cut[2][2] - cut[2][1]};
    for (int iz = 0; iz < 3; ++iz)
      for (int iy = 0; iy < 3; ++iy)
        for (int ix = 0; ix < 3; ++ix) {
          const int iv[3] = {ix, iy, iz};
          int lo[3], e[3], outer = 0, face_axis = -1;
          for (int a = 0; a < 3; ++a) {
            lo[a] = cut[a][iv[a]];
            e[a] = cut[a][iv[a] + 1] - lo[a];
            if (iv[a] != 1) ++outer, face_axis = a;
          }
          if (outer == 0 || e[0] <= 0 || e[1] <= 0 || e[2] <= 0) continue;
          kernels::ShellBox B;
          for (int a = 0; a < 3; ++a) B.lo[a] = lo[a], B.n[a] = e[a];
          ShellKind kind = kernels::ShellKind::gather;
          if (outer == 1) {
            B.layer = layer_of[face_axis][iv[face_axis]];
            if (face_axis == 0 && kernels::ShellBox::stageable(e[0], s_.radius))
              kind = kernels::ShellKind::xslab;
            else if (face_axis != 0)
              kind = kernels::ShellKind::march, B.march = face_axis;
          } else {  // an edge or corner: march along its z layer, else its y layer
            B.march = iv[2] != 1 ? 2 : 1;
            B.layer = layer_of[B.march][iv[B.march]];
            kind = kernels::ShellKind::march_cross;
          }
          add_box(shell_[int(kind)], B, kind);
          if (ix == 0 && iy == 1 && iz == 1 && x_lo < cut[0][1]) {
            B.lo[0] = x_lo, B.n[0] = cut[0][1] - x_lo;
            add_box(columns_, B, kind);
            columns_kind_ = kind;
          }
        }
    // Each kind of box on a stream of its own: their writes are disjoint and their reads
    // (u, psi_in) read-only, so the launches overlap each other's ramps and tails.
    for (ShellLaunch& L : shell_)
      if (L.blocks > 0) L.stream = shell_streams_used_++;
    columns_.stream = shell_[int(columns_kind_)].stream;
    for (int k = 0; k < shell_streams_used_; ++k) {
      shell_streams_[k] = cuda::make_side_stream();
      joins_[k] = cuda::make_order_event();
    }
  }

  // Box B (its lo, n, march and layer set) into launch L with the shape of its kind.
  void add_box(ShellLaunch& L, kernels::ShellBox B, ShellKind kind) {
    const int e[3] = {B.n[0], B.n[1], B.n[2]};
    // 256 threads over tile_x x tile_c columns: 32-wide rows, or a staged x slab's whole
    // width, with fewer rows where 256 threads' plane and its halo would not fit in the stage
    // (a slab a few columns wide: the interior's columns).
    const int C = 3 - B.march, halo = 2 * s_.radius;
    B.tile_x = kind == kernels::ShellKind::xslab ? e[0] : std::min(e[0], 32);
    B.tile_c = kernels::ShellArgs<T, 1>::kThreads / B.tile_x;
    if (kind == kernels::ShellKind::xslab)
      B.tile_c = std::min(B.tile_c, kernels::ShellBox::kStageElems / (B.tile_x + halo) - halo);
    B.tiles_x = (e[0] + B.tile_x - 1) / B.tile_x;
    B.tiles_c = (e[C] + B.tile_c - 1) / B.tile_c;
    // A gathering thread takes 2 points (~1000 instructions each), so that there are
    // threads enough to hide their latency.
    // A face slab marches through its depth (16-20 points) in one go; an edge, whose
    // cross-section is small, in runs of 16, so that it has threads enough.
    B.mlen = kind == kernels::ShellKind::march         ? e[B.march]
             : kind == kernels::ShellKind::march_cross ? std::min(e[B.march], 16)
             : kind == kernels::ShellKind::xslab       ? std::min(e[B.march], 32)
                                                       : std::min(e[B.march], 2);
    B.first_block = L.blocks;
    const std::int64_t blocks =
        std::int64_t(B.tiles_x) * B.tiles_c * ((e[B.march] + B.mlen - 1) / B.mlen);
    require(L.blocks + blocks < (std::int64_t(1) << 31),
            "internal: absorbing shell too large for one launch");
    L.blocks += int(blocks);
    L.boxes[L.count++] = B;
  }

  // The shell's launches, each kind on its stream; `layers` false: the interior's columns
  // alone (columns_).
  template <int R>
  void shell_update(bool layers, Field<T>& out) {
    kernels::ShellArgs<T, R> a{};
    a.pitch = u().layout().pitch;
    a.plane = u().layout().plane;
    a.u_prev = up().origin();
    a.n[0] = s_.n.nx, a.n[1] = s_.n.ny, a.n[2] = s_.n.nz;
    for (int r = 0; r <= R; ++r)
      a.lap[r] = T(s_.lap[r]), a.d1[r] = T(s_.d1[r]), a.d2[r] = T(s_.d2[r]);
    for (std::size_t f = 0; f < s_.pml.size(); ++f) {
      const PmlFace& p = s_.pml[f];
      kernels::PmlLayer<T>& L = a.layer[a.layers++];
      L.axis = p.axis;
      for (int k = 0; k < 3; ++k) L.lo[k] = p.lo[k], L.hi[k] = p.hi[k];
      L.psi_in = psi_[f].get();
      L.psi_out = psi_next_[f].get();
      L.zeta = zeta_[f].get();
      L.a = coef_a_[f].get();
      L.b = coef_b_[f].get();
    }
    auto launch = [&](const ShellLaunch& L, auto kernel) {
      if (L.blocks == 0) return;
      a.boxes = L.count;
      for (int b = 0; b < L.count; ++b) a.box[b] = L.boxes[b];
      kernel<<<unsigned(L.blocks), kernels::ShellArgs<T, R>::kThreads, 0,
               shell_streams_[L.stream].get()>>>(u().origin(), out.origin(), c2_.origin(), a);
      STRATA_CUDA_CHECK_LAUNCH();
    };
    if (!layers) {  // the x face box's kind: a staged slab, or gathered
      if (columns_kind_ == ShellKind::xslab)
        launch(columns_, kernels::wave_shell_update<T, R, ShellKind::xslab>);
      else
        launch(columns_, kernels::wave_shell_update<T, R, ShellKind::gather>);
      return;
    }
    auto of = [&](ShellKind kind) -> const ShellLaunch& { return shell_[int(kind)]; };
    launch(of(ShellKind::march), kernels::wave_shell_update<T, R, ShellKind::march>);
    launch(of(ShellKind::xslab), kernels::wave_shell_update<T, R, ShellKind::xslab>);
    launch(of(ShellKind::march_cross), kernels::wave_shell_update<T, R, ShellKind::march_cross>);
    launch(of(ShellKind::gather), kernels::wave_shell_update<T, R, ShellKind::gather>);
  }

  // Each non-pml face as index arithmetic for wave_mirror_ghosts (mirror.cuh).
  void set_mirror_faces(const Layout& L) {
    const MirrorPlan p = mirror_plan(s_, L);
    mirror_ = p.args;
    mirror_faces_ = p.faces;
    mirror_work_ = p.work;
  }

  Setup s_;
  // The wave fields' buffers (the live u and u_prev, and the kept states': reserve_states); a
  // deque, so that a Field handed out (wavefield()) stays where it is as the pool grows.
  std::deque<Field<T>> pool_;
  std::vector<int> kept_refs_;      // per buffer: the kept states that refer to it
  int live_u_ = 0, live_prev_ = 1;  // the live u and u_prev
  Field<T> c2_;
  std::vector<KeptState> device_kept_;  // reserve_states
  std::int64_t ring_points_ = 0;        // reserve_rings: the points, their offsets, the rows
  std::optional<DeviceArray<std::int64_t>> ring_off_;
  std::optional<DeviceArray<T>> ring_rows_;
  kernels::MirrorArgs mirror_{};
  unsigned mirror_faces_ = 0;
  std::int64_t mirror_work_ = 0;  // ghost points of the largest mirrored face
  std::vector<DeviceArray<T>> psi_, psi_next_, zeta_, coef_a_, coef_b_;
  using EventPtr = cuda::EventPtr;
  cuda::StreamPtr shell_streams_[4], halo_stream_;
  EventPtr fork_, joins_[4], ready_, halo_done_, packed_;
  // STRATA_WAVE_TIMELINE=1 (a diagnostic, docs/multigpu.md): steps 20 .. 51 of this backend's
  // life carry timed events at their milestones (cuda::StepMarks); step_timeline() reads them.
  struct Marks {
    EventPtr start, halo, far, joined, end;
  };
  cuda::StepMarks<Marks> marks_{"STRATA_WAVE_TIMELINE", 20, 32};
  static void mark(EventPtr& e, cudaStream_t s) { cuda::StepMarks<Marks>::record(e, s); }
  int shell_streams_used_ = 0;
  std::function<void(void*, void*)> exchange_;  // a distributed run's (set_halo_exchange)
  bool halo_started_ = false;
  int pending_row_ = -1;            // a receivers' row waiting for the next exchange
  cuda::Region far_;                // the update's points that never wait for it
  std::vector<cuda::Region> near_;  // those that do
  cuda::Region interior_;           // where the plain fused update runs beside a shell
  bool has_interior_ = false;
  ShellLaunch shell_[4];  // by ShellKind
  // The columns of the interior between its own x start and interior_'s (step_without_layers
  // updates them so), in a box of the low x face box's kind.
  ShellLaunch columns_;
  ShellKind columns_kind_ = ShellKind::gather;
  int inject_nodes_ = 0;
  DeviceArray<std::int64_t> inject_off_;
  DeviceArray<int> inject_first_, inject_src_;
  DeviceArray<T> inject_w_;
  DeviceArray<std::int64_t> record_off_;
  DeviceArray<T> record_w_;
  DeviceArray<T> traces_, amps_;
  int wl_first_ = 0, wl_count_ = 0;
};

}  // namespace

}  // namespace strata::wave

namespace strata::cuda {

template <class T>
std::unique_ptr<wave::Backend<T>> make_wave_backend(Tag, const wave::Setup& s) {
  return std::make_unique<wave::CudaBackend<T>>(s);
}

template std::unique_ptr<wave::Backend<float>> make_wave_backend(Tag, const wave::Setup&);
template std::unique_ptr<wave::Backend<double>> make_wave_backend(Tag, const wave::Setup&);

}  // namespace strata::cuda

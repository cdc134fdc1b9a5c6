// The distributed family (`strata bench --kernel dist`, run under mpirun -np N): the halo
// fill (fill_ghosts) and the exchange alone (exchange_ghosts) beside NCCL's (or MPI's) own
// send/receive of the same messages, weak scaling
// of the 7-point apply (512^3 per rank against each rank's one-GPU rate in the same run)
// and strong scaling (a fixed 1024^3 grid on N ranks against rank 0 alone). Times are wall
// clock over a batch of back-to-back calls between barriers, the largest over the ranks:
// what a user's step loop sees, communication included.
#include <algorithm>
#include <chrono>
#include <vector>

#include "base/device_array.hpp"
#include "base/runtime.hpp"
#include "bench/dist.hpp"
#include "parallel/timeline.hpp"
#include "parallel/transport.hpp"
#include "strata/apply.hpp"
#include "strata/device.hpp"
#include "strata/dist.hpp"

namespace strata::bench {

namespace {

using dist::DistField;
using dist::Job;
using dist::ProcessGrid;

constexpr int kBatch = 10;  // calls per timed batch

// Median over reps of (wall time of kBatch calls) / kBatch, in ms, the slowest rank's.
template <class Fn>
Timing time_batches(const Options& opt, Fn&& fn) {
  const Job& job = Job::get();
  for (int i = 0; i < std::max(1, opt.warmup); ++i) fn();
  device_synchronize();
  std::vector<double> ms;
  for (int r = 0; r < opt.reps; ++r) {
    job.barrier();
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < kBatch; ++i) fn();
    device_synchronize();
    const double t = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    ms.push_back(job.max(t) / kBatch);
  }
  return summarize(ms);
}

template <class T>
void fill(Field<T>& f) {
  Field<T> h(f.extent(), f.ghost());
  const Extent n = f.extent();
  for (int z = 0; z < n.nz; ++z)
    for (int y = 0; y < n.ny; ++y)
      for (int x = 0; x < n.nx; ++x) h(x, y, z) = T(((x * 7 + y * 13 + z * 29) % 97) / 97.0 - 0.5);
  copy(h, f);
}

template <class T>
std::vector<Result> run(const Options& opt, Memory mem, const char* device) {
  const Job& job = Job::get();
  const int N = job.size();
  const Stencil s = Stencil::laplacian7();
  const Boundary bc = Boundary::dirichlet(0);
  std::vector<Result> rows;
  const int per = opt.shapes.empty() ? 512 : opt.shapes.front().nx;
  auto tag = [&](Result& r, const ProcessGrid& g) {
    r.extra["ranks"] = N;
    r.extra["process_grid"] = g.str();
  };

  // Weak scaling: per x per x per*N, z-slabs, against each rank's one-GPU apply of its box.
  {
    const Extent global{per, per, per * N};
    const ProcessGrid g = ProcessGrid::choose(global, N, 1);
    DistField<T> in(global, g, 1, mem), out(global, g, 1, mem);
    fill(in.local());
    Result alone = result_row(device, "7pt_one_rank", "local box, no exchange", precision_of<T>, in.box().local, 2 * sizeof(T));
    set_rates(alone, time_batches(opt, [&] { apply(s, in.local(), out.local(), bc); }));
    Result weak = result_row(device, "7pt_weak", "dist", precision_of<T>, global, 2 * sizeof(T));
    set_rates(weak, time_batches(opt, [&] { dist::apply(s, in, out, bc); }));
    tag(alone, g), tag(weak, g);
    if (mem == Memory::device) {  // one apply's timeline: when the halos arrive against the interior
      auto& marks = dist::timeline::apply_marks();
      for (auto& e : marks.ev) e = runtime::event_create_timed();
      marks.on = true;
      dist::apply(s, in, out, bc);
      marks.on = false;
      const char* names[4] = {"start", "halos_in_ms", "interior_done_ms", "shell_done_ms"};
      for (int i = 1; i < 4; ++i) weak.extra["timeline"][names[i]] = runtime::event_elapsed_ms(marks.ev[0], marks.ev[i]);
      for (auto& e : marks.ev) runtime::event_destroy(e), e = nullptr;
    }
    const double per_rank = weak.gpts_per_s / N;
    weak.extra["per_rank_gpts_per_s"] = per_rank;
    weak.extra["ratio_to_one_rank"] = per_rank / alone.gpts_per_s;
    rows.push_back(alone), rows.push_back(weak);

    // The exchange alone (a radius-1 and a radius-4 halo), beside NCCL's (on the host MPI's)
    // own send/receive of the same messages between the same ranks, whichever transport
    // fill_ghosts uses (CUDA IPC on one host).
    for (int w : {1, 4}) {
      if (w > 1) in = DistField<T>(global, g, w, mem);
      // z faces, the split axis: w whole planes (ghosts and padding included) each way
      const double face = double(w) * double(in.local().layout().plane) * sizeof(T);
      const int sends = (in.box().lo_face[2] ? 0 : 1) + (in.box().hi_face[2] ? 0 : 1);
      Result h = result_row(device, "halo_r" + std::to_string(w), "fill_ghosts", precision_of<T>, global, 0);
      const Timing th = time_batches(opt, [&] { in.fill_ghosts(bc, w); });
      h.median_ms = th.median_ms, h.min_ms = th.min_ms, h.max_ms = th.max_ms, h.reps = th.reps;
      h.gb_per_s = job.max(sends * face) / (th.median_ms * 1e6);  // bytes sent per rank per second
      h.extra["message_bytes"] = face;
      tag(h, g);
      // The exchange alone (exchange_ghosts: the neighbours' faces, none of the global faces'
      // fills): what of fill_ghosts is the transport's, and what the rest of the fill's.
      Result x = result_row(device, "halo_r" + std::to_string(w), "exchange_ghosts", precision_of<T>, global, 0);
      const Timing tx = time_batches(opt, [&] { in.exchange_ghosts(false, w); });
      x.median_ms = tx.median_ms, x.min_ms = tx.min_ms, x.max_ms = tx.max_ms, x.reps = tx.reps;
      x.gb_per_s = job.max(sends * face) / (tx.median_ms * 1e6);
      x.extra["message_bytes"] = face;
      tag(x, g);

      const std::size_t bytes = std::size_t(face);
      const int lo = in.box().lo_face[2] ? -1 : g.rank_of({0, 0, in.box().coords[2] - 1});
      const int hi = in.box().hi_face[2] ? -1 : g.rank_of({0, 0, in.box().coords[2] + 1});
      Result raw = result_row(device, "halo_r" + std::to_string(w), mem == Memory::device ? "nccl send/recv" : "mpi isend/irecv",
                              precision_of<T>, global, 0);
      std::vector<char> hbuf[4];
      DeviceArray<char> dbuf[4];
      void* p[4];
      for (int i = 0; i < 4; ++i) {
        if (mem == Memory::host) hbuf[i].assign(bytes, 1), p[i] = hbuf[i].data();
        else dbuf[i] = DeviceArray<char>(bytes), p[i] = dbuf[i].get();
      }
      const dist::transport::Leg legs[2] = {{hi, lo, p[0], p[1], bytes, 0}, {lo, hi, p[2], p[3], bytes, 1}};
      const Timing tr = time_batches(opt, [&] {
        if (mem == Memory::host) dist::transport::exchange_host(legs);
        else dist::transport::exchange_device_nccl(legs, nullptr);  // NCCL's rate, whatever fill_ghosts uses
      });
      raw.median_ms = tr.median_ms, raw.min_ms = tr.min_ms, raw.max_ms = tr.max_ms, raw.reps = tr.reps;
      raw.gb_per_s = job.max(sends * face) / (tr.median_ms * 1e6);
      raw.extra["message_bytes"] = face;
      h.ratio_to_copy = h.gb_per_s / raw.gb_per_s;
      h.reference = raw.variant;
      x.ratio_to_copy = x.gb_per_s / raw.gb_per_s;
      x.reference = raw.variant;
      tag(raw, g);
      rows.push_back(raw), rows.push_back(h), rows.push_back(x);
    }
  }

  // Strong scaling: a fixed grid (2*per)^3 on N ranks against rank 0 alone.
  {
    const Extent global{2 * per, 2 * per, 2 * per};
    const ProcessGrid g = opt.grid.empty() ? ProcessGrid::choose(global, N, 1) : ProcessGrid::parse(opt.grid);
    Result one = result_row(device, "7pt_strong", "rank 0 alone", precision_of<T>, global, 2 * sizeof(T));
    {
      Field<T> in(job.root() ? global : Extent{1, 1, 1}, 1, mem), out(in.extent(), 1, mem);
      if (job.root()) fill(in);
      set_rates(one, time_batches(opt, [&] {
        if (job.root()) apply(s, in, out, bc);
      }));
    }
    DistField<T> in(global, g, 1, mem), out(global, g, 1, mem);
    fill(in.local());
    Result many = result_row(device, "7pt_strong", "dist", precision_of<T>, global, 2 * sizeof(T));
    set_rates(many, time_batches(opt, [&] { dist::apply(s, in, out, bc); }));
    many.extra["speedup"] = one.median_ms / many.median_ms;
    tag(one, ProcessGrid{}), tag(many, g);
    rows.push_back(one), rows.push_back(many);
  }
  return rows;
}

}  // namespace

std::vector<Result> dist_cpu(const Options& opt) {
  const bool f64 = !opt.precisions.empty() && opt.precisions.front() == Precision::f64;
  return f64 ? run<double>(opt, Memory::host, "cpu") : run<float>(opt, Memory::host, "cpu");
}

std::vector<Result> dist_cuda(const Options& opt) {
  const bool f64 = !opt.precisions.empty() && opt.precisions.front() == Precision::f64;
  return f64 ? run<double>(opt, Memory::device, "cuda") : run<float>(opt, Memory::device, "cuda");
}

}  // namespace strata::bench

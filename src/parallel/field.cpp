// Distributed fields: the halo exchange (one axis at a time, x then y then z, so edges and
// corners arrive as a one-process fill makes them), the overlapped apply and the
// reductions over every rank.
#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

#include "backend/halo.hpp"
#include "backend/stencil.hpp"
#include "base/device_array.hpp"
#include "base/runtime.hpp"
#include "dispatch/backend.hpp"
#include "parallel/exchange.hpp"
#include "parallel/timeline.hpp"
#include "parallel/transport.hpp"
#include "strata/apply.hpp"
#include "strata/dist.hpp"
#include "strata/reduce.hpp"

namespace strata::dist {

namespace detail {

// Four pack buffers (send low, send high, receive low, receive high), each sized for the
// largest face of the box; host or device like the field. Reused by every axis: the
// exchanges of one field are ordered on one stream (or run at once on the host).
struct HaloBuffers {
  std::size_t bytes = 0;
  std::vector<char> host[4];
  DeviceArray<char> device[4];
  void* ptr(int i, Memory m) { return m == Memory::host ? static_cast<void*>(host[i].data()) : device[i].get(); }
};

}  // namespace detail

namespace {

int extent_of(Extent n, int axis) { return axis == 0 ? n.nx : axis == 1 ? n.ny : n.nz; }

// The box of `f` one axis's exchange covers: `lo`..`lo+len` along `axis`, and along the
// others what the earlier axes have filled (x before y before z): ghosts included on the
// axes below `axis`, interior only above it.
Region face_box(Extent n, int w, int axis, int lo, int len) {
  int b0[3], bn[3];
  for (int a = 0; a < 3; ++a) {
    if (a < axis) b0[a] = -w, bn[a] = extent_of(n, a) + 2 * w;
    else b0[a] = 0, bn[a] = extent_of(n, a);
  }
  b0[axis] = lo, bn[axis] = len;
  return {b0[0], b0[1], b0[2], bn[0], bn[1], bn[2]};
}

template <class T>
void fill_sides(Field<T>& f, const Boundary& bc, int w, int axis, bool lo, bool hi, void* stream) {
  if (!lo && !hi) return;
  on_backend(f.memory(), [&](auto tag) { fill_ghost_sides(tag, f, bc, w, axis, lo, hi, stream); });
}

}  // namespace

namespace detail {

Peers peers(const ProcessGrid& grid, const Subdomain& box, int axis, bool wrap) {
  const int p = grid.dims[axis];
  auto at = [&](int step) {
    std::array<int, 3> c = box.coords;
    c[axis] += step;
    if (c[axis] < 0 || c[axis] >= p) {
      if (!wrap) return -1;
      c[axis] = (c[axis] + p) % p;
    }
    return grid.rank_of(c);
  };
  return p == 1 ? Peers{} : Peers{at(-1), at(+1)};
}

void connect_device(const ProcessGrid& grid, const Subdomain& box) {
  if (grid.ranks() == 1) return;
  // A rank's neighbours depend on the process grid alone (the wrap included), and every
  // device DistField is made by every rank in the same order: once per grid is enough, and
  // every rank skips the same calls (a multigrid hierarchy makes some forty fields).
  static std::vector<std::array<int, 3>> connected;
  if (std::find(connected.begin(), connected.end(), grid.dims) != connected.end()) return;
  connected.push_back(grid.dims);
  // Every neighbour a fill may talk to, the periodic wrap included, per split axis.
  std::vector<int> lo, hi;
  for (int a = 0; a < 3; ++a) {
    if (grid.dims[a] == 1) continue;
    const Peers p = peers(grid, box, a, true);
    lo.push_back(p.lo);
    hi.push_back(p.hi);
  }
  prepare_device(lo, hi);
}

std::shared_ptr<HaloBuffers> make_halo_buffers() { return std::make_shared<HaloBuffers>(); }

template <class T>
void pack(const Field<T>& f, const Region& b, T* buf, void* stream) {
  on_backend(f.memory(), [&](auto tag) { pack_box(tag, f, b, buf, stream); });
}
template <class T>
void unpack(Field<T>& f, const Region& b, const T* buf, void* stream) {
  on_backend(f.memory(), [&](auto tag) { unpack_box(tag, f, b, buf, stream); });
}

template <class T>
void gather_parts(T* all, std::span<const std::size_t> start, std::span<const std::size_t> count, Memory memory,
                  void* stream) {
  const Job& job = Job::get();
  const int me = job.rank();
  // One message each way between every pair of ranks (MPI tells them apart by source, NCCL
  // by peer: each pair has one of each).
  std::vector<Leg> legs;
  for (int r = 0; r < job.size(); ++r) {
    if (r == me) continue;
    const std::size_t i = std::size_t(r), m = std::size_t(me);
    legs.push_back({r, -1, all + start[m], nullptr, count[m] * sizeof(T), 2});
    legs.push_back({-1, r, nullptr, all + start[i], count[i] * sizeof(T), 2});
  }
  if (legs.empty()) return;
  if (memory == Memory::host) exchange_host(legs);
  else exchange_device(legs, stream);
}

template <class T>
void exchange_axis(Field<T>& f, const ProcessGrid& grid, const Subdomain& box, bool wrap, int w, int axis,
                   HaloBuffers& hb, void* s) {
  const Peers peer = peers(grid, box, axis, wrap);
  if (peer.lo < 0 && peer.hi < 0) return;
  const Extent n = f.extent();
  const int len = extent_of(n, axis);
  const Memory m = f.memory();
  if (axis == 2) {
    // z faces are whole planes, contiguous in memory: sent from and received into the field
    // itself, no packing (and no kernel that would queue behind the interior's). The planes
    // carry their x and y ghosts, already filled; what lies beyond width w in them (padding,
    // wider ghosts) is never read by a stencil of radius w.
    const Layout& L = f.layout();
    auto planes = [&](int z) { return static_cast<void*>(f.data() + std::ptrdiff_t(L.ghost + z) * L.plane); };
    const std::size_t bytes = std::size_t(w) * std::size_t(L.plane) * sizeof(T);
    const Leg legs[2] = {{peer.hi, peer.lo, planes(len - w), planes(-w), bytes, 0},
                         {peer.lo, peer.hi, planes(0), planes(len), bytes, 1}};
    if (m == Memory::host) exchange_host(legs);
    else exchange_device(legs, s);
    return;
  }
  const Region send_lo = face_box(n, w, axis, 0, w), send_hi = face_box(n, w, axis, len - w, w);
  const Region recv_lo = face_box(n, w, axis, -w, w), recv_hi = face_box(n, w, axis, len, w);
  const std::size_t bytes = send_lo.points() * sizeof(T);
  if (hb.bytes < bytes) {
    for (int i = 0; i < 4; ++i) {
      if (m == Memory::host) hb.host[i].assign(bytes, 0);
      else hb.device[i] = DeviceArray<char>(bytes);
    }
    hb.bytes = bytes;
  }
  if (peer.hi >= 0) pack(f, send_hi, static_cast<T*>(hb.ptr(1, m)), s);
  if (peer.lo >= 0) pack(f, send_lo, static_cast<T*>(hb.ptr(0, m)), s);
  // Upward first (send the high face to the high neighbour, receive the low ghosts from the
  // low one), then downward: the same order on every rank, as NCCL matches in order.
  const Leg legs[2] = {{peer.hi, peer.lo, hb.ptr(1, m), hb.ptr(2, m), bytes, 0},
                       {peer.lo, peer.hi, hb.ptr(0, m), hb.ptr(3, m), bytes, 1}};
  if (m == Memory::host) exchange_host(legs);
  else exchange_device(legs, s);
  if (peer.lo >= 0) unpack(f, recv_lo, static_cast<const T*>(hb.ptr(2, m)), s);
  if (peer.hi >= 0) unpack(f, recv_hi, static_cast<const T*>(hb.ptr(3, m)), s);
}

}  // namespace detail

void connect_gpus(const ProcessGrid& grid, Extent global) {
  detail::connect_device(grid, Subdomain::of(grid, global, Job::get().rank()));
}

template <class T>
DistField<T>::DistField(Extent global, const ProcessGrid& grid, int ghost, Memory memory)
    : DistField(grid, (grid.require_fits(global, Job::get().size(), std::max(ghost, 1),
                                         "distributed " + global.str() + " field"),
                       Subdomain::even_cuts(grid, global)),
                ghost, memory) {}

template <class T>
DistField<T>::DistField(const ProcessGrid& grid, const Subdomain::Cuts& cuts, int ghost, Memory memory)
    : grid_(grid), halo_(detail::make_halo_buffers()) {
  const Job& job = Job::get();
  require(grid.ranks() == job.size(), "distributed field: process grid " + grid.str() + " has " +
                                          std::to_string(grid.ranks()) + " boxes but the job has " +
                                          std::to_string(job.size()) + " ranks");
  for (int a = 0; a < 3; ++a)
    for (int c = 0; grid.dims[a] > 1 && c < grid.dims[a]; ++c)
      require(cuts[a][std::size_t(c) + 1] - cuts[a][std::size_t(c)] >= std::max(ghost, 1),
              "internal: a distributed field's box is thinner than its " + std::to_string(ghost) + " ghost layers");
  box_ = Subdomain::of(grid, cuts, job.rank());
  local_ = Field<T>(box_.local, ghost, memory);
  if (memory == Memory::device) detail::connect_device(grid, box_);
}

template <class T>
void DistField<T>::fill_ghosts_axis(const Boundary& bc, int w, int axis, Stream stream) {
  fill_axis(bc, w, axis, true, stream);
}

template <class T>
void DistField<T>::exchange_ghosts(bool periodic, int w, Stream stream) {
  const Boundary bc = periodic ? Boundary::periodic() : Boundary::dirichlet(0.0);
  for (int axis = 0; axis < 3; ++axis) fill_axis(bc, w, axis, false, stream);
}

// `faces`: fill the global faces' ghosts by bc; otherwise leave them (exchange_ghosts), but
// for a periodic axis on one rank, whose wrap is this rank's own exchange.
template <class T>
void DistField<T>::fill_axis(const Boundary& bc, int w, int axis, bool faces, Stream stream) {
  require(w >= 1 && w <= local_.ghost(), "fill_ghosts: width " + std::to_string(w) + " outside 1.." +
                                             std::to_string(local_.ghost()));
  const bool wrap = bc.kind == BoundaryKind::periodic;
  const detail::Peers peer = detail::peers(grid_, box_, axis, wrap);
  if (grid_.dims[axis] == 1) return fill_sides(local_, bc, w, axis, faces || wrap, faces || wrap, stream.handle);
  fill_sides(local_, bc, w, axis, faces && peer.lo < 0, faces && peer.hi < 0, stream.handle);
  detail::exchange_axis(local_, grid_, box_, wrap, w, axis, *halo_, stream.handle);
}

template <class T>
void DistField<T>::fill_ghosts(const Boundary& bc, int width, Stream stream) {
  for (int axis = 0; axis < 3; ++axis) fill_ghosts_axis(bc, width, axis, stream);
}

namespace {

// The streams and events of the overlapped apply, made once per process (its GPU). The
// halo stream has the highest priority: its small kernels (packs, NCCL's, the shell) take
// SMs as soon as interior blocks retire instead of queueing behind the whole interior.
struct Overlap {
  void* halo = runtime::stream_create_high_priority();
  void* inputs_ready = runtime::event_create();
  void* shell_done = runtime::event_create();
  ~Overlap() {
    runtime::event_destroy(inputs_ready);
    runtime::event_destroy(shell_done);
    runtime::stream_destroy(halo);
  }
  static Overlap& get() {
    static Overlap o;
    return o;
  }
};

// The interior box that needs no ghost of the axes from `first` on, and the shell around it
// as disjoint boxes. Along x the cut is rounded out to 16 bytes (the kernels' loads start
// on one). An axis whose box is too thin for an interior goes wholly to the shell.
struct Split {
  Region interior;
  std::vector<Region> shell;
};

Split split(Extent n, int r, int first, int vec) {
  const int len[3] = {n.nx, n.ny, n.nz};
  int lo[3] = {0, 0, 0}, hi[3] = {len[0], len[1], len[2]};
  for (int a = first; a < 3; ++a) {
    lo[a] = r, hi[a] = len[a] - r;
    if (a == 0) lo[a] = (r + vec - 1) / vec * vec, hi[a] = (len[a] - r) / vec * vec;
    if (hi[a] <= lo[a]) lo[a] = len[a], hi[a] = len[a];  // no interior: the whole axis is shell
  }
  Split s;
  if (lo[0] < hi[0] && lo[1] < hi[1] && lo[2] < hi[2]) s.interior = {lo[0], lo[1], lo[2], hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]};
  // Outer axes first: z slabs span the whole x-y plane, y slabs the interior z range, x
  // slabs the interior y and z ranges.
  int b0[3] = {0, 0, 0}, b1[3] = {len[0], len[1], len[2]};
  for (int a = 2; a >= first; --a) {
    for (int side = 0; side < 2; ++side) {
      const int s0 = side == 0 ? 0 : hi[a], s1 = side == 0 ? lo[a] : len[a];
      if (s1 <= s0) continue;
      int c0[3] = {b0[0], b0[1], b0[2]}, c1[3] = {b1[0], b1[1], b1[2]};
      c0[a] = s0, c1[a] = s1;
      if (c1[0] > c0[0] && c1[1] > c0[1] && c1[2] > c0[2])
        s.shell.push_back({c0[0], c0[1], c0[2], c1[0] - c0[0], c1[1] - c0[1], c1[2] - c0[2]});
    }
    b0[a] = lo[a], b1[a] = hi[a];
  }
  return s;
}

template <class T>
void apply_region(const Stencil& s, const Field<T>& in, Field<T>& out, void* stream, const Region& r) {
  on_backend(in.memory(), [&](auto tag) { apply_interior(tag, s, in, out, stream, r); });
}

// One pass over a box whose `r` ghost layers the pass fills first, pass(region, stream)
// computing the region: axes before the first split one need only local ghost fills, done
// at once. The halo stream does the rest (exchanges, and the local fills that follow them,
// which read the exchanged ghosts at edges and corners) while the compute stream does the
// interior; the shell follows the halos on the halo stream, so it runs beside the
// interior's last blocks, and the compute stream then waits for it.
template <class T, class Pass>
void overlapped_pass(DistField<T>& in, const Boundary& bc, int r, Stream stream, Pass&& pass) {
  int first = 0;
  while (first < 3 && in.grid().dims[first] == 1) ++first;
  for (int a = 0; a < first; ++a) in.fill_ghosts_axis(bc, r, a, stream);

  const bool device = in.local().memory() == Memory::device;
  Overlap* ov = device ? &Overlap::get() : nullptr;
  const Stream halo = device ? Stream{ov->halo} : stream;
  detail::ApplyMarks& marks = detail::apply_marks();
  const bool mark = device && marks.on;
  if (mark) runtime::event_record(marks.ev[0], stream.handle);
  if (device) {
    runtime::event_record(ov->inputs_ready, stream.handle);
    runtime::stream_wait(halo.handle, ov->inputs_ready);
  }
  for (int a = first; a < 3; ++a) in.fill_ghosts_axis(bc, r, a, halo);
  if (mark) runtime::event_record(marks.ev[1], halo.handle);

  const Split parts = split(in.local().extent(), r, first, 16 / int(sizeof(T)));
  if (!parts.interior.whole()) pass(parts.interior, stream.handle);
  if (mark) runtime::event_record(marks.ev[2], stream.handle);
  for (const Region& box : parts.shell) pass(box, halo.handle);
  if (mark) runtime::event_record(marks.ev[3], halo.handle);
  if (device) {
    runtime::event_record(ov->shell_done, halo.handle);
    runtime::stream_wait(stream.handle, ov->shell_done);
  }
}

}  // namespace

template <class T>
void apply(const Stencil& stencil, DistField<T>& in, DistField<T>& out, const Boundary& bc, Stream stream) {
  require(in.global() == out.global() && in.grid().dims == out.grid().dims &&
              in.local().memory() == out.local().memory(),
          "distributed apply: in and out must share the global extent, process grid and memory");
  require(&in != &out, "distributed apply: in and out must be distinct fields");
  const int r = stencil.radius();
  if (in.grid().ranks() == 1) return strata::apply(stencil, in.local(), out.local(), bc, stream);
  require(in.local().ghost() >= r, "distributed apply: ghost width " + std::to_string(in.local().ghost()) +
                                       " is below the stencil radius " + std::to_string(r));
  overlapped_pass(in, bc, r, stream, [&](const Region& box, void* s) {
    apply_region(stencil, in.local(), out.local(), s, box);
  });
}

template <class T>
void apply_steps(const Stencil& s, DistField<T>& u, DistField<T>& scratch, const Boundary& bc, int steps,
                 const StepOptions& o, Stream stream) {
  require(steps >= 0, "distributed apply_steps: steps must be >= 0, got " + std::to_string(steps));
  require(&u != &scratch && u.global() == scratch.global() && u.grid().dims == scratch.grid().dims &&
              u.local().ghost() == scratch.local().ghost() && u.local().memory() == scratch.local().memory(),
          "distributed apply_steps: the scratch field must be a second field of u's grid " + u.global().str() +
              ", process grid " + u.grid().str() + ", ghost width " + std::to_string(u.local().ghost()) +
              " and memory");
  if (u.grid().ranks() == 1) return strata::apply_steps(s, u.local(), scratch.local(), bc, steps, o, stream);
  require(u.local().ghost() >= s.radius(), "distributed apply_steps: " + s.name() + " has radius " +
                                               std::to_string(s.radius()) + " but the fields have " +
                                               std::to_string(u.local().ghost()) + " ghost layers");
  require(o.update == StepUpdate::repeat || std::isfinite(o.c),
          "distributed apply_steps: the relaxation factor c must be finite, got " + std::to_string(o.c));
  require(o.fuse >= 0, "distributed apply_steps: fuse must be >= 0, got " + std::to_string(o.fuse));
  DistField<T>* cur = &u;
  DistField<T>* next = &scratch;
  for (int t = 0; t < steps; ++t) {
    // Each step as dist::apply's pass: the interior while the halos travel, then the shell.
    overlapped_pass(*cur, bc, s.radius(), stream, [&](const Region& box, void* st) {
      Field<T>& in = cur->local();
      Field<T>& out = next->local();
      if (o.update == StepUpdate::repeat)
        apply_region(s, in, out, st, box);
      else
        on_backend(in.memory(), [&](auto tag) { relax_interior(tag, s, o.c, in, out, st, box); });
    });
    std::swap(cur, next);
  }
  if (cur != &u)
    runtime::copy_bytes_async(u.local().data(), cur->local().data(), u.local().memory(), u.local().layout().bytes(),
                              stream.handle);
}

namespace detail {
ApplyMarks& apply_marks() {
  static ApplyMarks m;
  return m;
}
}  // namespace detail

template <class T>
void take_box(const Field<T>& whole, const Subdomain& b, Field<T>& mine, Stream stream) {
  require(whole.extent() == b.global && mine.extent() == b.local,
          "take_box: the whole field must be the global grid " + b.global.str() + " and the box field " +
              b.local.str());
  const Region from{b.offset[0], b.offset[1], b.offset[2], b.local.nx, b.local.ny, b.local.nz};
  const Region all{0, 0, 0, b.local.nx, b.local.ny, b.local.nz};
  if (whole.memory() == Memory::device) {
    DeviceArray<T> buf(b.local.points());
    detail::pack(whole, from, buf.get(), stream.handle);
    if (mine.memory() == Memory::device) {
      detail::unpack(mine, all, buf.get(), stream.handle);
      runtime::stream_synchronize(stream.handle);  // buf is freed on return
      return;
    }
    runtime::stream_synchronize(stream.handle);
    const std::vector<T> host = buf.download(b.local.points());
    detail::unpack(mine, all, host.data(), nullptr);
    return;
  }
  std::vector<T> host(b.local.points());
  detail::pack(whole, from, host.data(), nullptr);
  if (mine.memory() == Memory::host) return detail::unpack(mine, all, host.data(), nullptr);
  mine.load_interior(host);
}

template <class T>
double sum(const DistField<T>& f, Stream stream) {
  return Job::get().sum(strata::sum(f.local(), stream));
}
template <class T>
double dot(const DistField<T>& a, const DistField<T>& b, Stream stream) {
  return Job::get().sum(strata::dot(a.local(), b.local(), stream));
}
template <class T>
double norm2(const DistField<T>& f, Stream stream) {
  const double local = strata::norm2(f.local(), stream);
  return std::sqrt(Job::get().sum(local * local));
}
template <class T>
double max_abs(const DistField<T>& f, Stream stream) {
  return Job::get().max(double(strata::max_abs(f.local(), stream)));
}

#define STRATA_INSTANTIATE(T)                                                                   \
  template class DistField<T>;                                                                  \
  template void detail::exchange_axis(Field<T>&, const ProcessGrid&, const Subdomain&, bool, int, int,         \
                                      detail::HaloBuffers&, void*);                                         \
  template void detail::pack(const Field<T>&, const Region&, T*, void*);                        \
  template void detail::unpack(Field<T>&, const Region&, const T*, void*);                      \
  template void detail::gather_parts(T*, std::span<const std::size_t>, std::span<const std::size_t>, Memory, \
                                     void*);                                                    \
  template void apply(const Stencil&, DistField<T>&, DistField<T>&, const Boundary&, Stream);  \
  template void apply_steps(const Stencil&, DistField<T>&, DistField<T>&, const Boundary&, int,  \
                            const StepOptions&, Stream);                                        \
  template void take_box(const Field<T>&, const Subdomain&, Field<T>&, Stream);                 \
  template double sum(const DistField<T>&, Stream);                                             \
  template double dot(const DistField<T>&, const DistField<T>&, Stream);                        \
  template double norm2(const DistField<T>&, Stream);                                           \
  template double max_abs(const DistField<T>&, Stream);
STRATA_INSTANTIATE(float)
STRATA_INSTANTIATE(double)
#undef STRATA_INSTANTIATE

}  // namespace strata::dist

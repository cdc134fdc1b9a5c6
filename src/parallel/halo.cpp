// The halo exchange (halo.hpp): one axis at a time, x then y then z, so edges and corners
// arrive as a one-process fill makes them, or every axis's faces at once for stars; the boxes
// packed for it and for a gather.
#include "parallel/halo.hpp"

#include <algorithm>
#include <array>
#include <vector>

#include "backend/halo.hpp"
#include "base/runtime.hpp"
#include "dispatch/backend.hpp"
#include "parallel/transport.hpp"

namespace strata::dist {

namespace halo {

namespace {

int extent_of(Extent n, int axis) { return axis == 0 ? n.nx : axis == 1 ? n.ny : n.nz; }

// The box of `f` one axis's exchange covers: `lo`..`lo+len` along `axis`, and along the
// others what the earlier axes have filled (x before y before z): ghosts included on the
// axes below `axis`, interior only above it.
Region face_box(Extent n, int w, int axis, int lo, int len) {
  int b0[3], bn[3];
  for (int a = 0; a < 3; ++a) {
    if (a < axis)
      b0[a] = -w, bn[a] = extent_of(n, a) + 2 * w;
    else
      b0[a] = 0, bn[a] = extent_of(n, a);
  }
  b0[axis] = lo, bn[axis] = len;
  return {b0[0], b0[1], b0[2], bn[0], bn[1], bn[2]};
}

}  // namespace

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
  transport::prepare_device(lo, hi);
}

template <class T>
void pack(const Field<T>& f, const Region& b, T* buf, void* stream) {
  on_backend(f.memory(), [&](auto tag) { pack_box(tag, f, b, buf, stream); });
}
template <class T>
void unpack(Field<T>& f, const Region& b, const T* buf, void* stream) {
  on_backend(f.memory(), [&](auto tag) { unpack_box(tag, f, b, buf, stream); });
}

template <class T>
void gather_parts(T* all, std::span<const std::size_t> start, std::span<const std::size_t> count,
                  Memory memory, void* stream) {
  const Job& job = Job::get();
  const int me = job.rank();
  // One message each way between every pair of ranks (MPI tells them apart by source, NCCL
  // by peer: each pair has one of each).
  std::vector<transport::Leg> legs;
  for (int r = 0; r < job.size(); ++r) {
    if (r == me) continue;
    const std::size_t i = std::size_t(r), m = std::size_t(me);
    legs.push_back({r, -1, all + start[m], nullptr, count[m] * sizeof(T), 2});
    legs.push_back({-1, r, nullptr, all + start[i], count[i] * sizeof(T), 2});
  }
  if (legs.empty()) return;
  if (memory == Memory::host)
    transport::exchange_host(legs);
  else
    transport::exchange_device(legs, stream);
}

namespace {

void grow(Buffers& hb, std::size_t bytes, Memory m) {
  if (hb.bytes >= bytes) return;
  for (int i = 0; i < 4; ++i) {
    if (m == Memory::host)
      hb.host[i].assign(bytes, 0);
    else
      hb.device[i] = DeviceArray<char>(bytes);
  }
  hb.bytes = bytes;
}

// The faces exchange_faces packs: the x and y faces of the split axes over the interior of
// the other axes, each side's faces one after the other in a buffer; their total bytes.
std::size_t packed_faces_bytes(Extent n, const ProcessGrid& grid, int w, std::size_t size) {
  std::size_t bytes = 0;
  for (int a = 0; a < 2; ++a)
    if (grid.dims[a] > 1)
      bytes += std::size_t(w) * n.points() / std::size_t(extent_of(n, a)) * size;
  return bytes;
}

// The two legs of f's z faces, `w` whole planes each way, sent from and received into the
// field itself: upward (the high planes to the high neighbour, the low ghosts from the low
// one), then downward.
template <class T>
std::array<transport::Leg, 2> plane_legs(Field<T>& f, const Peers& peer, int w) {
  const Layout& L = f.layout();
  const int len = f.extent().nz;
  auto planes = [&](int z) {
    return static_cast<void*>(f.data() + std::ptrdiff_t(L.ghost + z) * L.plane);
  };
  const std::size_t bytes = std::size_t(w) * std::size_t(L.plane) * sizeof(T);
  return {transport::Leg{peer.hi, peer.lo, planes(len - w), planes(-w), bytes, 0},
          transport::Leg{peer.lo, peer.hi, planes(0), planes(len), bytes, 1}};
}

}  // namespace

template <class T>
void reserve(const Field<T>& f, const ProcessGrid& grid, Buffers& hb) {
  const int w = f.ghost();
  std::size_t bytes = 0;
  for (int axis = 0; axis < 2; ++axis)  // z faces travel from the field itself
    if (grid.dims[axis] > 1 && w > 0)
      bytes = std::max(bytes, face_box(f.extent(), w, axis, 0, w).points() * sizeof(T));
  if (w > 0) bytes = std::max(bytes, packed_faces_bytes(f.extent(), grid, w, sizeof(T)));
  if (bytes) grow(hb, bytes, f.memory());
}

template <class T>
void exchange_axis(Field<T>& f, const ProcessGrid& grid, const Subdomain& box, bool wrap, int w,
                   int axis, Buffers& hb, void* s) {
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
    const std::array<transport::Leg, 2> legs = plane_legs(f, peer, w);
    if (m == Memory::host)
      transport::exchange_host(legs);
    else
      transport::exchange_device(legs, s);
    return;
  }
  const Region send_lo = face_box(n, w, axis, 0, w), send_hi = face_box(n, w, axis, len - w, w);
  const Region recv_lo = face_box(n, w, axis, -w, w), recv_hi = face_box(n, w, axis, len, w);
  const std::size_t bytes = send_lo.points() * sizeof(T);
  grow(hb, bytes, m);
  if (peer.hi >= 0) pack(f, send_hi, static_cast<T*>(hb.ptr(1, m)), s);
  if (peer.lo >= 0) pack(f, send_lo, static_cast<T*>(hb.ptr(0, m)), s);
  // Upward first (send the high face to the high neighbour, receive the low ghosts from the
  // low one), then downward: the same order on every rank, as NCCL matches in order.
  const transport::Leg legs[2] = {{peer.hi, peer.lo, hb.ptr(1, m), hb.ptr(2, m), bytes, 0},
                                  {peer.lo, peer.hi, hb.ptr(0, m), hb.ptr(3, m), bytes, 1}};
  if (m == Memory::host)
    transport::exchange_host(legs);
  else
    transport::exchange_device(legs, s);
  if (peer.lo >= 0) unpack(f, recv_lo, static_cast<const T*>(hb.ptr(2, m)), s);
  if (peer.hi >= 0) unpack(f, recv_hi, static_cast<const T*>(hb.ptr(3, m)), s);
}

template <class T>
void exchange_faces(Field<T>& f, const ProcessGrid& grid, const Subdomain& box,
                    std::array<bool, 3> wrap, int w, Buffers& hb, void* s, void* packed) {
  const Extent n = f.extent();
  const Memory m = f.memory();
  // Legs in axis order, upward then downward on each: every rank posts them in the same order,
  // so NCCL (which matches a pair's messages in order) pairs them as exchange_axis's.
  std::vector<transport::Leg> legs;
  struct Face {
    Region lo, hi;        // the ghosts' boxes
    bool has_lo, has_hi;  // a neighbour on that side
    std::size_t at;       // offset in the buffers
  };
  std::vector<Face> unpacks;
  grow(hb, packed_faces_bytes(n, grid, w, sizeof(T)), m);
  std::size_t at = 0;
  for (int axis = 0; axis < 3; ++axis) {
    const Peers peer = peers(grid, box, axis, wrap[axis]);
    if (peer.lo < 0 && peer.hi < 0) continue;
    const int len = extent_of(n, axis);
    if (axis == 2) {
      // z planes as exchange_axis sends them (their x and y ghosts travel too and land in
      // ghosts no star reads).
      for (const transport::Leg& l : plane_legs(f, peer, w)) legs.push_back(l);
      continue;
    }
    auto face = [&](int lo) {
      Region r{0, 0, 0, n.nx, n.ny, n.nz};
      (axis == 0 ? r.x0 : r.y0) = lo;
      (axis == 0 ? r.nx : r.ny) = w;
      return r;
    };
    const std::size_t bytes = face(0).points() * sizeof(T);
    auto buf = [&](int i) { return static_cast<char*>(hb.ptr(i, m)) + at; };
    if (peer.hi >= 0) pack(f, face(len - w), reinterpret_cast<T*>(buf(1)), s);
    if (peer.lo >= 0) pack(f, face(0), reinterpret_cast<T*>(buf(0)), s);
    legs.push_back({peer.hi, peer.lo, buf(1), buf(2), bytes, 0});
    legs.push_back({peer.lo, peer.hi, buf(0), buf(3), bytes, 1});
    unpacks.push_back({face(-w), face(len), peer.lo >= 0, peer.hi >= 0, at});
    at += bytes;
  }
  if (packed && m == Memory::device) runtime::event_record(packed, s);
  if (legs.empty()) return;
  if (m == Memory::host)
    transport::exchange_host(legs);
  else
    transport::exchange_device(legs, s);
  for (const Face& u : unpacks) {
    if (u.has_lo)
      unpack(f, u.lo, reinterpret_cast<const T*>(static_cast<char*>(hb.ptr(2, m)) + u.at), s);
    if (u.has_hi)
      unpack(f, u.hi, reinterpret_cast<const T*>(static_cast<char*>(hb.ptr(3, m)) + u.at), s);
  }
}

#define STRATA_INSTANTIATE(T)                                                                  \
  template void exchange_faces(Field<T>&, const ProcessGrid&, const Subdomain&,                \
                               std::array<bool, 3>, int, Buffers&, void*, void*);              \
  template void exchange_axis(Field<T>&, const ProcessGrid&, const Subdomain&, bool, int, int, \
                              Buffers&, void*);                                                \
  template void reserve(const Field<T>&, const ProcessGrid&, Buffers&);                        \
  template void pack(const Field<T>&, const Region&, T*, void*);                               \
  template void unpack(Field<T>&, const Region&, const T*, void*);                             \
  template void gather_parts(T*, std::span<const std::size_t>, std::span<const std::size_t>,   \
                             Memory, void*);
STRATA_INSTANTIATE(float)
STRATA_INSTANTIATE(double)
#undef STRATA_INSTANTIATE

}  // namespace halo

void connect_gpus(const ProcessGrid& grid, Extent global) {
  halo::connect_device(grid, Subdomain::of(grid, global, Job::get().rank()));
}

}  // namespace strata::dist

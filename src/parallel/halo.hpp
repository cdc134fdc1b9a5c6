// The halo exchange of one rank's box, apart from DistField: what a solver that keeps its
// own fields (the wave backend's u) needs to trade ghost layers with its neighbours, and the
// boxes a gather moves between ranks (the coarse multigrid level's). DistField (field.cpp)
// is built on these; nothing here fills a global face. The solvers, the drivers and the
// benchmark call it by this name (strata::dist::halo); users have DistField.
#pragma once

#include <array>
#include <cstddef>
#include <span>
#include <vector>

#include "base/device_array.hpp"
#include "base/region.hpp"
#include "strata/dist.hpp"

namespace strata::dist::halo {

// The ranks beside one box along one axis (-1: a global face, nothing there).
struct Peers {
  int lo = -1, hi = -1;
};
// `wrap`: the axis is periodic, so the end boxes neighbour each other.
Peers peers(const ProcessGrid& grid, const Subdomain& box, int axis, bool wrap);

// Readies the device transport to every neighbour a box may talk to (NCCL's connection to
// each; see transport::prepare_device). Collective; nothing to do on one rank.
void connect_device(const ProcessGrid& grid, const Subdomain& box);

// Four pack buffers (send low, send high, receive low, receive high), each sized for the
// largest face of the box; host or device like the field. Reused by every axis: the
// exchanges of one field are ordered on one stream (or run at once on the host). Empty until
// the first exchange of an x or y face sizes them.
struct Buffers {
  std::size_t bytes = 0;
  std::vector<char> host[4];
  DeviceArray<char> device[4];
  void* ptr(int i, Memory m) {
    return m == Memory::host ? static_cast<void*>(host[i].data()) : device[i].get();
  }
};

// Sends `width` layers of f's faces along `axis` to the neighbours and receives theirs into
// f's ghosts (faces without a neighbour untouched). The box covered along the other axes is
// what the earlier axes filled: ghosts included on axes below `axis`, the interior above it,
// so exchanging x, then y, then z delivers edges and corners. z planes go straight from and
// into the field; x and y faces through pack buffers kept in `buffers`. Collective between
// neighbours; on the device ordered on `stream`.
template <class T>
void exchange_axis(Field<T>& f, const ProcessGrid& grid, const Subdomain& box, bool wrap, int width,
                   int axis, Buffers& buffers, void* stream);

// The faces of every split axis at once, `width` layers each over the interior of the other
// axes, as one message group: no edges or corners, so for stencils that read along the axes
// only (stars: the wave's Laplacian). One round instead of one per axis in turn (the wave's
// 1x2x2 grid waited for y's exchange, then z's). What the ghosts' edges and corners hold
// afterwards is unspecified. `wrap[a]`: exchange_axis's `wrap` for axis a. `packed`, an event
// (device only), is recorded on `stream` once the faces are packed, before the messages: work
// that waits for it leaves the messages' kernel the SMs it needs.
template <class T>
void exchange_faces(Field<T>& f, const ProcessGrid& grid, const Subdomain& box,
                    std::array<bool, 3> wrap, int width, Buffers& buffers, void* stream,
                    void* packed = nullptr);

// Sizes `buffers` for every exchange f can make (x and y faces of up to f's ghost width on
// the split axes), so that no exchange allocates: a device allocation in the middle of a
// solve waits for the GPU (a 4-rank multigrid cycle made one per level and buffer).
template <class T>
void reserve(const Field<T>& f, const ProcessGrid& grid, Buffers& buffers);

// Box b of f (interior coordinates) to and from a dense buffer, x fastest, in f's memory; on
// the device ordered on `stream`, on the host at once.
template <class T>
void pack(const Field<T>& f, const Region& b, T* buf, void* stream);
template <class T>
void unpack(Field<T>& f, const Region& b, const T* buf, void* stream);

// Every rank's part of `all` to every other rank: rank r's `count[r]` values start at
// `all + start[r]`, and each rank has put its own part in place. Host memory goes through
// MPI and is complete on return; device memory through one NCCL group on `stream`.
// Collective over the job.
template <class T>
void gather_parts(T* all, std::span<const std::size_t> start, std::span<const std::size_t> count,
                  Memory memory, void* stream);

}  // namespace strata::dist::halo

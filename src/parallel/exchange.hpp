// The halo exchange of one rank's box, apart from DistField: what a solver that keeps its
// own fields (the wave backend's u) needs to trade ghost layers with its neighbours, and
// the parallel write of one global file from every rank's box. DistField (field.cpp) and
// the .npy files (npy.cpp) are built on these; nothing here fills a global face.
#pragma once

#include <array>
#include <cstddef>
#include <functional>
#include <memory>
#include <span>
#include <string>

#include "base/region.hpp"
#include "strata/dist.hpp"

namespace strata::dist::detail {

// The ranks beside one box along one axis (-1: a global face, nothing there).
struct Peers {
  int lo = -1, hi = -1;
};
// `wrap`: the axis is periodic, so the end boxes neighbour each other.
Peers peers(const ProcessGrid& grid, const Subdomain& box, int axis, bool wrap);

// Readies the device transport to every neighbour a box may talk to (NCCL's connection to
// each; see prepare_device). Collective; nothing to do on one rank.
void connect_device(const ProcessGrid& grid, const Subdomain& box);

// Sends `width` layers of f's faces along `axis` to the neighbours and receives theirs into
// f's ghosts (faces without a neighbour untouched). The box covered along the other axes is
// what the earlier axes filled: ghosts included on axes below `axis`, the interior above it,
// so exchanging x, then y, then z delivers edges and corners. z planes go straight from and
// into the field; x and y faces through pack buffers kept in `buffers`. Collective between
// neighbours; on the device ordered on `stream`.
template <class T>
void exchange_axis(Field<T>& f, const ProcessGrid& grid, const Subdomain& box, bool wrap, int width, int axis,
                   HaloBuffers& buffers, void* stream);

std::shared_ptr<HaloBuffers> make_halo_buffers();

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
void gather_parts(T* all, std::span<const std::size_t> start, std::span<const std::size_t> count, Memory memory,
                  void* stream);

// One file of the global grid written by every rank at once: `head`, then the grid's values
// (nz, ny, nx) in C order, each rank's box of them from `dense` (its box, x fastest, `elem`
// bytes a value), then `tail`. Rank 0 makes the hidden temporary at its full size; every
// rank writes its rows into it; rank 0 renames it over `path` once all have, so nothing
// half-written is ever at `path`. Collective; a failure on any rank throws AgreedError on all.
void write_global(const std::string& path, const std::string& head, const std::string& tail, const Subdomain& box,
                  const void* dense, std::size_t elem);

// The same, the box's values from `rows`: rows(z, y, k) returns rows y .. y + k - 1 of the
// box's plane z, dense (x fastest), valid until its next call; k is at most `chunk_rows`.
// Rows that follow each other in the file (a box as wide as the grid) go out in one write.
using RowSource = std::function<const void*(int z, int y, int rows)>;
void write_global(const std::string& path, const std::string& head, const std::string& tail, const Subdomain& box,
                  std::size_t elem, int chunk_rows, const RowSource& rows);

}  // namespace strata::dist::detail

// DistField: one rank's box of the global grid with its ghost layers, filled by the
// neighbours' values (halo.hpp) and by the boundary on the global faces; take_box.
#include <algorithm>
#include <string>
#include <vector>

#include "backend/halo.hpp"
#include "base/device_array.hpp"
#include "base/runtime.hpp"
#include "dispatch/backend.hpp"
#include "parallel/halo.hpp"
#include "strata/dist.hpp"

namespace strata::dist {

namespace {

template <class T>
void fill_sides(Field<T>& f, const Boundary& bc, int w, int axis, bool lo, bool hi, void* stream) {
  if (!lo && !hi) return;
  on_backend(f.memory(), [&](auto tag) { fill_ghost_sides(tag, f, bc, w, axis, lo, hi, stream); });
}

}  // namespace

// The exchange's pack buffers, shared by the copies of a field.
template <class T>
struct DistField<T>::Halo : halo::Buffers {};

template <class T>
DistField<T>::DistField(Extent global, const ProcessGrid& grid, int ghost, Memory memory)
    : DistField(grid,
                (grid.require_fits(global, Job::get().size(), std::max(ghost, 1),
                                   "distributed " + global.str() + " field"),
                 Subdomain::even_cuts(grid, global)),
                ghost, memory) {}

template <class T>
DistField<T>::DistField(const ProcessGrid& grid, const Subdomain::Cuts& cuts, int ghost,
                        Memory memory)
    : grid_(grid), halo_(std::make_shared<Halo>()) {
  const Job& job = Job::get();
  require(grid.ranks() == job.size(), "distributed field: process grid " + grid.str() + " has " +
                                          std::to_string(grid.ranks()) + " boxes but the job has " +
                                          std::to_string(job.size()) + " ranks");
  for (int a = 0; a < 3; ++a)
    for (int c = 0; grid.dims[a] > 1 && c < grid.dims[a]; ++c)
      require(cuts[a][std::size_t(c) + 1] - cuts[a][std::size_t(c)] >= std::max(ghost, 1),
              "internal: a distributed field's box is thinner than its " + std::to_string(ghost) +
                  " ghost layers");
  box_ = Subdomain::of(grid, cuts, job.rank());
  local_ = Field<T>(box_.local, ghost, memory);
  halo::reserve(local_, grid, *halo_);  // no exchange allocates (or waits for the GPU to)
  if (memory == Memory::device) halo::connect_device(grid, box_);
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
  require(w >= 1 && w <= local_.ghost(), "fill_ghosts: width " + std::to_string(w) +
                                             " outside 1.." + std::to_string(local_.ghost()));
  const bool wrap = bc.kind == BoundaryKind::periodic;
  const halo::Peers peer = halo::peers(grid_, box_, axis, wrap);
  if (grid_.dims[axis] == 1)
    return fill_sides(local_, bc, w, axis, faces || wrap, faces || wrap, stream.handle);
  fill_sides(local_, bc, w, axis, faces && peer.lo < 0, faces && peer.hi < 0, stream.handle);
  halo::exchange_axis(local_, grid_, box_, wrap, w, axis, *halo_, stream.handle);
}

template <class T>
void DistField<T>::fill_ghosts(const Boundary& bc, int width, Stream stream) {
  for (int axis = 0; axis < 3; ++axis) fill_ghosts_axis(bc, width, axis, stream);
}

template <class T>
void take_box(const Field<T>& whole, const Subdomain& b, Field<T>& mine, Stream stream) {
  require(whole.extent() == b.global && mine.extent() == b.local,
          "take_box: the whole field must be the global grid " + b.global.str() +
              " and the box field " + b.local.str());
  const Region from{b.offset[0], b.offset[1], b.offset[2], b.local.nx, b.local.ny, b.local.nz};
  const Region all{0, 0, 0, b.local.nx, b.local.ny, b.local.nz};
  if (whole.memory() == Memory::device) {
    DeviceArray<T> buf(b.local.points());
    halo::pack(whole, from, buf.get(), stream.handle);
    if (mine.memory() == Memory::device) {
      halo::unpack(mine, all, buf.get(), stream.handle);
      runtime::stream_synchronize(stream.handle);  // buf is freed on return
      return;
    }
    runtime::stream_synchronize(stream.handle);
    const std::vector<T> host = buf.download(b.local.points());
    halo::unpack(mine, all, host.data(), nullptr);
    return;
  }
  std::vector<T> host(b.local.points());
  halo::pack(whole, from, host.data(), nullptr);
  if (mine.memory() == Memory::host) return halo::unpack(mine, all, host.data(), nullptr);
  mine.load_interior(host);
}

#define STRATA_INSTANTIATE(T)  \
  template class DistField<T>; \
  template void take_box(const Field<T>&, const Subdomain&, Field<T>&, Stream);
STRATA_INSTANTIATE(float)
STRATA_INSTANTIATE(double)
#undef STRATA_INSTANTIATE

}  // namespace strata::dist

// A box of a field's interior, in interior coordinates: where a pass writes when it covers
// only part of the grid (the wave's absorbing shell, the distributed apply's interior and
// shell while halos travel). Region{} is the whole interior.
#pragma once

#include <cstddef>

namespace strata {

struct Region {
  int x0 = 0, y0 = 0, z0 = 0;
  int nx = 0, ny = 0, nz = 0;  // 0: the whole interior
  bool whole() const { return nx == 0; }
  std::size_t points() const { return std::size_t(nx) * std::size_t(ny) * std::size_t(nz); }
};

}  // namespace strata

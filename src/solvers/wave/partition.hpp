// One rank's share of a distributed wave run: its box of the global grid, the backend Setup
// of that box, and which receivers it records. A box's faces inside the grid (and periodic
// faces split across ranks) take their ghosts from the neighbours by halo exchange after
// every step; its global faces keep their rule (mirror, CPML, periodic on one rank). Each
// absorbing layer lies whole in the end boxes along its axis (D1 psi reads the layer along
// that axis only), so no CPML memory crosses ranks. A source's taps go to the ranks holding
// their points; a receiver goes to the rank holding the lowest corner of its taps (the
// others lie within one point: in the ghosts, fresh after each step's exchange). Every point
// sees the same arithmetic in the same order as in one process: results are the same bits.
// The cuts along a split axis balance the work: an absorbing layer's points weigh what they
// cost (partition.cpp), so the box that holds a layer gets fewer planes.
// Owns the split; uses dist::ProcessGrid / Subdomain and backend/wave.hpp's Setup.
#pragma once

#include <string>
#include <vector>

#include "backend/wave.hpp"
#include "strata/dist.hpp"

namespace strata::wave {

struct Partition {
  dist::ProcessGrid grid;
  dist::Subdomain box;
  std::array<bool, 3> wrap{};  // periodic axes split across ranks: the exchange wraps
  std::vector<int> columns;    // global receiver index (seismogram column) of each local receiver
  std::string describe() const;  // "rank R of N, process grid PXxPYxPZ, box ... at ..."
};

// The process grid of a run over `ranks` ranks: `text` ("PXxPYxPZ") or, when empty, the grid
// with the least halo surface whose boxes hold the stencil radius and the absorbing layers.
// Throws Error for a grid that does not fit, naming what to change.
dist::ProcessGrid wave_process_grid(const Config& c, int ranks, const std::string& text);

// Rank `rank`'s part: its Setup (global setup restricted to its box, indices local) and
// Partition. Throws Error when a layer would be cut between ranks.
Setup partition_setup(const Setup& global, const dist::ProcessGrid& grid, int rank, Partition& part);

// The values of a dense global [z][y][x] array (or one per z plane when `planes`) in a box.
template <class T>
std::vector<T> box_values(std::span<const T> global, Extent n, const dist::Subdomain& box, bool planes);

}  // namespace strata::wave

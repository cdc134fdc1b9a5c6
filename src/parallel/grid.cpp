// The process grid: which rank owns which box of the global grid.
#include <algorithm>
#include <limits>

#include "strata/dist.hpp"

namespace strata::dist {

namespace {

int extent_of(Extent n, int axis) { return axis == 0 ? n.nx : axis == 1 ? n.ny : n.nz; }
const char* axis_name(int axis) { return axis == 0 ? "x" : axis == 1 ? "y" : "z"; }

// The thinnest box along an axis of n points split p ways.
int thinnest(int n, int p) { return n / p; }

}  // namespace

std::array<int, 3> ProcessGrid::coords(int rank) const {
  return {rank % dims[0], (rank / dims[0]) % dims[1], rank / (dims[0] * dims[1])};
}

int ProcessGrid::rank_of(std::array<int, 3> c) const { return (c[2] * dims[1] + c[1]) * dims[0] + c[0]; }

std::string ProcessGrid::str() const {
  return std::to_string(dims[0]) + "x" + std::to_string(dims[1]) + "x" + std::to_string(dims[2]);
}

ProcessGrid ProcessGrid::parse(const std::string& text, const std::string& what) {
  // Three whole numbers of digits alone (no sign, space or exponent), each 1 .. 2^20, joined by
  // 'x': anything else, an overflowing count included, is refused with the text as given.
  auto refuse = [&] {
    return Error(what + " '" + text + "': expected PXxPYxPZ, three whole numbers from 1 to " +
                 std::to_string(kMaxDim) + " joined by x, e.g. 1x1x2");
  };
  ProcessGrid g;
  std::size_t at = 0;
  for (int a = 0; a < 3; ++a) {
    if (a > 0) {
      if (at >= text.size() || text[at] != 'x') throw refuse();
      ++at;
    }
    long long v = 0;
    const std::size_t from = at;
    while (at < text.size() && text[at] >= '0' && text[at] <= '9') {
      v = v * 10 + (text[at] - '0');
      if (v > kMaxDim) throw refuse();
      ++at;
    }
    if (at == from || v < 1) throw refuse();
    g.dims[std::size_t(a)] = int(v);
  }
  if (at != text.size()) throw refuse();
  return g;
}

bool ProcessGrid::fits(Extent global, int min_width) const {
  for (int a = 0; a < 3; ++a)
    if (dims[a] > 1 && thinnest(extent_of(global, a), dims[a]) < min_width) return false;
  return true;
}

void ProcessGrid::require_fits(Extent global, int ranks_, int min_width, const std::string& what) const {
  if (ranks() != ranks_)
    throw Error(what + ": process grid " + str() + " has " + std::to_string(ranks()) + " boxes but the job has " +
                std::to_string(ranks_) + " rank" + (ranks_ == 1 ? "" : "s") + ": run it under mpirun -np " +
                std::to_string(ranks()) + ", one rank per box");
  for (int a = 0; a < 3; ++a) {
    const int n = extent_of(global, a);
    if (dims[a] > 1 && thinnest(n, dims[a]) < min_width)
      throw Error(what + ": process grid " + str() + " splits " + axis_name(a) + " (" + std::to_string(n) +
                  " points) " + std::to_string(dims[a]) + " ways, leaving boxes " + std::to_string(thinnest(n, dims[a])) +
                  " thick, thinner than the " + std::to_string(min_width) +
                  " ghost layers a box must be able to fill from one neighbour: use fewer ranks or a larger grid");
  }
}

namespace {

// What the cuts of `g` over `global` cost: each cut face's points weighted by how its axis
// travels. A z face is whole planes, sent from and received into the field as they are; a y
// face is packed and unpacked (rows of the box's x extent), an x face too, one point a row.
// Measured with the gpu512 wave (radius 4, 2 and 4 x H200, every grid of 2 and 4 ranks;
// docs/multigpu.md "The process grid"): what a y cut adds to the step is 1.45 times a z cut's
// at 2 ranks, an x cut's 2.1 times; at 4 ranks 1x1x4 stepped 3.31x one GPU against 1x2x2's
// 3.10x (the least surface), 2x1x2 2.60x, 1x4x1 2.58x, 2x2x1 2.49x, 4x1x1 2.02x. These weights
// order the 2- and 4-rank grids as measured but for the last two 4-rank near-equals.
constexpr double kCutWeight[3] = {4.0, 2.5, 1.0};

double cut_cost(Extent global, const ProcessGrid& g) {
  const double n[3] = {double(global.nx), double(global.ny), double(global.nz)};
  double cost = 0;
  for (int a = 0; a < 3; ++a) cost += (g.dims[a] - 1) * kCutWeight[a] * n[(a + 1) % 3] * n[(a + 2) % 3];
  return cost;
}

}  // namespace

ProcessGrid ProcessGrid::choose(Extent global, int ranks_, int min_width) {
  if (ranks_ < 1) throw Error("process grid: need at least one rank");
  ProcessGrid best{};
  double best_cost = std::numeric_limits<double>::infinity();
  // Iterate pz from large to small, so among equal costs the grid that splits z most
  // (contiguous faces) is found first.
  for (int pz = ranks_; pz >= 1; --pz) {
    if (ranks_ % pz) continue;
    for (int py = ranks_ / pz; py >= 1; --py) {
      if ((ranks_ / pz) % py) continue;
      const int px = ranks_ / pz / py;
      const ProcessGrid g{{px, py, pz}};
      if (!g.fits(global, min_width)) continue;
      const double cost = cut_cost(global, g);
      if (cost < best_cost) best_cost = cost, best = g;
    }
  }
  if (best_cost == std::numeric_limits<double>::infinity())
    throw Error("no process grid of " + std::to_string(ranks_) + " ranks fits the " + global.str() +
                " grid with boxes at least " + std::to_string(min_width) + " points thick: use fewer ranks");
  return best;
}

Subdomain::Cuts Subdomain::even_cuts(const ProcessGrid& grid, Extent global) {
  Cuts cuts;
  for (int a = 0; a < 3; ++a) {
    const int n = extent_of(global, a), p = grid.dims[a], base = n / p, rem = n % p;
    for (int c = 0; c <= p; ++c) cuts[a].push_back(c * base + std::min(c, rem));
  }
  return cuts;
}

Subdomain Subdomain::of(const ProcessGrid& grid, Extent global, int rank) {
  return of(grid, even_cuts(grid, global), rank);
}

Subdomain Subdomain::of(const ProcessGrid& grid, const Cuts& cuts, int rank) {
  Subdomain s;
  s.coords = grid.coords(rank);
  int local[3], global[3];
  for (int a = 0; a < 3; ++a) {
    const int p = grid.dims[a], c = s.coords[a];
    if (int(cuts[a].size()) != p + 1 || cuts[a].front() != 0)
      throw Error("internal: the cuts of axis " + std::string(axis_name(a)) + " do not match the process grid " +
                  grid.str());
    global[a] = cuts[a].back();
    local[a] = cuts[a][std::size_t(c) + 1] - cuts[a][std::size_t(c)];
    s.offset[a] = cuts[a][std::size_t(c)];
    s.lo_face[a] = c == 0;
    s.hi_face[a] = c == p - 1;
  }
  s.global = {global[0], global[1], global[2]};
  s.local = {local[0], local[1], local[2]};
  return s;
}

}  // namespace strata::dist

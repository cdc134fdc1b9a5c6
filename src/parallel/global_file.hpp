// One file of the global grid (a .npy, a .vti) written by every rank at once, each its own
// box of the values: write_npy (npy.cpp) and a wave run's snapshots are built on it.
#pragma once

#include <cstddef>
#include <functional>
#include <string>

#include "strata/dist.hpp"

namespace strata::dist::global_file {

// `head`, then the grid's values (nz, ny, nx) in C order, each rank's box of them from
// `dense` (its box, x fastest, `elem` bytes a value), then `tail`. Rank 0 makes the hidden
// temporary at its full size; every rank writes its rows into it; rank 0 renames it over
// `path` once all have, so nothing half-written is ever at `path`. Collective; a failure on
// any rank throws AgreedError on all.
void write(const std::string& path, const std::string& head, const std::string& tail,
           const Subdomain& box, const void* dense, std::size_t elem);

// The same, the box's values from `rows`: rows(z, y, k) returns rows y .. y + k - 1 of the
// box's plane z, dense (x fastest), valid until its next call; k is at most `chunk_rows`.
// Rows that follow each other in the file (a box as wide as the grid) go out in one write.
using RowSource = std::function<const void*(int z, int y, int rows)>;
void write(const std::string& path, const std::string& head, const std::string& tail,
           const Subdomain& box, std::size_t elem, int chunk_rows, const RowSource& rows);

}  // namespace strata::dist::global_file

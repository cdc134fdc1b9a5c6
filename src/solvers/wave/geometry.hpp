// Sources and receivers on the grid: the receiver list a configuration expands to, and
// trilinear interpolation taps of an off-grid point (the same taps inject a source and
// sample a receiver, so injection is the transpose of sampling).
// Owns positions -> grid taps and a source's wavelet; uses the public types and backend/wave.hpp's
// Tap; no I/O.
#pragma once

#include <string>
#include <vector>

#include "backend/wave.hpp"

namespace strata::wave {

// Every receiver in seismogram column order: points, then lines, then planes.
std::vector<Vec3> expand_receivers(const Config& c);

// True when p lies in the hull of the grid points: [h/2, (n - 1/2) h] on each axis.
bool inside_grid(const Vec3& p, Extent n, double h);
// "x [a, b], y [c, d], z [e, f] (m)": the allowed ranges, for messages.
std::string grid_hull(Extent n, double h);

// Up to 8 taps with non-zero weights summing to 1, no point repeated; p must be inside.
std::vector<Tap> trilinear_taps(const Vec3& p, Extent n, double h);

// What a source injects at time t: its amplitude times its Ricker wavelet (delay: the given
// one, else default_delay). The wave solver and the imaging runs take their wavelets here.
double source_wavelet(const Source& s, double t);

}  // namespace strata::wave

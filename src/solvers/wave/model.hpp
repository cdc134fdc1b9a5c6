// The velocity model a configuration names, in the run's precision: constant or layered by
// depth as one velocity per z plane (the grid is never built on the host: the backend forms
// (v dt / h)^2 from the planes where it lives), or a dense [z][y][x] array read from a .npy
// file. Every value is checked (finite, > 0) and the first bad one is named with its place.
// Owns reading the model (the one file the setup reads, through strata/npy.hpp); no device.
#pragma once

#include <algorithm>
#include <array>
#include <span>
#include <vector>

#include "io/digest.hpp"
#include "strata/wave.hpp"

namespace strata::wave {

template <class T>
struct VelocityModel {
  std::vector<T> planes;  // per z plane (constant, layered); empty for a dense model
  std::vector<T> dense;   // [z][y][x] (npy); empty for a per-plane model
  std::span<const T> values() const { return planes.empty() ? std::span<const T>(dense) : std::span<const T>(planes); }
  T min() const { return *std::min_element(values().begin(), values().end()); }
  T max() const { return *std::max_element(values().begin(), values().end()); }
};

template <class T>
VelocityModel<T> load_velocity(const Config& c);

// A .npy model's file is readable and of the grid's shape (nz, ny, nx); throws Error naming
// model.file otherwise.
void inspect_model_file(const Config& c);

// A .npy model without holding it (a run split over ranks: each rank needs its own box, one
// rank the rest). scan_model_file checks every value as load_velocity does, in the same order
// (so the first bad one is named alike), and returns the extremes; digest_model_file adds the
// values to d as Digest::add_bytes of the whole array would; read_model_box returns the box
// [offset, offset + box) dense. Each streams the file a few rows at a time.
struct ModelExtremes {
  double v_min = 0, v_max = 0;
};
template <class T>
ModelExtremes scan_model_file(const Config& c);
template <class T>
void digest_model_file(const Config& c, io::Digest& d);
template <class T>
std::vector<T> read_model_box(const Config& c, std::array<int, 3> offset, Extent box);

}  // namespace strata::wave

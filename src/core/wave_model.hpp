// The velocity model a configuration names, as a dense [z][y][x] array in the run's
// precision: constant, layered by depth, or read from a .npy file. Every value is checked
// (finite, > 0) and the first bad one is named with its grid position.
#pragma once

#include <vector>

#include "strata/wave.hpp"

namespace strata::wave {

template <class T>
std::vector<T> load_velocity(const Config& c);

}  // namespace strata::wave

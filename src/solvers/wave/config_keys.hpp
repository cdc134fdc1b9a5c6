// The parts of the configuration's schema (config.cpp) that other readers reuse: a source's
// keys, so that a shot's sources (src/drivers/wave/shots.cpp) are read, checked and written
// exactly as the configuration's "sources" are, with the same messages.
#pragma once

#include "io/schema.hpp"
#include "strata/wave.hpp"

namespace strata::wave {

// position (required, [x, y, z] m), frequency, amplitude, delay.
const schema::Keys<Source>& source_keys();

}  // namespace strata::wave

// Wave checkpoints: the step, the physics digest, the configuration and every state array
// in one file, written atomically (io::AtomicFile) so a crash never leaves a torn one.
// Layout: "STRATAWV", u32 version, u32 0, u64 header length, a JSON header (arrays, step,
// digest, precision, payload digest), zero padding to 64 bytes, then the raw arrays.
#pragma once

#include <string>
#include <vector>

#include "core/wave_backend.hpp"

namespace strata::wave {

template <class T>
struct Checkpoint {
  int step = 0;
  int trace_rows = 0;        // rows of "traces" recorded
  std::string digest;        // physics digest of the configuration that wrote it
  std::string config_json;   // that configuration, for the reader's information
  std::vector<NamedArray<T>> arrays;
};

template <class T>
void write_checkpoint(const std::string& path, const Checkpoint<T>& c);

// Throws Error when the file is missing, truncated, corrupt (payload digest), of another
// format version or of another precision than T.
template <class T>
Checkpoint<T> read_checkpoint(const std::string& path);

}  // namespace strata::wave

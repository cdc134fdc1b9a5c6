// Wave checkpoints: the step, the physics digest, the configuration and every state array
// in one file, written atomically (io::AtomicFile) so a crash never leaves a torn one.
// Layout (version 2): "STRATAWV", u32 version, u32 0, u64 header length, u64 digest, a JSON
// header (step, trace rows, physics digest, precision, arrays: name, count, offset, the
// configuration, and for one rank of a distributed run its box: "partition"), zero padding
// to 64 bytes, then the raw little-endian arrays. The digest covers the header text and every array, so an edited step, a renamed or swapped array or
// a changed count is refused like corrupt data.
// Owns the file format only; uses backend/wave.hpp's NamedArray and io/ (atomic file,
// digest, JSON); knows nothing of the Solver, the configuration's keys or a device.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "backend/wave.hpp"

namespace strata::wave {

template <class T>
struct Checkpoint {
  int step = 0;
  int trace_rows = 0;        // rows of "traces" recorded
  std::string digest;        // physics digest of the configuration that wrote it
  std::string config_json;   // that configuration, for the reader's information
  std::string partition;     // a distributed run's: which rank's box ("" : the whole grid)
  std::vector<NamedArray<T>> arrays;
};

// An array a reader expects: its name and number of values.
struct ArraySpec {
  std::string name;
  std::size_t count = 0;
};

template <class T>
void write_checkpoint(const std::string& path, const Checkpoint<T>& c);

// An array a checkpoint writes, read in pieces where it lives (on a GPU: copied down a
// piece at a time): read(first, count, dst) fills dst with values first .. first+count-1.
// Pieces are whole multiples of `granule` values (a field's planes) but for the last.
template <class T>
struct ArraySource {
  std::string name;
  std::size_t count = 0;
  std::size_t granule = 1;
  std::function<void(std::size_t first, std::size_t count, T* dst)> read;
};

// The same file as write_checkpoint, streamed through a buffer of ~64 MB, never held whole:
// the arrays are read once, the digest the preamble holds written there last (a stream
// target, which cannot go back, reads them twice: once for the digest, once to write).
// c.arrays is ignored. The written data goes to disk as it is written (the final fsync
// has little left to wait for).
// `before_commit`, when given, is called once the temporary holds everything, just before it
// is renamed over `path` (the ranks of a distributed run meet there, so that their files are
// replaced together).
template <class T>
void write_checkpoint(const std::string& path, const Checkpoint<T>& c, const std::vector<ArraySource<T>>& arrays,
                      const std::function<void()>& before_commit = {});

// Reads a checkpoint in stages, each refusing with an Error that names the file and the
// problem: the preamble and header (format, version, precision T, a header that is JSON
// without repeated keys, array sizes that add up to exactly the file's size) before
// anything is allocated for the data; then `expected`, called with the header fields
// filled in (arrays empty), says which arrays this state must hold (it may refuse, e.g. a
// step out of range); the arrays must be exactly those (each name once, the same counts);
// only then is the data read, and the digest over header and data checked.
template <class T>
Checkpoint<T> read_checkpoint(const std::string& path,
                              const std::function<std::vector<ArraySpec>(const Checkpoint<T>& header)>& expected);

// The physics digest a checkpoint records (its configuration's), from its header alone.
std::string checkpoint_digest(const std::string& path);

}  // namespace strata::wave

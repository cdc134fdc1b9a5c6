// The outputs of a run, checked before it does any work: for every verb and for Python alike.
#pragma once

#include <initializer_list>
#include <string>

namespace strata::drivers {

// Every output path that is not empty checked before a run does any work (io::check_output:
// its directory exists and is writable, it is not a directory or a read-only file, ...). Two
// outputs that name the same file (the same path, or two paths to one existing file) are
// refused, naming both: one would overwrite the other.
struct Output {
  const char* option;  // "--out" (the CLI's name; Python's keyword)
  std::string path;    // empty: not asked for
};
void check_outputs(std::initializer_list<Output> outputs);

}  // namespace strata::drivers

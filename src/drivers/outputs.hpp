// The outputs of a run, checked before it does any work: for every verb and for Python alike.
#pragma once

#include <initializer_list>
#include <span>
#include <string>

namespace strata::drivers {

// Every output path that is not empty checked before a run does any work (io::check_output:
// its directory exists and is writable, it is not a directory or a read-only file, ...). Two
// outputs that name the same file (the same path, or two paths to one existing file) are
// refused, naming both: one would overwrite the other.
struct Output {
  std::string option;  // "--out" (the CLI's name; Python's keyword)
  std::string path;    // empty: not asked for
};
// The run's input files, where writing over one would lose it (an inversion's data, its
// model, its configuration): an output that names one that is a regular file (the same path,
// or two paths to one file) is refused, naming both. A verb that works in place (strata apply
// --in x --out x) lists none.
using Input = Output;
void check_outputs(std::initializer_list<Output> outputs, std::initializer_list<Input> inputs = {});
// The input rule alone, for inputs known later (each shot's data file).
void check_not_inputs(std::span<const Output> outputs, std::span<const Input> inputs);

// `text` written to `path` as every output is (whole or not at all, missing parent
// directories created; a pipe or device written through).
void write_text(const std::string& path, const std::string& text);

// Removes the temporaries of every output still being written (a signal, or a failure that
// ends the job): async-signal-safe. Returns how many were removed.
int remove_unfinished_outputs() noexcept;

}  // namespace strata::drivers

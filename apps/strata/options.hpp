// Parsing shared by the verbs: number lists, shapes, precisions and the device choice,
// each failing with a message that says what is allowed.
#pragma once

#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "drivers/outputs.hpp"
#include "strata/device.hpp"
#include "strata/field.hpp"

namespace strata::cli {

// Every numeric option is checked by one of these as it is parsed, before any verb runs:
// a finite number (a whole number when `integer`) in [lo, hi] (an end excluded when open).
// The message names the option, the range and the text given ("--rtol: must be a number in
// (0, 1), got '-1'"), never "out of memory" or a fallback to a default.
// With `word`, that word is accepted too ("auto").
CLI::Validator number_in(double lo, double hi, bool integer = false, bool lo_open = false, bool hi_open = false,
                         const std::string& word = "");
inline CLI::Validator whole_number_in(double lo, double hi) { return number_in(lo, hi, true); }
// A comma-separated list of numbers: no empty list, no empty item ("-6,1," is refused).
CLI::Validator number_list();

// Every output path checked before a verb does any work, two naming one file refused: the
// drivers' rule (drivers/outputs.hpp), which Python shares.
using drivers::check_outputs;
using drivers::Output;

std::vector<double> parse_numbers(const std::string& text, const std::string& what);
Extent parse_shape(const std::string& text);  // "NX,NY,NZ" or "N" (cube)
Precision parse_precision(const std::string& text);
std::vector<Precision> parse_precisions(const std::string& text);  // f32 | f64 | all

// Before CLI11 parses (main): bare `strata` lists the verbs, one line each, and exits 0
// (throws CLI::Success); an unknown verb is refused naming the nearest; an option a verb
// does not have gets "did you mean" in CLI11's message (the app's failure message).
void check_command_line(CLI::App& app, int argc, char** argv);
// An option on the command line that `app` (or the verb argv[1] names) does not have is named
// in CLI11's failure message, with the nearest name when it is close: "PROGRAM VERB: unknown
// option '--stencl' (did you mean '--stencil'?)". check_command_line does it for strata;
// strata-lab, which has no verbs, calls it alone.
void hint_unknown_options(CLI::App& app, int argc, char** argv, const std::string& program);
// The candidate nearest to `word` by edit distance when it is close enough to be a typo
// (or `word` is the start of it), else "".
std::string nearest(const std::string& word, const std::vector<std::string>& candidates);

// --device's text ("auto", "cpu", "cuda" or "": auto) resolved to cpu or cuda (strata's
// Device); asking for cuda without a GPU is an error that says why there is none, and a GPU
// run's STRATA_TUNE is checked here, before any work.
Device resolve_device(const std::string& text);

}  // namespace strata::cli

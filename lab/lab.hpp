// strata-lab: the experiments of the CUDA texts strata was built from (docs/lab.md lists them) as
// ladders of numbered kernel variants, in the style of llm.c's dev/cuda. Each variant is
// checked against a CPU reference on the same data before it is timed; a row that fails
// its check is reported as such and never ranked. One experiment per file lab/<name>.cu;
// this header, lab/report.cpp and lab/main.cpp (the command line) are the harness they share.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace strata::lab {

struct Options {
  std::vector<std::int64_t> sizes;  // the experiment's problem sizes (empty: its defaults)
  int reps = 20;                    // timed repetitions per variant (median reported)
  int warmup = 3;
  bool small = false;               // test sizes: every variant run and checked, quickly
  bool quiet = false;               // no progress lines on stderr
};

// One measured variant of a ladder, or one point of a curve.
struct Row {
  std::string variant;    // "3 sequential addressing", "offset 4", ...
  std::string size;       // what it ran on: "2^22 int32", "16384^2 f32", ...
  double median_ms = 0, min_ms = 0, max_ms = 0;
  double value = 0;       // the figure of merit, in Report::unit (GB/s, TFLOP/s, ...)
  double ratio = 0;       // value over the reference's value (0: no reference)
  bool validated = false; // matched the CPU reference before it was timed
  std::string check;      // what the check found ("exact", "max rel err 3e-7", "FAILED: ...")
  nlohmann::ordered_json extra = nlohmann::ordered_json::object();  // further columns
};

// How `--plot` draws a report (python -m strata.plot LAB.json): a ladder as bars, a sweep
// as lines; axes, units and legend come from here.
struct Plot {
  std::string kind = "bars";  // "bars" | "lines"
  std::string title, xlabel, ylabel;
  bool logy = false;
  // [{ "label": "...", "x": [...], "y": [...] }, ...]: x are category names for bars
  nlohmann::ordered_json series = nlohmann::ordered_json::array();
  // [{ "label": "cudaMemcpy 2980 GB/s", "y": 2980 }, ...]: dashed horizontal lines
  nlohmann::ordered_json references = nlohmann::ordered_json::array();
};

struct Report {
  std::string experiment;        // "reduce"
  std::string title;             // one line: what the ladder shows
  std::string unit;              // of Row::value: "GB/s", "TFLOP/s", ...
  std::string reference;         // what Row::ratio divides by: "cudaMemcpy", "cuBLAS SGEMM"
  std::string device;            // the GPU's name
  std::vector<Row> rows;
  std::vector<std::string> notes;  // the seed's figures, the lessons, where strata uses them
  Plot plot;
  nlohmann::ordered_json extra = nlohmann::ordered_json::object();
};

struct Experiment {
  std::string name;     // the `strata-lab NAME` word
  std::string summary;  // one line for `strata-lab --help` / `strata-lab list`
  Report (*run)(const Options&);
};

// Every experiment, in the order the docs present them. Without the CUDA backend they are
// listed, and running one throws strata::Error saying why.
const std::vector<Experiment>& experiments();
const Experiment& find(const std::string& name);  // strata::Error naming the choices

void print(const Report& r, std::ostream& os);  // the table, then the notes
nlohmann::ordered_json to_json(const Report& r);
// Rows that ran but failed their check: "variant: check" lines (empty: all validated).
std::vector<std::string> failures(const Report& r);

// Helpers for experiments: bytes/s -> GB/s; step and cumulative speedups of a ladder's
// times filled in as extra columns "step" and "cumulative" (row i against i-1 and row 0).
double gbps(double bytes, double ms);
void ladder_speedups(Report& r, std::size_t first = 0, std::size_t last = SIZE_MAX);
// A bar series from the rows [first, last): x = variant names, y = values.
nlohmann::ordered_json bar_series(const Report& r, const std::string& label, std::size_t first = 0,
                                  std::size_t last = SIZE_MAX);

}  // namespace strata::lab

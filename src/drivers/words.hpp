// How a caller names what its user gives a run, for the drivers' messages: the CLI's options
// by default ("--out"), Python's keywords with python() ("out"). A message says the word the
// user typed.
#pragma once

#include <string>

namespace strata::drivers {

struct Words {
  std::string out = "--out", json = "--json", grid = "--grid", rhs = "--rhs", coeffs = "--coeffs",
              bc = "--bc", fuse = "--fuse", precision = "--precision", solver = "--solver",
              mixed = "--mixed", device = "--device", allow_nonfinite = "--allow-nonfinite",
              in = "--in";
  static Words python() {
    Words w;
    w.out = "out", w.json = "json", w.grid = "grid", w.rhs = "rhs", w.coeffs = "coeffs";
    w.bc = "bc", w.fuse = "fuse", w.precision = "precision", w.solver = "solver";
    w.mixed = "mixed=True", w.device = "device", w.allow_nonfinite = "allow_nonfinite=True";
    w.in = "in_";
    return w;
  }
};

}  // namespace strata::drivers

// The benchmark families behind `strata bench --kernel`, in the order they run: one table,
// so the CLI selects by name and its messages list what exists (nothing matched by
// substring). A family runs whole when named; a member name runs that kernel alone.
#pragma once

#include <string>
#include <vector>

#include "bench/bench.hpp"

namespace strata::bench {

using FamilyRunner = std::vector<Result> (*)(const Options&);

struct Family {
  std::string name;                  // "stencils", "reduce", "wave", "poisson"
  std::vector<std::string> members;  // kernels that may be named alone (Options::kernels)
  FamilyRunner cpu = nullptr;        // null: the family times the GPU only
  FamilyRunner cuda = nullptr;
  bool sweeps = false;  // takes --sweep's shapes; otherwise only --size/--shape (or its own)
};

const std::vector<Family>& families();

}  // namespace strata::bench

// The benchmark families behind `strata bench --kernel`, in the order they run: one table,
// so the CLI selects by name and its messages list what exists (nothing matched by
// substring). A family runs whole when named; a member name runs that kernel alone.
#pragma once

#include <string>
#include <vector>

#include "bench/bench.hpp"

namespace strata::bench {

using FamilyRunner = std::vector<Result> (*)(const Options&);

// Every family runs on both devices: a CPU-only build benchmarks every family it lists.
struct Family {
  std::string name;                  // "stencils", "reduce", "wave", "poisson"
  std::vector<std::string> members;  // kernels that may be named alone (Options::kernels)
  FamilyRunner cpu = nullptr;
  FamilyRunner cuda = nullptr;
  bool sweeps = false;  // takes --sweep's shapes; otherwise only --size/--shape (or its own)
};

const std::vector<Family>& families();

// What a --kernel list ("stencils,sum", "all", ...) selects: per family (families() order),
// whether it runs and which members (empty: the whole family). Throws Error for an unknown
// name (listing what exists). "all" leaves out dist in a job of one rank, with a line in
// `skipped`.
struct Selection {
  bool run = false;
  std::vector<std::string> kernels;
};
std::vector<Selection> select(const std::string& names, int ranks,
                              std::vector<std::string>& skipped);

// Runs the selected families in order. `opt.shapes` go to the families that sweep; the
// others get `explicit_shapes` (--size / --shape alone) or their own default.
std::vector<Result> run(const std::vector<Selection>& pick, const Options& opt,
                        const std::vector<Extent>& explicit_shapes, bool cuda);

}  // namespace strata::bench

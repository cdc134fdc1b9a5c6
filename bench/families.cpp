#include "bench/families.hpp"

#include <algorithm>
#include <sstream>

#include "bench/dist.hpp"
#include "bench/imaging.hpp"
#include "bench/poisson.hpp"
#include "bench/reduce.hpp"
#include "bench/steps.hpp"
#include "bench/transfers.hpp"
#include "bench/wave.hpp"
#include "strata/error.hpp"

namespace strata::bench {

const std::vector<Family>& families() {
  static const std::vector<Family> table = {
      {"stencils", stencil_kernels(), stencils_cpu, stencils_cuda, true},
      {"reduce", {"sum", "dot", "max_abs"}, reduce_cpu, reduce_cuda, false},
      {"wave", {}, wave_cpu, wave_cuda, false},
      {"steps", {}, steps_cpu, steps_cuda, false},
      {"poisson", {}, poisson_cpu, poisson_cuda, false},
      {"imaging", imaging_members(), imaging_cpu, imaging_cuda, false},
      {"transfers", {}, transfers_cpu, transfers_cuda, false},
      {"dist", {}, dist_cpu, dist_cuda, false},
  };
  return table;
}

std::vector<Selection> select(const std::string& names, int ranks,
                              std::vector<std::string>& skipped) {
  const auto& fams = families();
  std::vector<Selection> pick(fams.size());
  std::vector<bool> whole(fams.size(), false);
  auto allowed = [&] {
    std::string a;
    for (const Family& fam : fams) {
      a += fam.name + ", ";
      for (const std::string& m : fam.members) a += m + ", ";
    }
    return a + "all";
  };
  // Nothing named (an empty --kernel) would run nothing and report success.
  if (names.find_first_not_of(", \t") == std::string::npos)
    throw Error("no kernel named ('" + names +
                "'): give a family or a member, comma-separated: " + allowed());
  std::stringstream ss(names);
  std::string k;
  while (std::getline(ss, k, ',')) {
    bool known = false;
    for (std::size_t f = 0; f < fams.size(); ++f) {
      const Family& fam = fams[f];
      if (k == "all" && fam.name == "dist" && ranks == 1) {
        skipped.push_back(
            "dist skipped: it times several ranks (mpirun -np N strata bench --kernel dist)");
        known = true;
      } else if (k == "all" || k == fam.name) {
        pick[f].run = whole[f] = known = true;
      } else if (std::find(fam.members.begin(), fam.members.end(), k) != fam.members.end()) {
        pick[f].run = known = true;
        pick[f].kernels.push_back(k);
      }
    }
    if (!known) throw Error("unknown kernel '" + k + "': allowed " + allowed());
  }
  for (std::size_t f = 0; f < fams.size(); ++f)
    if (whole[f]) pick[f].kernels.clear();
  return pick;
}

std::vector<Result> run(const std::vector<Selection>& pick, const Options& opt,
                        const std::vector<Extent>& explicit_shapes, bool cuda) {
  const auto& fams = families();
  std::vector<Result> results;
  for (std::size_t f = 0; f < fams.size() && f < pick.size(); ++f) {
    if (!pick[f].run) continue;
    Options fopt = opt;
    fopt.kernels = pick[f].kernels;
    if (!fams[f].sweeps) fopt.shapes = explicit_shapes;  // the sweep is the stencils' study
    const auto r = cuda ? fams[f].cuda(fopt) : fams[f].cpu(fopt);
    results.insert(results.end(), r.begin(), r.end());
  }
  return results;
}

}  // namespace strata::bench

// strata tune: times every candidate launch shape of every tuned kernel family on this GPU
// now, prints the table of candidates and times, saves the fastest in the tuning cache that
// later runs read, and prints the row of the shipped table these measurements make
// (docs/performance.md, "Launch shapes measured per device").
#include <iostream>
#include <sstream>

#include "apps/strata/commands.hpp"
#include "apps/strata/options.hpp"
#include "drivers/report.hpp"
#include "bench/tune_report.hpp"
#include "strata/device.hpp"
#include "strata/tuning.hpp"

namespace strata::cli {

namespace {

struct TuneArgs {
  std::string kernels, precision = "all", json;
  int size = 512;
  bool no_save = false;
};

// --kernel names kernels (each in every --precision) or families ("7pt.f32").
std::vector<std::string> selected_families(const TuneArgs& a) {
  const std::vector<std::string> all = tuning::families();
  const std::vector<Precision> precisions = parse_precisions(a.precision);
  std::vector<std::string> out;
  std::stringstream ss(a.kernels);
  for (std::string k; std::getline(ss, k, ',');) {
    bool known = false;
    for (const std::string& f : all) {
      bool take = f == k;
      for (Precision p : precisions) take = take || f == k + "." + to_string(p);
      if (take) out.push_back(f);
      known = known || take;
    }
    if (!known) {
      std::string allowed;
      for (const std::string& f : all) allowed += (allowed.empty() ? "" : ", ") + f;
      throw Error(
          "--kernel '" + k +
          "': allowed copy, copy_halo, 7pt, star2, star3, star4, sym27, box27 or a family (" +
          allowed + ")");
    }
  }
  if (a.kernels.empty())
    for (const std::string& f : all)
      for (Precision p : precisions)
        if (f.ends_with(std::string(".") + to_string(p))) out.push_back(f);
  return out;
}

}  // namespace

void add_tune(CLI::App& app) {
  auto a = std::make_shared<TuneArgs>();
  auto* cmd = app.add_subcommand(
      "tune",
      "Measure the candidate launch shapes of every GPU kernel family on this GPU now (each "
      "checked bit for bit against the default first; seconds, not minutes), print them with "
      "their times, and save the fastest in the tuning cache that later runs use (whatever "
      "STRATA_TUNE says). Without it, a GPU that strata has no measurement for is measured "
      "the first time each family is needed (STRATA_TUNE=auto).");
  cmd->add_option("--kernel", a->kernels,
                  "comma-separated: copy, copy_halo, 7pt, star2, star3, star4, sym27, box27 (in "
                  "each --precision) or families such as 7pt.f32 (default: every family)");
  cmd->add_option("--precision", a->precision, "f32 | f64 | all")->capture_default_str();
  cmd->add_option("--size", a->size, "cube edge of the timing grid (smaller if memory is short)")
      ->capture_default_str()
      ->transform(whole_number_in(16, 2048));
  cmd->add_flag("--no-save", a->no_save, "print the times only; leave the cache as it is");
  cmd->add_option("--json", a->json,
                  "also write the table as JSON (atomically), with the shipped-table row");
  cmd->callback([a] {
    check_outputs({{"--json", a->json}});
    tuning::TuneOptions opt;
    opt.families = selected_families(*a);
    if (!cuda_available())
      throw Error("strata tune needs a GPU (it measures the GPU's kernels); no GPU can be used: " +
                  cuda_unavailable_reason());
    opt.size = a->size;
    opt.save = !a->no_save;
    std::cerr << "strata tune: " << opt.families.size() << " families, grid " << opt.size << "^3\n";
    const tuning::TuneReport r = tuning::tune(opt, [](const tuning::FamilyTiming& t) {
      std::cerr << "  " << t.family << ": " << t.chosen << " (" << t.seconds << " s)\n";
    });
    bench::print_tuning(std::cout, r);
    std::cout << "\n"
              << r.families.size() << " families measured on " << r.device << " in " << r.seconds
              << " s\ndevice key: " << r.key << "\ncache: " << (r.saved ? "saved in " : "")
              << r.cache << "\n";
    if (!r.shipped_row.empty())
      std::cout << "\nthe row of src/cuda/tuning/shipped_shapes.cpp these measurements make:\n"
                << r.shipped_row;
    if (!a->json.empty()) {
      drivers::write_report(a->json, bench::tuning_json(r));
      std::cerr << "tuning table written to " << a->json << "\n";
    }
  });
}

}  // namespace strata::cli

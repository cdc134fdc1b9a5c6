// `strata lab ...`: runs the lab's own program, strata-lab, found beside this strata, with the
// same words (docs/lab.md). The lab is apart so that strata links neither cuBLAS nor the lab's
// ladders; this verb only execs it, so it behaves exactly as strata-lab does.
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <string>
#include <system_error>
#include <vector>

#include "apps/strata/commands.hpp"
#include "strata/dist.hpp"
#include "strata/error.hpp"

namespace strata::cli {

namespace {

// strata-lab beside this binary, named as it is: strata -> strata-lab, and a CLI11
// compatibility build strata-cli11-<v> -> strata-lab-cli11-<v> (both built by lab/CMakeLists.txt).
std::filesystem::path lab_program() {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (ec)
    throw Error("strata lab cannot find this strata's folder (/proc/self/exe: " + ec.message() +
                "); run strata-lab directly (docs/lab.md)");
  const std::string name = self.filename().string();
  const std::string lab =
      name.rfind("strata", 0) == 0 ? "strata-lab" + name.substr(6) : "strata-lab";
  return self.parent_path() / lab;
}

}  // namespace

void add_lab(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "lab",
      "The seed documents' experiments on this GPU: numbered kernel variants side by side, each "
      "checked against a CPU reference before it is timed (docs/lab.md). Every experiment needs "
      "a GPU. `strata lab ...` runs strata-lab, the lab's own program beside strata, with the "
      "same words: `strata lab list` names them, `strata lab --help` is strata-lab's help.");
  cmd->prefix_command();  // every word after `lab` is kept as given, options and --help too
  cmd->set_help_flag();
  cmd->callback([cmd] {
    const std::filesystem::path lab = lab_program();
    if (::access(lab.c_str(), X_OK) != 0)
      throw Error(
          "strata lab runs the lab's own program, strata-lab, which is not beside this "
          "strata (no " +
          lab.string() +
          "): the same build makes it (target strata-lab, "
          "with STRATA_BUILD_CLI=ON) and `cmake --install` puts it beside strata; or run "
          "strata-lab from where it is (docs/lab.md)");
    if (dist::Job::get().size() > 1)
      throw Error("strata lab runs strata-lab, one process on one GPU: run it without mpirun");
    std::vector<std::string> words = cmd->remaining();
    std::vector<char*> argv{const_cast<char*>(lab.c_str())};
    for (std::string& w : words) argv.push_back(w.data());
    argv.push_back(nullptr);
    std::cout.flush();
    std::cerr.flush();
    ::execv(lab.c_str(), argv.data());
    throw Error("strata lab cannot run " + lab.string() + ": " + std::strerror(errno));
  });
}

}  // namespace strata::cli

// `strata lab`, for one release after it moved: the lab is its own program, strata-lab
// (docs/lab.md), so that strata links neither cuBLAS nor the lab's ladders. Whatever follows
// `lab` is answered by one line naming the command to run instead, and exit status 1.
#include <string>

#include "apps/strata/commands.hpp"
#include "strata/error.hpp"

namespace strata::cli {

void add_lab(CLI::App& app) {
  auto* cmd = app.add_subcommand("lab", "moved to its own program, strata-lab (docs/lab.md)");
  cmd->group("");         // not listed: neither by --help nor by bare `strata`
  cmd->prefix_command();  // every word after `lab` is kept as given, options and --help too
  cmd->set_help_flag();
  cmd->callback([cmd] {
    std::string words;
    for (const std::string& w : cmd->remaining()) words += " " + w;
    throw Error("the lab is its own program now: run `strata-lab" + words +
                "` (installed beside strata; docs/lab.md)");
  });
}

}  // namespace strata::cli

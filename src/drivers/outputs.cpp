// The output checks of every run (drivers/outputs.hpp).
#include "drivers/outputs.hpp"

#include <filesystem>

#include "io/atomic_file.hpp"
#include "strata/error.hpp"

namespace strata::drivers {

namespace {

namespace fs = std::filesystem;

// An input that is a regular file (a terminal, pipe or /dev/stdin read as input and
// /dev/stdout written are not one file to lose).
bool regular(const std::string& path) {
  std::error_code e;
  return !path.empty() && fs::is_regular_file(path, e) && !e;
}

void refuse_over_input(const Output& o, const Input& in) {
  if (!o.path.empty() && regular(in.path) && io::same_file(in.path, o.path))
    throw Error(o.option + " '" + o.path + "' is the " + in.option +
                " file the run reads: writing it would replace the run's own input; give " +
                o.option + " a path of its own");
}

}  // namespace

void check_outputs(std::initializer_list<Output> outputs, std::initializer_list<Input> inputs) {
  for (auto o = outputs.begin(); o != outputs.end(); ++o) {
    if (o->path.empty()) continue;
    for (auto p = outputs.begin(); p != o; ++p)
      if (!p->path.empty() && io::same_file(p->path, o->path))
        throw Error(p->option + " and " + o->option + " name the same file '" + o->path +
                    "': one would overwrite the other; give each its own path");
    for (const Input& in : inputs) refuse_over_input(*o, in);
    io::check_output(o->path);
  }
}

void check_not_inputs(std::span<const Output> outputs, std::span<const Input> inputs) {
  for (const Output& o : outputs)
    for (const Input& in : inputs) refuse_over_input(o, in);
}

void write_text(const std::string& path, const std::string& text) {
  io::AtomicFile file(path);
  file.write(text.data(), text.size());
  file.commit();
}

int remove_unfinished_outputs() noexcept { return io::remove_temporaries(); }

}  // namespace strata::drivers

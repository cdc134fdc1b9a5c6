// Phases, the JSON report and the output checks of every run (drivers/report.hpp).
#include "drivers/report.hpp"

#include <filesystem>

#include "io/tuning_state.hpp"
#include "strata/atomic_file.hpp"
#include "strata/dist.hpp"
#include "strata/error.hpp"
#include "strata/tuning.hpp"

namespace strata::drivers {

Phases::Phases(Clock::time_point from) : start(from), mark(Clock::now()) {
  const double before = since(start, mark), mpi = dist::Job::get().start_ms();
  if (mpi <= 0)
    ms = nlohmann::ordered_json::object({{"process_start", before}});
  else
    ms = nlohmann::ordered_json::object({{"mpi_start", mpi}, {"process_start", before - mpi}});
}

void Phases::end(const char* phase) {
  const Clock::time_point now = Clock::now();
  ms[phase] = ms.value(phase, 0.0) + since(mark, now);
  mark = now;
}

void Phases::total() { ms["total"] = since(start, Clock::now()); }

namespace {

template <class Json>
void write_json(const std::string& path, Json j) {
  if (!tuning::choices().empty()) j["launch_shapes"] = Json(io::tuning_state());
  const std::string text = j.dump(2) + "\n";
  io::AtomicFile file(path);
  file.write(text.data(), text.size());
  file.commit();
}

}  // namespace

void write_report(const std::string& path, nlohmann::ordered_json j) {
  write_json(path, std::move(j));
}
void write_report(const std::string& path, nlohmann::json j) { write_json(path, std::move(j)); }

void check_outputs(std::initializer_list<Output> outputs) {
  namespace fs = std::filesystem;
  const auto same = [](const std::string& a, const std::string& b) {
    std::error_code e1, e2;
    if (fs::weakly_canonical(a, e1) == fs::weakly_canonical(b, e2) && !e1 && !e2) return true;
    std::error_code e3;
    return fs::exists(a, e3) && fs::exists(b, e3) && fs::equivalent(a, b, e3) && !e3;
  };
  for (auto o = outputs.begin(); o != outputs.end(); ++o) {
    if (o->path.empty()) continue;
    for (auto p = outputs.begin(); p != o; ++p)
      if (!p->path.empty() && (p->path == o->path || same(p->path, o->path)))
        throw Error(std::string(p->option) + " and " + o->option + " name the same file '" +
                    o->path + "': one would overwrite the other; give each its own path");
    io::check_output(o->path);
  }
}

}  // namespace strata::drivers

// Phases, the JSON report and the output checks of every run (drivers/report.hpp).
#include "drivers/report.hpp"

#include "io/tuning_state.hpp"
#include "io/atomic_file.hpp"
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

}  // namespace strata::drivers

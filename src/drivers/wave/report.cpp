// A wave run's report (report.hpp): its pieces, report.json and the summary a program shows.
#include "drivers/wave/report.hpp"

#include <cstdio>
#include <sstream>

#include <nlohmann/json.hpp>

#include "drivers/wave/pictures.hpp"
#include "drivers/wave/run_directory.hpp"
#include "io/atomic_file.hpp"

namespace strata::wave {

Report start_report(const Config& c, const Plan& p) {
  Report rep;
  rep.plan = p;
  rep.device = p.device;
  rep.precision = to_string(c.precision);
  rep.shape = c.shape;
  rep.order = c.order;
  rep.dt = p.dt;
  rep.bytes_per_point = p.bytes_per_point;
  return rep;
}

void Warnings::operator()(const std::string& w) const {
  rep.warnings.push_back(w);
  if (opt.on_warning) opt.on_warning(w);
}

void warn_before_run(const Config& c, const Plan& p, const Warnings& warn) {
  for (const std::string& w : p.warnings) warn(w);
  if (c.sources.empty()) warn("no sources: u stays zero at every step (a run starts from u = 0)");
  if (p.receivers.empty()) warn("no receivers: no seismogram will be written");
  if (const std::string w = plain_pictures_warning(c); !w.empty()) warn(w);
}

void finish_rates(Report& rep, double points) {
  const double compute = rep.compute_s;
  rep.gpts_per_s = compute > 0 ? points * rep.steps_run / compute / 1e9 : 0;
  rep.gb_per_s = rep.gpts_per_s * rep.bytes_per_point;
  rep.ratio_to_copy = rep.copy_gb_per_s > 0 ? rep.gb_per_s / (rep.copy_gb_per_s * rep.ranks) : 0;
}

void write_report(Report& rep, const std::string& out_dir, PhaseTimes& times,
                  Clock::time_point t_results, Clock::time_point t_start) {
  const std::string report_path = path_join(out_dir, "report.json");
  rep.outputs.push_back(report_path);
  times.add_since("results", t_results);
  rep.wall_s = seconds_since(t_start);
  rep.phases_s = times.s;
  const std::string text = to_json(rep) + "\n";
  io::AtomicFile f(report_path);
  f.write(text.data(), text.size());
  f.commit();
}

Interrupted::Interrupted(int step_reached, std::string checkpoint_path, int checkpoint_at)
    : Error("the run was interrupted at step " + std::to_string(step_reached) +
            (checkpoint_path.empty()
                 ? std::string("; no checkpoint was written (output.checkpoint_every is 0)")
                 : "; the last valid checkpoint is " + checkpoint_path + " (step " +
                       std::to_string(checkpoint_at) + "): continue with --restart")),
      step(step_reached),
      checkpoint(std::move(checkpoint_path)),
      checkpoint_step(checkpoint_at) {}

std::string to_json(const Report& r) {
  nlohmann::ordered_json j;
  j["device"] = to_string(r.device);
  j["precision"] = r.precision;
  j["shape"] = {r.shape.nx, r.shape.ny, r.shape.nz};
  j["order"] = r.order;
  if (!r.process_grid.empty()) j["ranks"] = r.ranks, j["process_grid"] = r.process_grid;
  if (!r.gpu_exchange.empty()) j["gpu_exchange"] = r.gpu_exchange;
  j["first_step"] = r.first_step;
  j["last_step"] = r.last_step;
  j["steps_run"] = r.steps_run;
  j["dt"] = r.dt;
  j["dt_limit"] = r.plan.dt_limit;
  j["courant"] = r.plan.courant;
  j["v_min"] = r.plan.v_min;
  j["v_max"] = r.plan.v_max;
  j["points_per_wavelength"] = r.plan.points_per_wavelength > 0
                                   ? nlohmann::ordered_json(r.plan.points_per_wavelength)
                                   : nlohmann::ordered_json(nullptr);  // no source
  j["receivers"] = r.plan.receivers.size();
  j["digest"] = r.plan.digest;
  j["wall_s"] = r.wall_s;
  j["compute_s"] = r.compute_s;
  j["phases_s"] = nlohmann::ordered_json::object();
  for (const auto& [name, v] : r.phases_s) j["phases_s"][name] = v;
  if (!r.step_timeline_ms.empty()) {
    j["step_timeline_ms"] = nlohmann::ordered_json::object();
    for (const auto& [name, v] : r.step_timeline_ms) j["step_timeline_ms"][name] = v;
  }
  if (!r.step_timeline_ms_by_rank.empty()) {
    j["step_timeline_ms_by_rank"] = nlohmann::ordered_json::array();
    for (const auto& one : r.step_timeline_ms_by_rank) {
      nlohmann::ordered_json o = nlohmann::ordered_json::object();
      for (const auto& [name, v] : one) o[name] = v;
      j["step_timeline_ms_by_rank"].push_back(o);
    }
  }
  j["gpts_per_s"] = r.gpts_per_s;
  j["gb_per_s"] = r.gb_per_s;
  j["bytes_per_point"] = r.bytes_per_point;
  if (r.copy_gb_per_s > 0) {  // the GPU only
    j["copy_gb_per_s"] = r.copy_gb_per_s;
    j["copy_gpts_per_s_at_bytes_per_point"] =
        r.bytes_per_point > 0 ? r.copy_gb_per_s / r.bytes_per_point : 0;
    j["ratio_to_copy"] = r.ratio_to_copy;
  }
  j["warnings"] = r.warnings;
  j["outputs"] = r.outputs;
  return j.dump(2);
}

std::string to_text(const Report& r) {
  char b[1024];
  std::ostringstream s;
  std::snprintf(b, sizeof b, "strata wave: %d steps (%d -> %d) on a %s grid, order %d, %s, %s",
                r.steps_run, r.first_step, r.last_step, r.shape.str().c_str(), r.order,
                r.precision.c_str(), to_string(r.device));
  s << b;
  if (!r.process_grid.empty())
    s << " x " << r.ranks << " rank" << (r.ranks > 1 ? "s" : "") << " (process grid "
      << r.process_grid << ")";
  s << "\n";
  char ppw[64] = "no source";
  if (r.plan.points_per_wavelength > 0)
    std::snprintf(ppw, sizeof ppw, "%.3g points per wavelength", r.plan.points_per_wavelength);
  std::snprintf(b, sizeof b,
                "  dt %s s (stability limit %s s, Courant number %.3f), v %s..%s m/s, %s\n",
                format_number(r.dt).c_str(), format_number(r.plan.dt_limit).c_str(), r.plan.courant,
                format_number(r.plan.v_min).c_str(), format_number(r.plan.v_max).c_str(), ppw);
  s << b;
  std::snprintf(b, sizeof b, "  wall %.3f s, stepping %.3f s: %.4g Gpts/s, %.4g GB/s at %g B/point",
                r.wall_s, r.compute_s, r.gpts_per_s, r.gb_per_s, r.bytes_per_point);
  s << b;
  if (r.copy_gb_per_s > 0) {  // the GPU only
    std::snprintf(b, sizeof b, "; copy %.4g GB/s%s -> ratio %.3f (of copy GB/s / %g B per point%s)",
                  r.copy_gb_per_s, r.ranks > 1 ? " per GPU" : "", r.ratio_to_copy,
                  r.bytes_per_point, r.ranks > 1 ? ", per GPU" : "");
    s << b;
  }
  s << "\n";
  if (!r.phases_s.empty()) {
    s << "  time (s):";
    for (const auto& [name, v] : r.phases_s) {
      std::snprintf(b, sizeof b, " %s %.3f", name.c_str(), v);
      s << b;
    }
    s << "\n";
  }
  for (const std::string& o : r.outputs) s << "  wrote " << o << "\n";
  return s.str();
}

}  // namespace strata::wave

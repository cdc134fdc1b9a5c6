// The job of `strata wave --shots` (run_shots in strata/wave.hpp): shot i on rank i % ranks,
// each a whole run of its own into OUT_DIR/NAME, the manifest by rank 0 once every rank is
// done. Every rank validates everything, then Job::begin (main's failure protocol); a shot
// that fails after it ends the job. A stop ends each rank's current shot (its files are not
// written, as for one run), and no manifest is written.
#include <chrono>

#include "drivers/job.hpp"
#include "strata/device.hpp"
#include "drivers/wave/job.hpp"
#include "strata/dist.hpp"
#include "strata/wave.hpp"

namespace strata::wave {

ShotsReport run_shots(const Config& cfg, const std::vector<Shot>& shots, const ShotsOptions& opt) {
  using dist::Job;
  Job& job = Job::get();
  const auto t0 = std::chrono::steady_clock::now();
  const Plan plan = check_shots(cfg, shots, opt.overwrite, opt.inputs);
  drivers::bind_gpu(plan.device, true);  // one GPU per rank, before any CUDA work
  job.begin();

  std::optional<ShotsDirectory> dir;
  if (job.root()) dir.emplace(cfg, shots, opt.overwrite, opt.inputs);
  job.barrier();  // OUT_DIR is taken before any rank writes into it
  ShotsReport rep;
  rep.shots = shots.size();
  rep.ranks = job.size();
  const auto stop = [&] { return opt.stop ? opt.stop() : 0; };
  const auto running = [&](bool on) {
    if (opt.on_running) opt.on_running(on);
  };
  const std::size_t n = shots.size();
  std::vector<ShotResult> mine;
  running(true);
  for (std::size_t i = std::size_t(job.rank()); i < n && !stop(); i += std::size_t(job.size())) {
    const std::string where =
        std::to_string(i + 1) + "/" + std::to_string(n) +
        (job.size() > 1 ? ", rank " + std::to_string(job.rank()) : std::string());
    try {
      ShotResult r;
      r.index = i;
      r.rank = job.rank();
      r.report = run(shot_config(cfg, shots[i]),
                     opt.run_options ? opt.run_options(i, where) : RunOptions());
      if (opt.on_shot) opt.on_shot(r, where);
      mine.push_back(std::move(r));
    } catch (const Interrupted& e) {
      rep.interrupted = i;
      rep.interrupted_where = where;
      // Not Interrupted's "continue with --restart": a shots run takes none.
      rep.interrupted_why =
          "the shot was interrupted at step " + std::to_string(e.step) +
          " (a shots run takes no --restart: run the shots again with --overwrite)";
      break;
    } catch (const Error& e) {
      running(false);
      throw Error("shot " + shots[i].name + " (" + where + "): " + e.what());
    } catch (...) {
      running(false);
      throw;
    }
  }
  running(false);
  // Collective: every rank arrives here, whether it ran all its shots or was stopped.
  rep.stopped = int(job.max(double(stop())));
  if (rep.stopped != 0) return rep;
  const std::vector<std::string> results = job.gather_text(shot_results_json(cfg, shots, mine));
  if (!job.root()) return rep;
  rep.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  rep.manifest = dir->write_manifest(results, job.size(), rep.wall_s);
  return rep;
}

}  // namespace strata::wave

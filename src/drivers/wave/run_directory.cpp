// A wave run's output directory (run_directory.hpp): the run's files, and a continued run
// checked to write only beside its own.
#include "drivers/wave/run_directory.hpp"

#include <algorithm>
#include <filesystem>

#include "drivers/wave/checkpoints.hpp"
#include "drivers/wave/pictures.hpp"
#include "io/figure.hpp"
#include "io/json_reader.hpp"
#include "solvers/wave/checkpoint.hpp"

namespace strata::wave {

namespace {

void make_dir(const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw Error("cannot create output directory '" + dir + "': " + ec.message());
}

// A continued run writes beside the files of the run it continues, and no other: the
// directory's checkpoint and report must carry this configuration's physics digest.
void check_previous_run(const io::RunDirectory& dir, const Plan& p) {
  if (dir.previous().empty()) return;
  bool identified = false;
  for (const std::string& name : {std::string("checkpoint.strata"), std::string("report.json")}) {
    const std::string path = path_join(dir.path(), name);
    if (std::find(dir.previous().begin(), dir.previous().end(), name) == dir.previous().end())
      continue;
    std::string digest;
    try {
      if (name == "checkpoint.strata") {
        digest = checkpoint_digest(path);
      } else {
        const auto j = json_reader::parse(json_reader::read_file(path, "report"), path);
        digest = j.is_object() && j.contains("digest") && j["digest"].is_string()
                     ? j["digest"].get<std::string>()
                     : "";
      }
    } catch (const Error& e) {
      throw Error("output directory '" + dir.path() + "' holds a previous run's files, but its " +
                  name + " cannot be read to tell which run (" + e.what() +
                  "): use --overwrite or another --out-dir");
    }
    if (digest != p.digest)
      throw Error("output directory '" + dir.path() +
                  "' holds the files of a run of another configuration (its " + name +
                  " has digest " + digest + ", this configuration " + p.digest +
                  "): a continued run writes only beside its own files; use --overwrite or another "
                  "--out-dir");
    identified = true;
  }
  if (!identified)
    throw Error("output directory '" + dir.path() +
                "' holds files of a run that cannot be identified (no "
                "checkpoint.strata or report.json beside " +
                dir.previous().front() + "): use --overwrite or another --out-dir");
}

}  // namespace

io::RunFiles run_files(int ranks) {
  io::RunFiles files;
  files.files = {"config.json",    "report.json",   "seismogram.npy", "seismogram.sgy",
                 "seismogram.png", "receivers.npy", "model.png",      "checkpoint.strata"};
  for (int r = 1; r < ranks; ++r) files.files.push_back(rank_checkpoint("checkpoint.strata", r));
  files.subdirs = {
      {"snapshots", {}, "u_", {".npy", ".vti", ".png"}},
      // python -m strata.plot's pictures (python/strata/plot.py writes these names)
      {"plots", {"model.png", "seismogram_density.png", "seismogram_wiggle.png"}, "u_", {".png"}}};
  return files;
}

io::RunFiles run_files(int ranks, const Config& c, const RunOptions& opt) {
  io::RunFiles files = run_files(ranks);
  files.inputs = run_inputs(c, {{"--config", opt.config_file}});
  return files;
}

RunInputs run_inputs(const Config& c, RunInputs given) {
  if (c.model == ModelKind::npy) given.push_back({"model.file", c.model_file});
  return given;
}

io::RunDirectory::Mode directory_mode(const RunOptions& opt) {
  require(!(opt.overwrite && !opt.restart.empty()),
          "--overwrite and --restart exclude each other: --restart continues the run whose files "
          "are in the "
          "directory, --overwrite replaces them");
  return opt.overwrite         ? io::RunDirectory::Mode::overwrite
         : opt.restart.empty() ? io::RunDirectory::Mode::fresh
                               : io::RunDirectory::Mode::resume;
}

std::string path_join(const std::string& dir, const std::string& name) {
  return (std::filesystem::path(dir) / name).string();
}

void OutputList::wrote(const std::string& path) {
  if (std::find(files.begin(), files.end(), path) == files.end()) files.push_back(path);
}

void RunDirectoryHold::take(const Config& c, const Plan& p, const io::RunFiles& files,
                            io::RunDirectory::Mode mode, OutputList& out) {
  dir_.emplace(c.out_dir, files, mode);
  if (mode == io::RunDirectory::Mode::resume) check_previous_run(*dir_, p);
  if (c.snapshot_every > 0) make_dir(path_join(c.out_dir, "snapshots"));
  // The model as the run sees it, before the first step: a look at the geometry early.
  if (c.model_png) {
    const std::string png = path_join(c.out_dir, "model.png");
    io::write_png(png, io::draw(model_figure(c, p.receivers)));
    out.wrote(png);
  }
}

}  // namespace strata::wave

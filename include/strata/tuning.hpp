// Launch shapes chosen per device: each GPU kernel family has a few compiled candidate
// shapes, and the one a device runs comes from, in order, a per-user cache of measurements on
// that very device, the shapes shipped for its GPU model, a measurement made the first time
// the family is needed, or the compiled policy. Results never depend on the shape chosen
// (stencils are bit-identical whatever the shape). docs/performance.md, "Launch shapes
// measured per device", describes the cache, its key and the time bound.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "strata/field.hpp"

namespace strata::tuning {

// STRATA_TUNE (or --tune):
//   auto     the cache entry of this device, else the shipped shapes measured on this GPU
//            model, else measure at first use (and save in the cache)       [the default]
//   measure  the cache entry, else measure at first use, even where shapes are shipped
//   cached   the cache entry, else the shipped shapes of this model or the nearest one, else
//            the policy: never measures
//   off      the shipped shapes of this model or the nearest one, else the policy: neither
//            measures nor reads or writes the cache (runs are the same on every machine)
enum class Mode { automatic, measure, cached, off };
std::string_view to_string(Mode mode);
// "auto", "measure", "cached", "off"; anything else throws Error naming `source` (e.g.
// "STRATA_TUNE") and the values allowed.
Mode parse_mode(std::string_view text, std::string_view source);
// The mode in effect: set_mode's when called, else STRATA_TUNE's (auto when unset or empty).
// Throws Error for an unknown STRATA_TUNE value.
Mode mode();
void set_mode(Mode mode);

// The cache file: STRATA_TUNE_CACHE when set, else $XDG_CACHE_HOME/strata/tuning.json, else
// $HOME/.cache/strata/tuning.json; empty when none of them is set (nothing is cached).
std::string cache_path();

// The library prints nothing: what tuning did (a family measured at first use, a cache file
// ignored or not saved) is said once, to this handler. Without one, notes are dropped.
void set_note_handler(std::function<void(const std::string&)> handler);

// One family's shape as this process chose it.
struct Choice {
  int device = 0;
  std::string family;   // "<kernel>.<precision>", e.g. "7pt.f32"
  std::string variant;  // the shape, e.g. "tma-128x64v8s2"
  std::string source;   // "cache", "measured", "shipped", "nearest", "policy"
  std::string detail;   // the GPU model a shipped/nearest row was measured on, or why
};
// Every choice made so far in this process, in the order the families were first needed.
std::vector<Choice> choices();
// Every tuned family, e.g. "copy.f32", ..., "box27.f64".
std::vector<std::string> families();

// The cache file as it is now.
struct CacheStatus {
  std::string path;  // cache_path()
  bool exists = false;
  bool usable = false;             // a strata tuning cache this version reads
  int entries = 0;                 // devices (and strata versions) with measurements
  std::vector<std::string> notes;  // why it is ignored, entries skipped
};
CacheStatus cache_status();

// What device `index` runs without measuring anything more (strata info).
struct DeviceStatus {
  std::string key;          // the cache key: name, memory, memory clock, SMs, driver, strata
  int cached_families = 0;  // families this device's cache entry gives (0 when off)
  int families = 0;         // tuned families in this build
  std::string otherwise;    // where the other families' shapes come from, in words
};
// Throws Error without CUDA or for a device that does not exist.
DeviceStatus device_status(int index);

// `strata tune`: measure families now on the current device, whatever the mode and the cache.
struct TuneOptions {
  std::vector<std::string> families;  // empty: every family
  int size = 512;                     // cube edge of the timing grid (smaller if memory is short)
  bool save = true;                   // write the winners into the cache
};
struct CandidateTime {
  std::string variant;
  double median_ms = 0;  // one launch, median over the rounds
  int rounds = 0;
  std::string refused;  // why it was not timed (does not launch here, different bits); or ""
};
struct FamilyTiming {
  std::string family;
  Extent shape;
  std::string incumbent;  // the shape used without this measurement (kept unless beaten by 1%)
  std::string chosen;
  std::vector<CandidateTime> candidates;
  double seconds = 0;  // wall time of this family's measurement, allocation included
};
struct TuneReport {
  std::string device;  // the GPU's name
  std::string key;
  std::vector<FamilyTiming> families;
  std::string cache;  // where the winners were saved, or why they were not
  bool saved = false;
  double seconds = 0;
  std::string shipped_row;  // the row of src/cuda/tuning/shipped_shapes.cpp these results make
};
// Throws Error without a GPU or for an unknown family name (listing them).
TuneReport tune(const TuneOptions& options,
                const std::function<void(const FamilyTiming&)>& on_family = {});

}  // namespace strata::tuning

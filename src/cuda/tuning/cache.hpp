// The per-user cache of measured launch shapes: one JSON file holding, per device key, the
// shape measured fastest for each family. Read leniently (a file that is not JSON, not a
// strata tuning cache or of another format version is ignored with a note and never
// overwritten), written atomically (io::AtomicFile) after merging with what is there now.
// Plain C++: `strata info` reads it in every build and its rules are tested without a GPU.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace strata::tuning {

// What a measurement is valid for: the same GPU model and memory, the same driver, the same
// strata. A change to any of them makes the entry stale (it is not used, and it is replaced
// when the card is measured again).
struct DeviceKey {
  std::string name;                // cudaDeviceProp::name
  std::uint64_t memory_bytes = 0;  // total device memory
  std::int64_t memory_clock_khz = 0;
  int multiprocessors = 0;
  std::string driver;  // the NVIDIA driver's version ("580.159.04"), else CUDA's driver API's
  std::string strata;  // strata's version and the commit it was built from
  bool operator==(const DeviceKey&) const = default;
  // The same card (name, memory, clock, SMs) whatever the driver and strata.
  bool same_card(const DeviceKey& other) const;
  std::string str() const;  // one line for messages
};

// This build's part of the key ("0.1.0 da12b2b71c"), from build_info().
std::string strata_key();

struct FamilyRecord {
  std::string variant;
  nlohmann::json detail = nlohmann::json::object();  // times per candidate, grid, when
};

struct CacheEntry {
  DeviceKey key;
  std::map<std::string, FamilyRecord> families;  // by family name ("7pt.f32")
};

inline constexpr const char* kCacheFormat = "strata-tuning";
inline constexpr int kCacheVersion = 1;

struct CacheFile {
  bool exists = false;
  bool ours = false;  // a strata tuning cache of this format version: may be rewritten
  std::vector<CacheEntry> entries;
  std::vector<std::string> notes;  // why the file or an entry was ignored
  const CacheEntry* find(const DeviceKey& key) const;
};

// The file at `path` ("" or a missing file: empty, no note). Never throws for its contents.
CacheFile read_cache(const std::string& path);

// Puts `entry` into the file at `path` as it is now: merges it into the entry with its key
// (entry's families win), drops entries of the same card under another driver or strata,
// keeps every other entry, and writes the result atomically (creating the directory). Returns ""
// when saved, else why not: no path, a file that is not strata's, an I/O error. Never throws.
std::string save_entry(const std::string& path, const CacheEntry& entry);

}  // namespace strata::tuning

// The tuning cache file (cache.hpp): its JSON form, lenient reading, merged atomic writes.
#include "cuda/tuning/cache.hpp"

#include <filesystem>
#include <fstream>
#include <sstream>

#include "io/atomic_file.hpp"
#include "strata/device.hpp"
#include "strata/error.hpp"

namespace strata::tuning {

namespace {

using json = nlohmann::json;
constexpr std::size_t kMaxBytes = std::size_t(16) << 20;

json key_json(const DeviceKey& k) {
  return {{"name", k.name},
          {"memory_bytes", k.memory_bytes},
          {"memory_clock_khz", k.memory_clock_khz},
          {"multiprocessors", k.multiprocessors},
          {"driver", k.driver},
          {"strata", k.strata}};
}

// The key of an entry, or why it is not one.
std::string parse_key(const json& j, DeviceKey& k) {
  if (!j.is_object()) return "its key is not an object";
  auto text = [&](const char* name, std::string& out) {
    if (!j.contains(name) || !j[name].is_string()) return false;
    out = j[name].get<std::string>();
    return true;
  };
  auto number = [&](const char* name, auto& out) {
    if (!j.contains(name) || !j[name].is_number_integer()) return false;
    out = j[name].get<std::remove_reference_t<decltype(out)>>();
    return true;
  };
  if (!text("name", k.name) || !number("memory_bytes", k.memory_bytes) ||
      !number("memory_clock_khz", k.memory_clock_khz) ||
      !number("multiprocessors", k.multiprocessors) || !text("driver", k.driver) ||
      !text("strata", k.strata))
    return "its key lacks name, memory_bytes, memory_clock_khz, multiprocessors, driver or strata";
  return "";
}

std::string parse_entry(const json& j, CacheEntry& e) {
  if (!j.is_object() || !j.contains("key") || !j.contains("families") || !j["families"].is_object())
    return "not an object with a key and families";
  if (std::string why = parse_key(j["key"], e.key); !why.empty()) return why;
  for (const auto& [family, rec] : j["families"].items()) {
    if (!rec.is_object() || !rec.contains("variant") || !rec["variant"].is_string())
      return "family " + family + " has no variant";
    FamilyRecord r{rec["variant"].get<std::string>(), rec};
    r.detail.erase("variant");
    e.families[family] = std::move(r);
  }
  return "";
}

json entry_json(const CacheEntry& e) {
  json families = json::object();
  for (const auto& [family, rec] : e.families) {
    json r = rec.detail.is_object() ? rec.detail : json::object();
    r["variant"] = rec.variant;
    families[family] = std::move(r);
  }
  return {{"key", key_json(e.key)}, {"families", std::move(families)}};
}

const char* kLeftAlone =
    ": ignored, and left as it is (remove it to let strata keep its measurements there)";

}  // namespace

bool DeviceKey::same_card(const DeviceKey& o) const {
  return name == o.name && memory_bytes == o.memory_bytes &&
         memory_clock_khz == o.memory_clock_khz && multiprocessors == o.multiprocessors;
}

std::string DeviceKey::str() const {
  std::ostringstream s;
  s << name << ", " << memory_bytes / (1 << 20) << " MiB, memory clock " << memory_clock_khz / 1000
    << " MHz, " << multiprocessors << " SMs, driver " << driver << ", strata " << strata;
  return s.str();
}

std::string strata_key() {
  const BuildInfo& b = build_info();
  return b.version + " " + b.commit;
}

const CacheEntry* CacheFile::find(const DeviceKey& key) const {
  for (const CacheEntry& e : entries)
    if (e.key == key) return &e;
  return nullptr;
}

CacheFile read_cache(const std::string& path) {
  CacheFile c;
  if (path.empty()) return c;
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (ec || !std::filesystem::exists(status)) return c;
  c.exists = true;
  const std::string where = "tuning cache " + path;
  if (!std::filesystem::is_regular_file(status)) {
    c.notes.push_back(where + ": not a regular file" + kLeftAlone);
    return c;
  }
  std::ifstream in(path, std::ios::binary);
  std::string text;
  if (in) {
    std::ostringstream s;
    s << in.rdbuf();
    text = s.str();
  }
  if (!in && text.empty()) {
    c.notes.push_back(where + ": cannot be read" + kLeftAlone);
    return c;
  }
  if (text.size() > kMaxBytes) {
    c.notes.push_back(where + ": larger than 16 MiB" + kLeftAlone);
    return c;
  }
  json doc;
  try {
    doc = json::parse(text);
  } catch (const json::exception& e) {
    c.notes.push_back(where + ": not JSON (" + e.what() + ")" + kLeftAlone);
    return c;
  }
  if (!doc.is_object() || doc.value("format", json()) != kCacheFormat) {
    c.notes.push_back(where + ": not a strata tuning cache (no \"format\": \"" + kCacheFormat +
                      "\")" + kLeftAlone);
    return c;
  }
  if (doc.value("version", json()) != kCacheVersion) {
    c.notes.push_back(where + ": format version " + doc.value("version", json()).dump() +
                      ", this strata reads " + std::to_string(kCacheVersion) + kLeftAlone);
    return c;
  }
  c.ours = true;
  const json entries = doc.value("entries", json());
  if (!entries.is_array()) {
    c.notes.push_back(
        where + ": \"entries\" is not a list: ignored; it is rewritten when a device is measured");
    return c;
  }
  for (std::size_t i = 0; i < entries.size(); ++i) {
    CacheEntry e;
    if (std::string why = parse_entry(entries[i], e); !why.empty())
      c.notes.push_back(where + ": entry " + std::to_string(i + 1) + " ignored (" + why +
                        "); it is dropped when a device is measured");
    else
      c.entries.push_back(std::move(e));
  }
  return c;
}

std::string save_entry(const std::string& path, const CacheEntry& entry) {
  if (path.empty())
    return "no cache location (STRATA_TUNE_CACHE, XDG_CACHE_HOME and HOME are unset)";
  const CacheFile now = read_cache(path);
  if (now.exists && !now.ours)
    return now.notes.empty() ? path + " is not strata's" : now.notes.front();
  // Families another process saved for this key meanwhile are kept unless measured again.
  CacheEntry merged = entry;
  if (const CacheEntry* old = now.find(entry.key))
    for (const auto& [family, rec] : old->families) merged.families.emplace(family, rec);
  json entries = json::array();
  entries.push_back(entry_json(merged));
  for (const CacheEntry& e : now.entries)
    if (!e.key.same_card(entry.key)) entries.push_back(entry_json(e));
  const json doc = {
      {"format", kCacheFormat}, {"version", kCacheVersion}, {"entries", std::move(entries)}};
  try {
    const std::filesystem::path dir = std::filesystem::path(path).parent_path();
    if (!dir.empty()) std::filesystem::create_directories(dir);
    const std::string text = doc.dump(1) + "\n";
    io::AtomicFile f(path);
    f.write(text.data(), text.size());
    f.commit();
  } catch (const std::exception& e) {
    return "tuning cache " + path + " not written: " + e.what();
  }
  return "";
}

}  // namespace strata::tuning

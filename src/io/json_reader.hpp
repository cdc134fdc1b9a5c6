// The one way strata reads JSON: read_file() takes the text of a file (refusing directories
// and what is not text-sized), parse() turns text into a value (comments allowed; a key that
// appears twice in an object is an error, not "the last wins"), and ObjectReader gives typed,
// validated reads from an object: each accessor records the key it read, so finish() can
// reject every key nobody asked for, naming it and the keys that are allowed. The accessors
// are the configuration schema written as code: key, type, default, range.
#pragma once

#include <sys/stat.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <initializer_list>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "strata/error.hpp"

namespace strata::json_reader {

using json = nlohmann::json;

// Values shown in messages: invalid UTF-8 is replaced rather than thrown about.
inline std::string show(const json& v) {
  return v.dump(-1, ' ', false, json::error_handler_t::replace);
}

// True when `text` is well-formed UTF-8 (what JSON strings must hold).
inline bool valid_utf8(std::string_view text) {
  std::size_t i = 0;
  while (i < text.size()) {
    const auto c = static_cast<unsigned char>(text[i]);
    const int extra = c < 0x80           ? 0
                      : (c >> 5) == 0x6  ? 1
                      : (c >> 4) == 0xe  ? 2
                      : (c >> 3) == 0x1e ? 3
                                         : -1;
    if (extra < 0 || i + std::size_t(extra) > text.size() - 1)
      return false;  // a sequence cut off by the end
    std::uint32_t cp = extra == 0   ? c
                       : extra == 1 ? (c & 0x1f)
                       : extra == 2 ? (c & 0x0f)
                                    : (c & 0x07);
    for (int k = 1; k <= extra; ++k) {
      const auto d = static_cast<unsigned char>(text[i + k]);
      if ((d >> 6) != 0x2) return false;
      cp = (cp << 6) | (d & 0x3f);
    }
    const std::uint32_t least[4] = {0, 0x80, 0x800, 0x10000};
    if (cp < least[extra] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
      return false;  // overlong, surrogate
    i += std::size_t(extra) + 1;
  }
  return true;
}

// The text of a JSON file. `what` names it in messages ("configuration"). A directory, a
// missing or unreadable file, and anything above `max_bytes` are refused with the reason;
// FIFOs and devices are read (`--config /dev/stdin`, `<(...)`).
inline std::string read_file(const std::string& path, const std::string& what,
                             std::size_t max_bytes = std::size_t(64) << 20) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0)
    throw Error("cannot read " + what + " '" + path + "': " + std::strerror(errno));
  if (S_ISDIR(st.st_mode))
    throw Error("cannot read " + what + " '" + path + "': it is a directory, not a JSON file");
  if (S_ISREG(st.st_mode) && std::size_t(st.st_size) > max_bytes)
    throw Error("cannot read " + what + " '" + path + "': it is " + std::to_string(st.st_size) +
                " bytes; a JSON " + what + " is at most " + std::to_string(max_bytes) + " bytes");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error("cannot read " + what + " '" + path + "': " + std::strerror(errno));
  std::string text;
  char buf[1 << 16];
  while (in.read(buf, sizeof buf) || in.gcount() > 0) {
    text.append(buf, std::size_t(in.gcount()));
    if (text.size() > max_bytes)
      throw Error("cannot read " + what + " '" + path + "': more than " +
                  std::to_string(max_bytes) + " bytes");
  }
  if (in.bad()) throw Error("cannot read " + what + " '" + path + "': read error");
  return text;
}

// Parses JSON text (// and /* */ comments allowed). Throws Error starting with `origin` for
// text that is not JSON (the parser's position, without its exception jargon), for empty
// text (saying what was `expected`), and for a key repeated within one object (named with
// its path).
inline json parse(std::string_view text, const std::string& origin,
                  const std::string& expected = "a JSON object {...}") {
  if (text.find_first_not_of(" \t\r\n") == std::string_view::npos)
    throw Error(origin + ": is empty; expected " + expected);
  struct Frame {
    bool array = false;
    long index = -1;
    std::string key;
    std::set<std::string> keys;
  };
  std::vector<Frame> stack;
  auto path = [&](const std::string& leaf) {
    std::string p;
    for (const Frame& f : stack) {
      if (&f == &stack.back()) break;
      p += (f.array ? std::to_string(f.index) : f.key) + ".";
    }
    return p + leaf;
  };
  const json::parser_callback_t check = [&](int, json::parse_event_t e, json& parsed) {
    using E = json::parse_event_t;
    const bool starts_value = e == E::object_start || e == E::array_start || e == E::value;
    if (starts_value && !stack.empty() && stack.back().array) ++stack.back().index;
    if (e == E::object_start || e == E::array_start) {
      stack.emplace_back();
      stack.back().array = e == E::array_start;
    }
    if ((e == E::object_end || e == E::array_end) && !stack.empty()) stack.pop_back();
    if (e == E::key && !stack.empty()) {
      Frame& f = stack.back();
      f.key = parsed.get<std::string>();
      if (!f.keys.insert(f.key).second)
        throw Error(origin + ": key '" + path(f.key) +
                    "' appears twice in the same object; each key may be given once");
    }
    return true;
  };
  try {
    return json::parse(text.begin(), text.end(), check, true, /*ignore_comments=*/true);
  } catch (const json::exception& e) {
    std::string what = e.what();
    if (what.rfind("[json.exception.", 0) == 0 && what.find("] ") != std::string::npos)
      what = what.substr(what.find("] ") +
                         2);  // "[json.exception.parse_error.101] parse error at ..."
    throw Error(origin + ": not valid JSON: " + what);
  }
}

// Where values came from when they do not all come from the text `origin` names: dotted key
// paths an override wrote (or created on its way), each with the words naming the override
// ("--set time.steps=-5"), the last written last.
using Origins = std::vector<std::pair<std::string, std::string>>;

class ObjectReader {
 public:
  // `path` is the dotted key of this object ("" for the root); `origin` names the text; a
  // message about a key at or under a path in `origins` names that path's origin instead.
  ObjectReader(const json& j, std::string path, std::string origin,
               std::shared_ptr<const Origins> origins = nullptr)
      : j_(j), path_(std::move(path)), origin_(std::move(origin)), origins_(std::move(origins)) {
    if (!j_.is_object())
      fail_path(path_, path_.empty() ? "the top level" : "'" + path_ + "'",
                "must be an object {...}, got " + show(j_));
  }
  // The reader of the object `j` under `key` of this one (a section, or element i of a list
  // when key is "name.i"), with the same origins.
  ObjectReader child(const json& j, const std::string& key) const {
    return {j, key_path(key), origin_, origins_};
  }

  std::string key_path(const std::string& key) const {
    return path_.empty() ? key : path_ + "." + key;
  }

  // The value under key, or nullptr when absent (null counts as absent only where noted).
  const json* find(const std::string& key) {
    seen_.insert(key);
    const auto it = j_.find(key);
    return it == j_.end() ? nullptr : &*it;
  }

  double number(const std::string& key, double def, double lo, double hi, bool lo_open = false,
                bool hi_open = false) {
    const json* v = find(key);
    if (!v) return def;
    return check_number(key, *v, lo, hi, lo_open, hi_open);
  }

  // null (or absent) gives def; otherwise a number in range.
  std::optional<double> optional_number(const std::string& key, std::optional<double> def,
                                        double lo, double hi, bool lo_open = false,
                                        bool hi_open = false) {
    const json* v = find(key);
    if (!v) return def;
    if (v->is_null()) return std::nullopt;
    return check_number(key, *v, lo, hi, lo_open, hi_open);
  }

  long long integer(const std::string& key, long long def, long long lo, long long hi) {
    const json* v = find(key);
    if (!v) return def;
    return check_integer(key, *v, lo, hi);
  }

  std::optional<long long> optional_integer(const std::string& key, std::optional<long long> def,
                                            long long lo, long long hi) {
    const json* v = find(key);
    if (!v) return def;
    if (v->is_null()) return std::nullopt;
    return check_integer(key, *v, lo, hi);
  }

  bool boolean(const std::string& key, bool def) {
    const json* v = find(key);
    if (!v) return def;
    if (!v->is_boolean()) fail(key, "must be true or false, got " + show(*v));
    return v->get<bool>();
  }

  std::string string(const std::string& key, const std::string& def, bool allow_empty = false) {
    const json* v = find(key);
    if (!v) return def;
    if (!v->is_string()) fail(key, "must be a string, got " + show(*v));
    std::string s = v->get<std::string>();
    if (s.empty() && !allow_empty) fail(key, "must not be empty");
    return s;
  }

  std::string choice(const std::string& key, const std::string& def,
                     std::initializer_list<const char*> allowed) {
    return choice(key, def, std::span<const char* const>(allowed.begin(), allowed.size()));
  }
  // The same with the allowed names held elsewhere (a schema table's).
  std::string choice(const std::string& key, const std::string& def,
                     std::span<const char* const> allowed) {
    const json* v = find(key);
    if (!v) return def;
    std::string list;
    for (const char* a : allowed) list += (list.empty() ? "" : ", ") + std::string(a);
    if (!v->is_string()) fail(key, "must be one of " + list + ", got " + show(*v));
    const std::string s = v->get<std::string>();
    for (const char* a : allowed)
      if (s == a) return s;
    fail(key, "must be one of " + list + ", got \"" + s + "\"");
  }

  // An array of exactly `n` numbers (each finite); absent gives def.
  std::vector<double> numbers(const std::string& key, std::vector<double> def, std::size_t n) {
    const json* v = find(key);
    if (!v) return def;
    if (!v->is_array() || v->size() != n)
      fail(key, "must be an array of " + std::to_string(n) + " numbers, got " + show(*v));
    std::vector<double> out;
    for (const json& e : *v) {
      if (!e.is_number() || !std::isfinite(e.get<double>()))
        fail(key, "must be an array of " + std::to_string(n) + " finite numbers, got " + show(*v));
      out.push_back(e.get<double>());
    }
    return out;
  }

  // The array under key (absent: empty); each element is handed to the caller with its path.
  const json* array(const std::string& key) {
    const json* v = find(key);
    if (!v) return nullptr;
    if (!v->is_array()) fail(key, "must be an array [...], got " + show(*v));
    return v;
  }

  // Throws for every key that was never read.
  void finish() const {
    for (auto it = j_.begin(); it != j_.end(); ++it) {
      if (seen_.count(it.key())) continue;
      std::string allowed;
      for (const auto& k : seen_) allowed += (allowed.empty() ? "" : ", ") + k;
      const std::string where = path_.empty() ? " at the top level" : " in '" + path_ + "'";
      fail_path(key_path(it.key()), "unknown key '" + key_path(it.key()) + "'",
                "allowed keys" + where + ": " + allowed);
    }
  }

  [[noreturn]] void missing(const std::string& key, const std::string& what) const {
    fail_path(key_path(key), "key '" + key_path(key) + "' is required", what);
  }
  [[noreturn]] void fail(const std::string& key, const std::string& what) const {
    fail_path(key_path(key), "key '" + key_path(key) + "'", what);
  }
  [[noreturn]] void fail_at(const std::string& where, const std::string& what) const {
    fail_path(path_, where, what);
  }

 private:
  // The message for the value at `path`: from the override that wrote it or what holds it.
  [[noreturn]] void fail_path(const std::string& path, const std::string& where,
                              const std::string& what) const {
    std::string origin = origin_;
    if (origins_)
      for (const auto& [p, o] : *origins_)
        if (path == p || path.rfind(p + ".", 0) == 0) origin = o;
    throw Error(origin + ": " + where + ": " + what);
  }

  double check_number(const std::string& key, const json& v, double lo, double hi, bool lo_open,
                      bool hi_open) const {
    const std::string range = std::string(lo_open ? "(" : "[") + format_number(lo) + ", " +
                              format_number(hi) + (hi_open ? ")" : "]");
    if (!v.is_number()) fail(key, "must be a number in " + range + ", got " + show(v));
    const double d = v.get<double>();
    const bool ok =
        std::isfinite(d) && (lo_open ? d > lo : d >= lo) && (hi_open ? d < hi : d <= hi);
    if (!ok) fail(key, "must be a number in " + range + ", got " + show(v));
    return d;
  }
  long long check_integer(const std::string& key, const json& v, long long lo, long long hi) const {
    // Appended, not "[" + std::to_string(...): GCC 12 flags that with a bogus -Wrestrict.
    std::string range = "[";
    range += std::to_string(lo) + ", " + std::to_string(hi) + "]";
    const bool integral = v.is_number_integer() ||
                          (v.is_number_float() && std::floor(v.get<double>()) == v.get<double>() &&
                           std::fabs(v.get<double>()) < 9e15);
    if (!integral) fail(key, "must be a whole number in " + range + ", got " + show(v));
    const long long i = v.is_number_integer() ? v.get<long long>() : (long long)v.get<double>();
    if (i < lo || i > hi) fail(key, "must be a whole number in " + range + ", got " + show(v));
    return i;
  }

  const json& j_;
  std::string path_, origin_;
  std::shared_ptr<const Origins> origins_;
  std::set<std::string> seen_;
};

}  // namespace strata::json_reader

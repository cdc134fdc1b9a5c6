// Typed, validated reads from a JSON object: each accessor records the key it read, so
// finish() can reject every key nobody asked for, naming it and the keys that are allowed.
// The accessors are the configuration schema written as code: key, type, default, range.
#pragma once

#include <cmath>
#include <cstdio>
#include <initializer_list>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "strata/error.hpp"

namespace strata::json_reader {

using json = nlohmann::json;

inline std::string show(const json& v) { return v.dump(); }

class ObjectReader {
public:
  // `path` is the dotted key of this object ("" for the root); `origin` names the text.
  ObjectReader(const json& j, std::string path, std::string origin)
      : j_(j), path_(std::move(path)), origin_(std::move(origin)) {
    if (!j_.is_object()) fail_at(path_.empty() ? "the top level" : "'" + path_ + "'",
                                 "must be an object {...}, got " + show(j_));
  }

  std::string key_path(const std::string& key) const { return path_.empty() ? key : path_ + "." + key; }

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
  std::optional<double> optional_number(const std::string& key, std::optional<double> def, double lo,
                                        double hi, bool lo_open = false) {
    const json* v = find(key);
    if (!v) return def;
    if (v->is_null()) return std::nullopt;
    return check_number(key, *v, lo, hi, lo_open, false);
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
      fail_at("unknown key '" + key_path(it.key()) + "'",
              "allowed keys" + (path_.empty() ? std::string(" at the top level") : " in '" + path_ + "'") +
                  ": " + allowed);
    }
  }

  [[noreturn]] void missing(const std::string& key, const std::string& what) const {
    fail_at("key '" + key_path(key) + "' is required", what);
  }
  [[noreturn]] void fail(const std::string& key, const std::string& what) const {
    fail_at("key '" + key_path(key) + "'", what);
  }
  [[noreturn]] void fail_at(const std::string& where, const std::string& what) const {
    throw Error(origin_ + ": " + where + ": " + what);
  }

private:
  double check_number(const std::string& key, const json& v, double lo, double hi, bool lo_open,
                      bool hi_open) const {
    const std::string range = std::string(lo_open ? "(" : "[") + fmt(lo) + ", " + fmt(hi) +
                              (hi_open ? ")" : "]");
    if (!v.is_number()) fail(key, "must be a number in " + range + ", got " + show(v));
    const double d = v.get<double>();
    const bool ok = std::isfinite(d) && (lo_open ? d > lo : d >= lo) && (hi_open ? d < hi : d <= hi);
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
  static std::string fmt(double d) {
    if (std::isinf(d)) return d > 0 ? "inf" : "-inf";
    char b[32];
    std::snprintf(b, sizeof b, "%g", d);
    return b;
  }

  const json& j_;
  std::string path_, origin_;
  std::set<std::string> seen_;
};

}  // namespace strata::json_reader

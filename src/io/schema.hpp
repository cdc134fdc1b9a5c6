// A configuration schema as data: a section is a list of keys, each with its name, how it is
// read (type and range, through json_reader::ObjectReader, whose messages name the key),
// how it is written (JSON), and its comment in the commented defaults. Parsing, the canonical
// dump and the commented text are all walks of the same table (src/solvers/wave/config.cpp
// holds the wave configuration's), and an enum's names are one Names table used both ways.
// Defaults are the struct's member initializers: a read starts from a default-constructed
// struct and keeps what is absent. Generic, so it lives in io/ beside the JSON reader: it
// knows no configuration (no wave type) and uses io/json_reader.hpp and nlohmann only.
#pragma once

#include <cstddef>
#include <functional>
#include <initializer_list>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "io/json_reader.hpp"
#include "strata/error.hpp"

namespace strata::schema {

using ordered = nlohmann::ordered_json;
using json_reader::ObjectReader;

// "a | b | c", as messages and comments list names.
inline std::string join(const std::vector<const char*>& names, const char* sep) {
  std::string s;
  for (const char* n : names) s += (s.empty() ? "" : sep) + std::string(n);
  return s;
}

// Replaces "{choices}" in a key's comment with its allowed names.
inline std::string with_choices(std::string doc, const std::vector<const char*>& names) {
  if (const auto at = doc.find("{choices}"); at != std::string::npos)
    doc.replace(at, 9, join(names, " | "));
  return doc;
}

// The names of an enum's values (or of small integer codes such as an axis), in the order
// messages and the commented defaults list them.
template <class V>
class Names {
 public:
  Names(std::initializer_list<std::pair<V, const char*>> items) : items_(items) {
    for (const auto& [v, name] : items_) names_.push_back(name);
  }
  const char* name(V v) const {
    for (const auto& [value, name] : items_)
      if (value == v) return name;
    return "?";
  }
  V value(const std::string& name) const {  // name is one of names() (the reader checked)
    for (const auto& [value, n] : items_)
      if (name == n) return value;
    throw Error("internal: no value named '" + name + "'");
  }
  const std::vector<const char*>& names() const { return names_; }

 private:
  std::vector<std::pair<V, const char*>> items_;
  std::vector<const char*> names_;
};

// How a key is laid out in the commented defaults: a value on its line; a section (an object
// of keys of the same struct) one key a line; a list (an array) one element a line, or [].
enum class Layout { value, section, list };

template <class S>
struct Key {
  std::string name;
  std::string doc;       // the comment after the key; "\n" starts a continuation line
  std::string note;      // comment lines above the key ("\n" between lines)
  std::string required;  // not empty: the key must be given, and this says what it holds
  Layout layout = Layout::value;
  std::vector<Key<S>> keys;  // a section's
  // Reads the key from the object `r` reads into s (`origin` names the text); absent keeps s.
  std::function<void(ObjectReader& r, S& s, const std::string& origin)> read;
  std::function<ordered(const S& s)> write;
};

template <class S>
using Keys = std::vector<Key<S>>;

template <class S>
Key<S> named(std::string name, std::string doc = "") {
  Key<S> k;
  k.name = std::move(name);
  k.doc = std::move(doc);
  return k;
}

// ---- walks of a table ----------------------------------------------------------------

// Reads every key, in table order (so the first error found is the first key's). A required
// key is checked when it is reached, together with the required keys right after it (a
// [start, end] pair reports the missing one before either is parsed).
template <class S>
void read_keys(const Keys<S>& keys, ObjectReader& r, S& s, const std::string& origin) {
  for (std::size_t i = 0; i < keys.size(); ++i) {
    for (std::size_t j = i; j < keys.size() && !keys[j].required.empty(); ++j)
      if (!r.find(keys[j].name)) r.missing(keys[j].name, keys[j].required);
    keys[i].read(r, s, origin);
  }
}

template <class S>
ordered write_keys(const Keys<S>& keys, const S& s) {
  ordered j = ordered::object();
  for (const Key<S>& k : keys) j[k.name] = k.write(s);
  return j;
}

// ---- the commented text -------------------------------------------------------------

inline constexpr std::size_t kDocColumn = 34;  // where a key's comment starts

// JSON on one line, with a space after each ',' and ':' (as a person writes it).
inline std::string inline_json(const ordered& v) {
  if (v.is_array()) {
    std::string s = "[";
    for (std::size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + inline_json(v[i]);
    return s + "]";
  }
  if (v.is_object()) {
    std::string s = "{";
    bool first = true;
    for (auto it = v.begin(); it != v.end(); ++it, first = false)
      s += (first ? "" : ", ") + ordered(it.key()).dump() + ": " + inline_json(it.value());
    return s + "}";
  }
  return v.dump();
}

inline std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t nl = text.find('\n', start);
    out.push_back(text.substr(start, nl == std::string::npos ? std::string::npos : nl - start));
    if (nl == std::string::npos) break;
    start = nl + 1;
  }
  return out;
}

inline void comment_lines(const std::string& text, const std::string& indent, std::string& out) {
  for (const std::string& l : lines_of(text)) out += indent + "// " + l + "\n";
}

// `line` and its comment (doc), then the comment's continuation lines.
inline void doc_line(std::string line, const std::string& doc, std::string& out) {
  if (!doc.empty()) {
    const std::vector<std::string> d = lines_of(doc);
    line +=
        std::string(line.size() < kDocColumn ? kDocColumn - line.size() : 1, ' ') + "// " + d[0];
    for (std::size_t i = 1; i < d.size(); ++i)
      line += "\n" + std::string(kDocColumn, ' ') + "//   " + d[i];
  }
  out += line + "\n";
}

template <class S>
bool joins(const Key<S>& k, const ordered& value) {
  return k.doc.empty() && k.note.empty() && k.layout != Layout::section &&
         !(k.layout == Layout::list && !value.at(k.name).empty());
}

// The commented text of `value` (write_keys' result) laid out along `keys`, each line
// starting with `indent`: a value on its key's line; a section one key a line; a non-empty
// list one element a line. Keys without a comment or note that follow each other share a
// line (the six faces of "boundary").
template <class S>
void render_keys(const Keys<S>& keys, const ordered& value, const std::string& indent,
                 std::string& out) {
  for (std::size_t i = 0; i < keys.size(); ++i) {
    const Key<S>& k = keys[i];
    const ordered& v = value.at(k.name);
    if (!k.note.empty()) comment_lines(k.note, indent, out);
    const std::string head = indent + ordered(k.name).dump() + ": ";
    if (k.layout == Layout::section) {
      out += head + "{\n";
      render_keys(k.keys, v, indent + "  ", out);
      out += indent + "}" + (i + 1 < keys.size() ? "," : "") + "\n";
    } else if (k.layout == Layout::list && !v.empty()) {
      doc_line(head + "[", k.doc, out);
      for (std::size_t e = 0; e < v.size(); ++e)
        out += indent + "  " + inline_json(v[e]) + (e + 1 < v.size() ? "," : "") + "\n";
      out += indent + "]" + (i + 1 < keys.size() ? "," : "") + "\n";
    } else {
      std::string line = head + inline_json(v);
      // Keys with nothing to say share the line while the next one has nothing to say either.
      while (k.doc.empty() && i + 1 < keys.size() && joins(keys[i + 1], value)) {
        ++i;
        line += ", " + ordered(keys[i].name).dump() + ": " + inline_json(value.at(keys[i].name));
      }
      doc_line(line + (i + 1 < keys.size() ? "," : ""), keys[i].doc, out);
    }
  }
}

// ---- kinds of keys -------------------------------------------------------------------
// `get` reaches the value in the struct: a data member pointer (&Config::spacing) or a
// generic lambda ([f](auto& c) -> auto& { return c.faces[f]; }).

struct Range {
  double lo, hi;
  bool lo_open = false, hi_open = false;
};

template <class S, class Get>
Key<S> number(std::string name, Get get, Range r, std::string doc) {
  Key<S> k = named<S>(name, std::move(doc));
  k.read = [name, get, r](ObjectReader& in, S& s, const std::string&) {
    double& v = std::invoke(get, s);
    v = in.number(name, v, r.lo, r.hi, r.lo_open, r.hi_open);
  };
  k.write = [get](const S& s) { return ordered(std::invoke(get, s)); };
  return k;
}

// null or absent: none.
template <class S, class Get>
Key<S> optional_number(std::string name, Get get, Range r, std::string doc) {
  Key<S> k = named<S>(name, std::move(doc));
  k.read = [name, get, r](ObjectReader& in, S& s, const std::string&) {
    std::optional<double>& v = std::invoke(get, s);
    v = in.optional_number(name, v, r.lo, r.hi, r.lo_open, r.hi_open);
  };
  k.write = [get](const S& s) {
    const std::optional<double>& v = std::invoke(get, s);
    return v ? ordered(*v) : ordered(nullptr);
  };
  return k;
}

template <class S, class Get>
Key<S> integer(std::string name, Get get, long long lo, long long hi, std::string doc) {
  Key<S> k = named<S>(name, std::move(doc));
  k.read = [name, get, lo, hi](ObjectReader& in, S& s, const std::string&) {
    int& v = std::invoke(get, s);
    v = int(in.integer(name, v, lo, hi));
  };
  k.write = [get](const S& s) { return ordered(std::invoke(get, s)); };
  return k;
}

template <class S, class Get>
Key<S> optional_integer(std::string name, Get get, long long lo, long long hi, std::string doc) {
  Key<S> k = named<S>(name, std::move(doc));
  k.read = [name, get, lo, hi](ObjectReader& in, S& s, const std::string&) {
    std::optional<int>& v = std::invoke(get, s);
    const auto i =
        in.optional_integer(name, v ? std::optional<long long>(*v) : std::nullopt, lo, hi);
    v = i ? std::optional<int>(int(*i)) : std::nullopt;
  };
  k.write = [get](const S& s) {
    const std::optional<int>& v = std::invoke(get, s);
    return v ? ordered(*v) : ordered(nullptr);
  };
  return k;
}

template <class S, class Get>
Key<S> boolean(std::string name, Get get, std::string doc) {
  Key<S> k = named<S>(name, std::move(doc));
  k.read = [name, get](ObjectReader& in, S& s, const std::string&) {
    bool& v = std::invoke(get, s);
    v = in.boolean(name, v);
  };
  k.write = [get](const S& s) { return ordered(std::invoke(get, s)); };
  return k;
}

template <class S, class Get>
Key<S> text(std::string name, Get get, bool allow_empty, std::string doc) {
  Key<S> k = named<S>(name, std::move(doc));
  k.read = [name, get, allow_empty](ObjectReader& in, S& s, const std::string&) {
    std::string& v = std::invoke(get, s);
    v = in.string(name, v, allow_empty);
  };
  k.write = [get](const S& s) { return ordered(std::invoke(get, s)); };
  return k;
}

// One of `names`, stored as its value (an enum, an axis code); `names` must outlive the key
// (a static table). "{choices}" in doc stands for the names, "a | b | c".
template <class S, class V, class Get>
Key<S> choice(std::string name, Get get, const Names<V>& names, std::string doc) {
  Key<S> k = named<S>(name, with_choices(std::move(doc), names.names()));
  k.read = [name, get, &names](ObjectReader& in, S& s, const std::string&) {
    auto& v = std::invoke(get, s);
    v = names.value(in.choice(name, names.name(v), names.names()));
  };
  k.write = [get, &names](const S& s) { return ordered(names.name(std::invoke(get, s))); };
  return k;
}

// A string that must be one of `allowed` ("{choices}" in doc as for choice).
template <class S, class Get>
Key<S> one_of(std::string name, Get get, std::vector<const char*> allowed, std::string doc) {
  Key<S> k = named<S>(name, with_choices(std::move(doc), allowed));
  k.read = [name, get, allowed](ObjectReader& in, S& s, const std::string&) {
    std::string& v = std::invoke(get, s);
    v = in.choice(name, v, allowed);
  };
  k.write = [get](const S& s) { return ordered(std::invoke(get, s)); };
  return k;
}

// An object of keys of the same struct; `check` runs after its keys are read and no unknown
// key is left (rules across keys).
template <class S>
Key<S> section(std::string name, Keys<S> keys,
               std::function<void(ObjectReader&, const S&)> check = {}) {
  Key<S> k = named<S>(name);
  k.layout = Layout::section;
  k.keys = keys;
  k.read = [name, keys, check](ObjectReader& parent, S& s, const std::string& origin) {
    const auto* v = parent.find(name);
    if (!v) return;
    ObjectReader r = parent.child(*v, name);
    read_keys(keys, r, s, origin);
    r.finish();
    if (check) check(r, s);
  };
  k.write = [keys](const S& s) { return write_keys(keys, s); };
  return k;
}

// An array of objects, each read with `keys` into a default E; `check` sees each element once
// read (and the elements before it).
template <class S, class E>
Key<S> list(std::string name, std::vector<E> S::*m, Keys<E> keys, std::string doc,
            std::function<void(ObjectReader&, const E&, const std::vector<E>&)> check = {}) {
  Key<S> k = named<S>(name, std::move(doc));
  k.layout = Layout::list;
  k.read = [name, m, keys, check](ObjectReader& parent, S& s, const std::string& origin) {
    const auto* a = parent.array(name);
    if (!a) return;
    std::vector<E>& out = s.*m;
    out.clear();
    for (std::size_t i = 0; i < a->size(); ++i) {
      ObjectReader r = parent.child((*a)[i], name + "." + std::to_string(i));
      E e{};
      read_keys(keys, r, e, origin);
      r.finish();
      if (check) check(r, e, out);
      out.push_back(e);
    }
  };
  k.write = [m, keys](const S& s) {
    ordered a = ordered::array();
    for (const E& e : s.*m) a.push_back(write_keys(keys, e));
    return a;
  };
  return k;
}

// Anything else: its own read and write (a value, or a list when `layout` says so).
template <class S>
Key<S> custom(std::string name, std::function<void(ObjectReader&, S&, const std::string&)> read,
              std::function<ordered(const S&)> write, std::string doc,
              Layout layout = Layout::value) {
  Key<S> k = named<S>(name, std::move(doc));
  k.layout = layout;
  k.read = std::move(read);
  k.write = std::move(write);
  return k;
}

// Marks a key: comment lines above it, or that it is required.
template <class S>
Key<S> with_note(Key<S> k, std::string note) {
  k.note = std::move(note);
  return k;
}
template <class S>
Key<S> required(Key<S> k, std::string what) {
  k.required = std::move(what);
  return k;
}

}  // namespace strata::schema

// Option parsing shared by the CLI verbs.
#include "apps/strata/options.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <sstream>

#include "strata/device.hpp"
#include "strata/dist.hpp"
#include "strata/error.hpp"
#include "strata/tuning.hpp"

namespace strata::cli {

namespace {

// The whole text as one number, or nullopt.
std::optional<double> to_number(const std::string& text) {
  const auto b = text.find_first_not_of(" \t"), e = text.find_last_not_of(" \t");
  if (b == std::string::npos) return std::nullopt;
  const std::string t = text.substr(b, e - b + 1);
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(t.c_str(), &end);
  if (end != t.c_str() + t.size()) return std::nullopt;
  return v;
}

// A literal that is not zero but that a double rounds to 0 (1e-400): said, not taken as 0.
bool underflows(const std::string& text) {
  const std::optional<double> v = to_number(text);
  return v && *v == 0 && text.find_first_of("123456789") < text.find_first_of("eE");
}

}  // namespace

CLI::Validator number_in(double lo, double hi, bool integer, bool lo_open, bool hi_open,
                         const std::string& word) {
  const std::string range = std::string(lo_open ? "(" : "[") + format_number(lo) + ", " +
                            format_number(hi) + (hi_open ? ")" : "]");
  const std::string kind = (word.empty() ? "" : word + " or ") +
                           (integer ? "a whole number" : "a number") + " in " + range;
  return CLI::Validator(
      [=](std::string& text) -> std::string {
        if (!word.empty() && text == word) return {};
        if (underflows(text))
          return "must be " + kind + ", got '" + text + "', which a double rounds to 0";
        const std::optional<double> v = to_number(text);
        const bool ok = v && std::isfinite(*v) && (!integer || *v == std::floor(*v)) &&
                        (lo_open ? *v > lo : *v >= lo) && (hi_open ? *v < hi : *v <= hi);
        if (!ok) return "must be " + kind + ", got '" + text + "'";
        // A whole number written otherwise (1e3, 2.0) is handed on as the integer it is: an
        // option added with transform() (check() would leave the text to CLI11's conversion,
        // which says only "Could not convert").
        if (integer) text = std::to_string(static_cast<long long>(*v));
        return std::string();
      },
      kind);
}

CLI::Validator number_list() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        try {
          parse_numbers(text, "");
        } catch (const Error& e) {
          return e.what();
        }
        return "";
      },
      "N,N,...");
}

std::vector<double> parse_numbers(const std::string& text, const std::string& what) {
  const std::string head = what.empty() ? "" : what + ": ";
  if (text.find_first_not_of(" \t") == std::string::npos)
    throw Error(head + "empty list (give comma-separated numbers, or leave the option out)");
  std::vector<double> out;
  std::size_t start = 0;
  while (true) {  // every item, the one after a trailing comma included
    const std::size_t comma = text.find(',', start);
    const std::string item =
        text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    const std::optional<double> v = to_number(item);
    if (!v)
      throw Error(head + "'" + item + "' " +
                  (item.find_first_not_of(" \t") == std::string::npos ? "is an empty item"
                                                                      : "is not a number") +
                  " in '" + text + "' (expected a comma-separated list of numbers)");
    out.push_back(*v);  // finiteness is the stencil's check, with its own message
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

Extent parse_shape(const std::string& text) {
  const auto v = parse_numbers(text, "shape '" + text + "'");
  for (double d : v)
    if (!(d >= 1 && d <= 1 << 20 && d == std::floor(d)))
      throw Error("shape '" + text + "': every size must be a whole number >= 1");
  if (v.size() == 1) return {int(v[0]), int(v[0]), int(v[0])};
  if (v.size() == 3) return {int(v[0]), int(v[1]), int(v[2])};
  throw Error("shape '" + text + "': give N (a cube) or NX,NY,NZ");
}

Precision parse_precision(const std::string& text) {
  if (text == "f32" || text == "float32" || text == "float") return Precision::f32;
  if (text == "f64" || text == "float64" || text == "double") return Precision::f64;
  throw Error("unknown precision '" + text + "': allowed f32, f64");
}

std::vector<Precision> parse_precisions(const std::string& text) {
  if (text == "all" || text.empty()) return {Precision::f32, Precision::f64};
  return {parse_precision(text)};
}

std::string nearest(const std::string& word, const std::vector<std::string>& candidates) {
  const auto distance = [](const std::string& a, const std::string& b) {  // Levenshtein
    std::vector<std::size_t> row(b.size() + 1);
    for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i) {
      std::size_t diag = row[0];
      row[0] = i;
      for (std::size_t j = 1; j <= b.size(); ++j) {
        const std::size_t up = row[j];
        row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
        diag = up;
      }
    }
    return row[b.size()];
  };
  const std::size_t bare = word.size() - std::min(word.find_first_not_of('-'), word.size());
  std::string best;
  // A typo: at most one edit in four letters (and one in any word).
  std::size_t best_d = std::max<std::size_t>(1, bare / 4) + 1;
  for (const std::string& c : candidates) {
    const std::size_t d = bare >= 3 && c.rfind(word, 0) == 0 ? 0 : distance(word, c);
    if (d < best_d) best = c, best_d = d;
  }
  return best;
}

namespace {

// The verb the command line names (argv[1] when it is one), or null.
const CLI::App* verb_of(const CLI::App& app, int argc, char** argv) {
  if (argc < 2) return nullptr;
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; }))
    if (sub->get_name() == argv[1]) return sub;
  return nullptr;
}

// "strata apply: unknown option '--stencl' (did you mean '--stencil'?)" for every option on
// the command line the verb does not have; "" when there is none.
std::string unknown_options(const CLI::App& app, int argc, char** argv,
                            const std::string& program) {
  const CLI::App* verb = verb_of(app, argc, argv);
  std::vector<std::string> names;
  for (const CLI::App* a : {&app, verb})
    if (a)
      for (const CLI::Option* o : a->get_options()) {
        for (const std::string& l : o->get_lnames()) names.push_back("--" + l);
        for (const std::string& s : o->get_snames()) names.push_back("-" + s);
      }
  const std::string who = program + (verb ? " " + verb->get_name() : std::string());
  std::string said;
  for (int i = verb ? 2 : 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const std::size_t letter = arg.find_first_not_of('-');
    if (arg[0] != '-' || letter == std::string::npos ||
        !std::isalpha(static_cast<unsigned char>(arg[letter])))
      continue;  // a value such as -0.5 or -6,1
    const std::string name = arg.substr(0, arg.find('='));
    if (name == "--" || std::find(names.begin(), names.end(), name) != names.end()) continue;
    const std::string guess = nearest(name, names);
    said += who + ": unknown option '" + name + "'" +
            (guess.empty() ? "" : " (did you mean '" + guess + "'?)") + "\n";
  }
  return said;
}

// The first sentence of a verb's description: up to its first line break, ". " or ": ".
std::string summary(const std::string& description) {
  std::size_t end = description.size();
  for (const char* stop : {"\n", ". ", ": "}) end = std::min(end, description.find(stop));
  std::string s = description.substr(0, end);
  if (!s.empty() && s.back() == '.') s.pop_back();
  return s;
}

}  // namespace

void check_command_line(CLI::App& app, int argc, char** argv) {
  std::vector<std::string> verbs;
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; }))
    verbs.push_back(sub->get_name());
  if (argc < 2) {  // bare `strata`: what it can do, and where to read more
    if (dist::Job::get().root()) {
      std::printf(
          "strata: stencils and solvers on structured 3D grids. "
          "Usage: strata VERB [OPTIONS]\n\nverbs:\n");
      for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; }))
        std::printf("  %-8s %s\n", sub->get_name().c_str(),
                    summary(sub->get_description()).c_str());
      std::printf(
          "\n`strata VERB --help` describes a verb's options; "
          "`strata --version` the build.\n");
    }
    throw CLI::Success();
  }
  // An unknown verb: CLI11 would say "A subcommand is required".
  if (argv[1][0] != '-' && !verb_of(app, argc, argv)) {
    std::string list;
    for (const std::string& v : verbs) list += (list.empty() ? "" : ", ") + v;
    const std::string guess = nearest(argv[1], verbs);
    throw Error("unknown command '" + std::string(argv[1]) + "'" +
                (guess.empty() ? "" : " (did you mean '" + guess + "'?)") + ": allowed " + list +
                " (strata --help describes them)");
  }
  hint_unknown_options(app, argc, argv, "strata");
}

void hint_unknown_options(CLI::App& app, int argc, char** argv, const std::string& program) {
  // CLI11 names what it did not expect; the hint names what was probably meant.
  app.failure_message([argc, argv, program](const CLI::App* a, const CLI::Error& e) {
    const bool extras = dynamic_cast<const CLI::ExtrasError*>(&e) != nullptr;
    const std::string hint = extras ? unknown_options(*a, argc, argv, program) : "";
    return hint + CLI::FailureMessage::simple(a, e);
  });
}

Device resolve_device(const std::string& text) {
  const Device d = resolve(parse_device(text, "--device"), "--device");
  if (d == Device::cuda) tuning::mode();  // a GPU run reads STRATA_TUNE: a bad value is refused now
  return d;
}

}  // namespace strata::cli

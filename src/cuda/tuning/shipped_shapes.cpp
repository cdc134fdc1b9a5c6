// The shipped launch shapes per GPU model (the format is in shipped_shapes.hpp). To fill or
// refresh a row: tools/device-check.sh tune on that GPU, then paste the row `strata tune`
// printed (also in bench/results/<gpu>-tuning.json, "shipped_row") over the old one.
#include "cuda/tuning/shipped_shapes.hpp"

#include <sstream>
#include <vector>

#include "cuda/tuning/families.hpp"
#include "strata/error.hpp"

namespace strata::tuning {

namespace {

// The compiled policies of tuning/stencil_policy.hpp, chosen with `strata bench --variants all`
// (lab build) on an H100 80GB HBM3 at 512^3 (docs/performance.md, "Variants tried";
// bench/results/nvidia-h100-80gb-hbm3-variants.json), and of tuning/wave_policy.hpp, chosen
// with `strata bench --kernel wave` there. `strata tune` on an H100 80GB HBM3 (3ef068c) chose
// this same row: every family's policy won or stayed within the 1% that keeps the incumbent
// (bench/results/nvidia-h100-80gb-hbm3-tuning.json).
constexpr const char* kH100Shapes =
    "copy.f32=tma-128x32v8s3 copy_halo.f32=tma-128x64v8s2 7pt.f32=tma-128x64v8s2 "
    "star2.f32=tma-128x64v8s2 star3.f32=tma-128x16v8s4 star4.f32=tma-128x16v8s4 "
    "sym27.f32=tma-128x64v8s2 box27.f32=tma-128x64v8s2 wave4.f32=tma-128x16v4s4-pf-reg "
    "copy.f64=tma-128x16v8s3 copy_halo.f64=tma-128x32v8s2 7pt.f64=tma-128x32v8s2 "
    "star2.f64=tma-128x32v8s2 star3.f64=tma-128x16v8s3 star4.f64=tma-128x16v8s3 "
    "sym27.f64=tma-128x32v8s2 box27.f64=tma-128x32v8s2 wave4.f64=tma-64x16v4s3-pf-l2";

constexpr ShippedRow kRows[] = {
    {"NVIDIA H100 80GB HBM3", "H100",
     "strata tune at 512^3 on one NVIDIA H100 80GB HBM3 (132 SMs, driver 580.159.04), "
     "strata 0.1.0 3ef068c, 2026-11-28: the compiled policy's row",
     kH100Shapes},
    // bench/results/nvidia-h200-tuning-4c85efb.json (every candidate's time; the row before,
    // 272593e's: nvidia-h200-tuning.json and nvidia-h200-tuned.json). Against 272593e's row
    // it moves wave4 to the L2 look-ahead candidates (nvidia-h200-wave-look-ahead.json),
    // star3.f64 to 4 rows a thread (5.4% faster) and copy.f64 to 4 stages (1.2%).
    {"NVIDIA H200", "H200",
     "strata tune at 512^3 on one NVIDIA H200 (132 SMs, driver 580.159.04), strata 0.1.0 "
     "4c85efb, 2026-11-29",
     "copy.f32=tma-128x32v8s3 copy_halo.f32=tma-128x32v8s3 7pt.f32=tma-128x32v8s3 "
     "star2.f32=tma-128x32v8s3 star3.f32=tma-128x32v8s3 star4.f32=tma-128x32v8s3 "
     "sym27.f32=tma-128x32v8s3 box27.f32=tma-128x32v8s3 "
     "wave4.f32=tma-128x16v4s4-pf-reg-a2 copy.f64=tma-128x16v8s4 "
     "copy_halo.f64=tma-128x16v8s3 7pt.f64=tma-128x32v8s2 star2.f64=tma-128x32v8s2 "
     "star3.f64=tma-128x16v4s3 star4.f64=tma-128x16v4s3 sym27.f64=tma-128x32v8s2 "
     "box27.f64=tma-128x16v8s3 wave4.f64=tma-64x16v4s3-pf-l2-a1"},
};

bool is_word_of(std::string_view word, std::string_view name) {
  std::size_t pos = 0;
  while ((pos = name.find(word, pos)) != std::string_view::npos) {
    const bool left = pos == 0 || name[pos - 1] == ' ';
    const bool right = pos + word.size() == name.size() || name[pos + word.size()] == ' ';
    if (left && right) return true;
    ++pos;
  }
  return false;
}

std::string quoted(std::string_view s) {
  std::string q = "\"";
  for (char c : s) q += (c == '"' || c == '\\') ? std::string("\\") + c : std::string(1, c);
  return q + "\"";
}

// Text as adjacent string literals, one per line, split at spaces into pieces of at most
// `width` characters (a longer word stays whole).
std::string literal_lines(std::string_view text, const std::string& indent,
                          std::size_t width = 84) {
  std::vector<std::string> words;
  std::istringstream in{std::string(text)};
  for (std::string w; in >> w;) words.push_back(w);
  std::string out, line;
  for (std::size_t i = 0; i < words.size(); ++i) {
    const std::string piece = words[i] + (i + 1 < words.size() ? " " : "");
    if (!line.empty() && line.size() + piece.size() > width) {
      out += indent + quoted(line) + "\n";
      line.clear();
    }
    line += piece;
  }
  return out + indent + quoted(line);
}

}  // namespace

std::span<const ShippedRow> shipped_rows() { return kRows; }

ShippedMatch match_shipped(std::string_view device_name, std::span<const ShippedRow> rows) {
  for (const ShippedRow& r : rows)
    if (device_name == r.device) return {&r, *r.measured != '\0'};
  for (const ShippedRow& r : rows)
    if (*r.model && is_word_of(r.model, device_name)) return {&r, false};
  return {};
}

std::map<std::string, std::string> parse_shapes(std::string_view shapes) {
  std::map<std::string, std::string> out;
  std::istringstream in{std::string(shapes)};
  std::string token;
  while (in >> token) {
    const auto eq = token.find('=');
    require(eq != std::string::npos && eq > 0 && eq + 1 < token.size(),
            "shipped shapes: '" + token + "' is not family=variant");
    const bool fresh = out.emplace(token.substr(0, eq), token.substr(eq + 1)).second;
    require(fresh, "shipped shapes: family '" + token.substr(0, eq) + "' appears twice");
  }
  return out;
}

std::string format_row(std::string_view device, std::string_view model, std::string_view measured,
                       const std::map<std::string, std::string>& shapes) {
  std::string tokens;
  for (const FamilySpec& f : tuned_families()) {
    const auto it = shapes.find(f.name);
    if (it != shapes.end()) tokens += (tokens.empty() ? "" : " ") + f.name + "=" + it->second;
  }
  return "    {" + quoted(device) + ", " + quoted(model) + ",\n" +
         literal_lines(measured, "     ") + ",\n" + literal_lines(tokens, "     ") + "},\n";
}

}  // namespace strata::tuning

// Checkpoint files (see checkpoint.hpp). The header is JSON so that a person (or a script)
// can see what a checkpoint holds with `head -c 4096`; the payload is raw little-endian.
#include "core/checkpoint.hpp"

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <fstream>

#include <nlohmann/json.hpp>

#include "core/atomic_file.hpp"
#include "core/digest.hpp"

namespace strata::wave {

namespace {
constexpr char kMagic[8] = {'S', 'T', 'R', 'A', 'T', 'A', 'W', 'V'};
constexpr std::uint32_t kVersion = 1;
constexpr std::size_t kAlign = 64;
}  // namespace

template <class T>
void write_checkpoint(const std::string& path, const Checkpoint<T>& c) {
  nlohmann::ordered_json h;
  h["format"] = "strata wave checkpoint";
  h["version"] = kVersion;
  h["step"] = c.step;
  h["trace_rows"] = c.trace_rows;
  h["digest"] = c.digest;
  h["precision"] = to_string(precision_of<T>);
  io::Digest payload;
  std::size_t offset = 0;
  nlohmann::ordered_json arrays = nlohmann::ordered_json::array();
  for (const auto& a : c.arrays) {
    arrays.push_back({{"name", a.name}, {"count", a.data.size()}, {"offset", offset}});
    offset += a.data.size() * sizeof(T);
    payload.add_bytes(a.data.data(), a.data.size() * sizeof(T));
  }
  h["arrays"] = arrays;
  h["payload_digest"] = payload.hex();
  h["config"] = nlohmann::ordered_json::parse(c.config_json.empty() ? "{}" : c.config_json);
  const std::string header = h.dump();

  io::AtomicFile f(path);
  const std::uint32_t words[2] = {kVersion, 0};
  const std::uint64_t len = header.size();
  f.write(kMagic, 8);
  f.write(words, 8);
  f.write(&len, 8);
  f.write(header.data(), header.size());
  const std::size_t used = 24 + header.size();
  const char zeros[kAlign] = {};
  f.write(zeros, (kAlign - used % kAlign) % kAlign);
  for (const auto& a : c.arrays) f.write(a.data.data(), a.data.size() * sizeof(T));
  f.commit();
}

template <class T>
Checkpoint<T> read_checkpoint(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error("cannot read checkpoint '" + path + "': " + std::strerror(errno));
  auto bad = [&](const std::string& why) { return Error("checkpoint '" + path + "' is not usable: " + why); };
  char magic[8];
  std::uint32_t words[2];
  std::uint64_t len = 0;
  if (!in.read(magic, 8) || std::memcmp(magic, kMagic, 8) != 0) throw bad("not a strata wave checkpoint");
  if (!in.read(reinterpret_cast<char*>(words), 8) || !in.read(reinterpret_cast<char*>(&len), 8))
    throw bad("truncated header");
  if (words[0] != kVersion)
    throw bad("format version " + std::to_string(words[0]) + ", this strata reads version " + std::to_string(kVersion));
  if (len > (std::uint64_t(1) << 30)) throw bad("header length " + std::to_string(len) + " is implausible");
  std::string header(len, '\0');
  if (!in.read(header.data(), std::streamsize(len))) throw bad("truncated header");
  nlohmann::json h = nlohmann::json::parse(header, nullptr, false);
  if (h.is_discarded() || !h.is_object()) throw bad("the header is not valid JSON");

  Checkpoint<T> c;
  try {
    const std::string prec = h.at("precision").get<std::string>();
    if (prec != to_string(precision_of<T>))
      throw bad("it holds " + prec + " state; this run is " + to_string(precision_of<T>) +
                " (scheme.precision must match)");
    c.step = h.at("step").get<int>();
    c.trace_rows = h.at("trace_rows").get<int>();
    c.digest = h.at("digest").get<std::string>();
    c.config_json = h.at("config").dump(2);
    const std::size_t used = 24 + len;
    in.seekg(std::streamoff(used + (kAlign - used % kAlign) % kAlign));
    io::Digest payload;
    for (const auto& a : h.at("arrays")) {
      NamedArray<T> arr;
      arr.name = a.at("name").get<std::string>();
      const std::size_t count = a.at("count").get<std::size_t>();
      if (count > (std::size_t(1) << 40)) throw bad("array '" + arr.name + "' is implausibly large");
      arr.data.resize(count);
      if (!in.read(reinterpret_cast<char*>(arr.data.data()), std::streamsize(count * sizeof(T))))
        throw bad("truncated: array '" + arr.name + "' is incomplete");
      payload.add_bytes(arr.data.data(), count * sizeof(T));
      c.arrays.push_back(std::move(arr));
    }
    if (payload.hex() != h.at("payload_digest").get<std::string>())
      throw bad("its data do not match the digest recorded in its header (corrupt)");
  } catch (const nlohmann::json::exception& e) {
    throw bad(std::string("malformed header: ") + e.what());
  }
  if (in.peek() != std::char_traits<char>::eof()) throw bad("trailing bytes after the last array");
  return c;
}

template void write_checkpoint(const std::string&, const Checkpoint<float>&);
template void write_checkpoint(const std::string&, const Checkpoint<double>&);
template Checkpoint<float> read_checkpoint(const std::string&);
template Checkpoint<double> read_checkpoint(const std::string&);

}  // namespace strata::wave

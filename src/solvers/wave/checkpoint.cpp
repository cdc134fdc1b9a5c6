// Checkpoint files (see checkpoint.hpp). The header is JSON so that a person (or a script)
// can see what a checkpoint holds with `head -c 4096`; the payload is raw little-endian.
// Reading trusts nothing in the file before it is checked: lengths against the file's size
// before any allocation, names and counts against the state the reader expects, and
// everything against the digest in the preamble.
#include "solvers/wave/checkpoint.hpp"

#include <fcntl.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <limits>
#include <map>

#include <nlohmann/json.hpp>

#include "io/digest.hpp"
#include "io/json_reader.hpp"
#include "io/atomic_file.hpp"

namespace strata::wave {

namespace {
constexpr char kMagic[8] = {'S', 'T', 'R', 'A', 'T', 'A', 'W', 'V'};
constexpr std::uint32_t kVersion = 2;   // 2: the digest covers the header; 1 covered the data only
constexpr std::size_t kPreamble = 32;   // magic, version, 0, header length, digest
constexpr std::size_t kDigestAt = 24;   // the digest's place in the preamble
constexpr std::size_t kAlign = 64;
constexpr std::uint64_t kMaxHeader = std::uint64_t(64) << 20;  // the configuration is most of it

std::size_t padded(std::size_t used) { return used + (kAlign - used % kAlign) % kAlign; }
}  // namespace

namespace {

constexpr std::size_t kStageBytes = std::size_t(64) << 20;

// Calls piece(first, count) over an array in pieces of at most the staging buffer (whole
// granules, at least one).
template <class T, class Piece>
void for_each_piece(const ArraySource<T>& a, Piece&& piece) {
  const std::size_t granules = std::max<std::size_t>(1, kStageBytes / sizeof(T) / std::max<std::size_t>(a.granule, 1));
  const std::size_t step = granules * std::max<std::size_t>(a.granule, 1);
  for (std::size_t first = 0; first < a.count; first += step) piece(first, std::min(step, a.count - first));
}

// Starts the kernel writing what the temporary holds so far to disk (Linux), so that the
// commit's fsync does not wait for all of it at the end.
void start_writeback(io::AtomicFile& f) {
#if defined(__linux__)
  if (f.target().kind == io::OutputTarget::Kind::stream || !f.get()) return;
  std::fflush(f.get());
  ::sync_file_range(::fileno(f.get()), 0, 0, SYNC_FILE_RANGE_WRITE);
#else
  (void)f;
#endif
}

}  // namespace

template <class T>
void write_checkpoint(const std::string& path, const Checkpoint<T>& c, const std::vector<ArraySource<T>>& sources,
                      const std::function<void()>& before_commit) {
  nlohmann::ordered_json h;
  h["format"] = "strata wave checkpoint";
  h["version"] = kVersion;
  h["step"] = c.step;
  h["trace_rows"] = c.trace_rows;
  h["digest"] = c.digest;
  if (!c.partition.empty()) h["partition"] = c.partition;
  h["precision"] = to_string(precision_of<T>);
  std::size_t offset = 0;
  nlohmann::ordered_json arrays = nlohmann::ordered_json::array();
  for (const auto& a : sources) {
    arrays.push_back({{"name", a.name}, {"count", a.count}, {"offset", offset}});
    offset += a.count * sizeof(T);
  }
  h["arrays"] = arrays;
  h["config"] = nlohmann::ordered_json::parse(c.config_json.empty() ? "{}" : c.config_json);
  const std::string header = h.dump();

  std::vector<T> stage;
  for (const auto& a : sources)
    for_each_piece(a, [&](std::size_t, std::size_t n) { stage.resize(std::max(stage.size(), n)); });

  // The preamble holds the digest of what follows. A file's temporary gets it once the
  // arrays are written (read once, hashed as they go out); a stream (a pipe, a device) cannot
  // go back, so there the arrays are read twice: once to hash, once to write.
  io::AtomicFile f(path);
  const bool once = f.seekable();
  io::Digest digest;
  digest.add(header);
  if (!once)
    for (const auto& a : sources) {
      for_each_piece(a, [&](std::size_t first, std::size_t n) {
        a.read(first, n, stage.data());
        digest.stream_bytes(stage.data(), n * sizeof(T));
      });
      digest.end_stream();
    }
  const std::uint32_t words[2] = {kVersion, 0};
  const std::uint64_t len = header.size();
  std::uint64_t sum = once ? 0 : digest.value();
  f.write(kMagic, 8);
  f.write(words, 8);
  f.write(&len, 8);
  f.write(&sum, 8);
  f.write(header.data(), header.size());
  const char zeros[kAlign] = {};
  f.write(zeros, padded(kPreamble + header.size()) - kPreamble - header.size());
  for (const auto& a : sources) {
    for_each_piece(a, [&](std::size_t first, std::size_t n) {
      a.read(first, n, stage.data());
      if (once) digest.stream_bytes(stage.data(), n * sizeof(T));
      f.write(stage.data(), n * sizeof(T));
      start_writeback(f);
    });
    if (once) digest.end_stream();
  }
  if (once) {
    sum = digest.value();
    f.write_at(kDigestAt, &sum, 8);
  }
  if (before_commit) before_commit();
  f.commit();
}

template <class T>
void write_checkpoint(const std::string& path, const Checkpoint<T>& c) {
  std::vector<ArraySource<T>> sources;
  for (const auto& a : c.arrays)
    sources.push_back({a.name, a.data.size(), 1, [&a](std::size_t first, std::size_t n, T* dst) {
                         std::copy_n(a.data.data() + first, n, dst);
                       }});
  write_checkpoint(path, c, sources);
}

namespace {

// The preamble and header text of a checkpoint, checked against the file before the header
// is allocated; `in` is left at the end of the header.
struct RawHeader {
  std::string text;
  std::uint64_t recorded = 0;   // the digest over header and data
  std::uint64_t file_size = 0;
};

RawHeader read_raw_header(const std::string& path, std::ifstream& in) {
  auto bad = [&](const std::string& why) { return Error("checkpoint '" + path + "' is not usable: " + why); };
  in.open(path, std::ios::binary);
  if (!in) throw Error("cannot read checkpoint '" + path + "': " + std::strerror(errno));
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) throw Error("cannot read checkpoint '" + path + "': " + std::strerror(errno));
  if (!S_ISREG(st.st_mode)) throw bad("it is not a regular file");
  RawHeader r;
  r.file_size = std::uint64_t(st.st_size);
  char magic[8];
  std::uint32_t words[2];
  std::uint64_t len = 0;
  if (!in.read(magic, 8) || std::memcmp(magic, kMagic, 8) != 0) throw bad("not a strata wave checkpoint");
  if (!in.read(reinterpret_cast<char*>(words), 8)) throw bad("truncated header");
  if (words[0] == 1)
    throw bad("it is format version 1, whose header is not covered by its digest (an edited step or array name "
              "would go unnoticed); this strata reads version " + std::to_string(kVersion) +
              ": continue it with the strata that wrote it, or rerun from step 0");
  if (words[0] != kVersion)
    throw bad("format version " + std::to_string(words[0]) + ", this strata reads version " + std::to_string(kVersion));
  if (!in.read(reinterpret_cast<char*>(&len), 8) || !in.read(reinterpret_cast<char*>(&r.recorded), 8))
    throw bad("truncated header");
  if (len > kMaxHeader || len > r.file_size - kPreamble)
    throw bad("its header length " + std::to_string(len) + " does not fit in the file (" + std::to_string(r.file_size) +
              " bytes)");
  r.text.assign(len, '\0');
  if (!in.read(r.text.data(), std::streamsize(len))) throw bad("truncated header");
  return r;
}

}  // namespace

std::string checkpoint_digest(const std::string& path) {
  std::ifstream in;
  const RawHeader raw = read_raw_header(path, in);
  const nlohmann::json h = json_reader::parse(raw.text, "checkpoint '" + path + "' header");
  if (!h.is_object() || !h.contains("digest") || !h["digest"].is_string())
    throw Error("checkpoint '" + path + "' is not usable: its header has no configuration digest");
  return h["digest"].get<std::string>();
}

template <class T>
Checkpoint<T> read_checkpoint(const std::string& path,
                              const std::function<std::vector<ArraySpec>(const Checkpoint<T>&)>& expected) {
  auto bad = [&](const std::string& why) { return Error("checkpoint '" + path + "' is not usable: " + why); };
  std::ifstream in;
  const RawHeader raw = read_raw_header(path, in);
  const std::string& header = raw.text;
  const std::uint64_t file_size = raw.file_size, len = header.size(), recorded = raw.recorded;

  Checkpoint<T> c;
  std::vector<std::pair<std::string, std::uint64_t>> stored;  // name, count, in file order
  try {
    const nlohmann::json h = json_reader::parse(header, "checkpoint '" + path + "' header");
    if (!h.is_object()) throw bad("the header is not a JSON object");
    const std::string prec = h.at("precision").get<std::string>();
    if (prec != to_string(precision_of<T>))
      throw bad("it holds " + prec + " state; this run is " + to_string(precision_of<T>) +
                " (scheme.precision must match)");
    const auto whole = [&](const char* key, std::int64_t lo, std::int64_t hi) {
      const nlohmann::json& v = h.at(key);
      if (!v.is_number_integer() || v.get<std::int64_t>() < lo || v.get<std::int64_t>() > hi)
        throw bad(std::string("'") + key + "' is " + v.dump() + ", not a whole number in [" + std::to_string(lo) +
                  ", " + std::to_string(hi) + "]");
      return int(v.get<std::int64_t>());
    };
    c.step = whole("step", 0, std::numeric_limits<int>::max());
    c.trace_rows = whole("trace_rows", 1, std::numeric_limits<int>::max());
    c.digest = h.at("digest").get<std::string>();
    if (h.contains("partition")) {
      if (!h["partition"].is_string()) throw bad("'partition' is not text");
      c.partition = h["partition"].get<std::string>();
    }
    c.config_json = h.at("config").dump(2);
    // The data must be exactly what the header lists, back to back: checked against the
    // file's size before a byte of it is allocated.
    std::uint64_t offset = 0;
    const std::uint64_t room = file_size - std::min<std::uint64_t>(file_size, padded(kPreamble + len));
    for (const auto& a : h.at("arrays")) {
      const std::string name = a.at("name").get<std::string>();
      const nlohmann::json &count = a.at("count"), &at = a.at("offset");
      if (!count.is_number_unsigned() || !at.is_number_unsigned() || at.get<std::uint64_t>() != offset ||
          count.get<std::uint64_t>() > (room - offset) / sizeof(T))
        throw bad("array '" + name + "' (count " + count.dump() + ", offset " + at.dump() +
                  ") does not fit the file: " + std::to_string(room) + " bytes of data follow the header");
      stored.emplace_back(name, count.get<std::uint64_t>());
      offset += count.get<std::uint64_t>() * sizeof(T);
    }
    if (offset != room)
      throw bad("its arrays hold " + std::to_string(offset) + " bytes but " + std::to_string(room) +
                " bytes of data follow the header (truncated or extended)");
  } catch (const nlohmann::json::exception& e) {
    throw bad(std::string("malformed header: ") + e.what());
  }

  // The arrays must be exactly the state the reader has: each expected name once, its count.
  std::map<std::string, std::size_t> want;
  for (const ArraySpec& s : expected(c)) want[s.name] = s.count;
  std::map<std::string, int> seen;
  for (const auto& [name, count] : stored) {
    const auto it = want.find(name);
    if (it == want.end())
      throw bad("it holds an array '" + name + "' that this configuration's state does not have");
    if (++seen[name] > 1) throw bad("it holds array '" + name + "' twice");
    if (count != it->second)
      throw bad("array '" + name + "' holds " + std::to_string(count) + " values; this configuration's has " +
                std::to_string(it->second));
  }
  for (const auto& [name, count] : want)
    if (!seen.count(name)) throw bad("it lacks the state array '" + name + "'");

  io::Digest digest;
  digest.add(header);
  in.seekg(std::streamoff(padded(kPreamble + len)));
  for (const auto& [name, count] : stored) {
    NamedArray<T> arr;
    arr.name = name;
    arr.data.resize(count);
    if (!in.read(reinterpret_cast<char*>(arr.data.data()), std::streamsize(count * sizeof(T))))
      throw bad("truncated: array '" + name + "' is incomplete (was the file changed while being read?)");
    digest.add_bytes(arr.data.data(), count * sizeof(T));
    c.arrays.push_back(std::move(arr));
  }
  if (digest.value() != recorded)
    throw bad("its header or data do not match the digest recorded in it (corrupt or edited)");
  return c;
}

template void write_checkpoint(const std::string&, const Checkpoint<float>&);
template void write_checkpoint(const std::string&, const Checkpoint<double>&);
template void write_checkpoint(const std::string&, const Checkpoint<float>&, const std::vector<ArraySource<float>>&,
                             const std::function<void()>&);
template void write_checkpoint(const std::string&, const Checkpoint<double>&, const std::vector<ArraySource<double>>&,
                             const std::function<void()>&);
template Checkpoint<float> read_checkpoint(const std::string&,
                                           const std::function<std::vector<ArraySpec>(const Checkpoint<float>&)>&);
template Checkpoint<double> read_checkpoint(const std::string&,
                                            const std::function<std::vector<ArraySpec>(const Checkpoint<double>&)>&);

}  // namespace strata::wave

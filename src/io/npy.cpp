// .npy reader and writer. The header is a Python dict literal, parsed here by a small
// parser for the subset numpy writes; the reader then insists that the file holds exactly
// the data the header promises. Writes go through AtomicFile so no partial file is left.
#include "strata/npy.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <limits>
#include <memory>
#include <string_view>
#include <utility>
#include <vector>

#include "io/atomic_file.hpp"
#include "base/runtime.hpp"
#include "io/npy_box.hpp"

namespace strata {

// Data are copied between file and memory byte for byte, and f64 -> f32 relies on IEEE
// rounding (out-of-range values become +-inf).
static_assert(std::endian::native == std::endian::little, "strata assumes a little-endian host");
static_assert(std::numeric_limits<float>::is_iec559 && std::numeric_limits<double>::is_iec559);

std::size_t NpyInfo::elements() const {
  std::size_t n = 1;
  for (std::size_t d : shape) n *= d;  // npy_inspect has checked that this does not overflow
  return n;
}

namespace {

constexpr unsigned char kMagic[6] = {0x93, 'N', 'U', 'M', 'P', 'Y'};
constexpr std::size_t kAlign = 64;                  // numpy aligns the data to 64 bytes
constexpr std::size_t kMaxHeaderBytes = 16u << 20;  // far beyond any real header
constexpr int kMaxNesting = 32;
constexpr const char* kAllowedDtypes = "float32 ('<f4') or float64 ('<f8')";

[[noreturn]] void fail(const std::string& path, const std::string& what) {
  throw Error("npy file '" + path + "': " + what);
}

const char* dtype_name(Precision p) { return p == Precision::f32 ? "float32" : "float64"; }

// Python's repr of a shape tuple: (), (5,), (2, 3, 5).
std::string shape_str(std::span<const std::size_t> shape) {
  std::string s = "(";
  for (std::size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + (shape.size() == 1 ? ",)" : ")");
}

// Product of the dimensions, or false when it (or its size in bytes) overflows.
bool checked_bytes(std::span<const std::size_t> shape, std::size_t elem_bytes,
                   std::size_t& elements, std::size_t& bytes) {
  const std::size_t max = std::numeric_limits<std::size_t>::max();
  elements = 1;
  for (std::size_t d : shape) {
    if (d != 0 && elements > max / d) return false;
    elements *= d;
  }
  if (elements > max / elem_bytes) return false;
  bytes = elements * elem_bytes;
  return true;
}

// ---- the header dict -----------------------------------------------------------------

struct PyValue {
  enum class Kind { string, boolean, none, integer, tuple, list };
  Kind kind = Kind::none;
  std::string text;             // string
  bool truth = false;           // boolean
  bool negative = false;        // integer: sign,
  bool too_big = false;         //   magnitude beyond 64 bits,
  std::uint64_t magnitude = 0;  //   and magnitude
  std::vector<PyValue> items;   // tuple, list
};
using HeaderDict = std::vector<std::pair<std::string, PyValue>>;

std::string repr(const PyValue& v) {
  switch (v.kind) {
    case PyValue::Kind::string: return "'" + v.text + "'";
    case PyValue::Kind::boolean: return v.truth ? "True" : "False";
    case PyValue::Kind::none: return "None";
    case PyValue::Kind::integer:
      return v.too_big ? std::string("<integer beyond 64 bits>")
                       : (v.negative ? "-" : "") + std::to_string(v.magnitude);
    case PyValue::Kind::tuple:
    case PyValue::Kind::list: {
      const bool tuple = v.kind == PyValue::Kind::tuple;
      std::string s = tuple ? "(" : "[";
      for (std::size_t i = 0; i < v.items.size(); ++i) s += (i ? ", " : "") + repr(v.items[i]);
      return s + (tuple && v.items.size() == 1 ? "," : "") + (tuple ? ")" : "]");
    }
  }
  return "?";
}

// Parses the Python literal subset numpy writes: one dict with quoted keys whose values are
// strings, True/False/None, integers, and tuples or lists of those. Python semantics:
// trailing commas are fine, (5) is the integer 5 and (5,) a tuple.
class HeaderParser {
public:
  HeaderParser(std::string_view text, const std::string& path) : s_(text), path_(path) {}

  HeaderDict parse() {
    HeaderDict dict;
    skip_space();
    expect('{', "the header must be a Python dict, starting with '{'");
    skip_space();
    while (!eat('}')) {
      if (peek() != '\'' && peek() != '"') error("expected a quoted key or '}'");
      std::string key = string_literal();
      for (const auto& entry : dict)
        if (entry.first == key) error("key '" + key + "' appears twice");
      skip_space();
      expect(':', "expected ':' after key '" + key + "'");
      dict.emplace_back(std::move(key), value(0));
      skip_space();
      if (eat('}')) break;
      expect(',', "expected ',' or '}' after a value");
      skip_space();
    }
    skip_space();  // numpy pads with spaces and ends with '\n'
    if (pos_ != s_.size()) error("unexpected text after the dict");
    return dict;
  }

private:
  char peek() const { return pos_ < s_.size() ? s_[pos_] : '\0'; }
  bool at_end() const { return pos_ >= s_.size(); }
  bool eat(char c) {
    if (at_end() || s_[pos_] != c) return false;
    ++pos_;
    return true;
  }
  void expect(char c, const std::string& what) {
    if (!eat(c)) error(what);
  }
  void skip_space() {
    while (!at_end() && std::string_view(" \t\n\r\f\v").find(s_[pos_]) != std::string_view::npos)
      ++pos_;
  }
  static bool is_digit(char c) { return c >= '0' && c <= '9'; }
  static bool is_name(char c) {
    return is_digit(c) || c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
  }

  PyValue value(int depth) {
    if (depth > kMaxNesting) error("values nested too deeply");
    skip_space();
    const char c = peek();
    if (at_end()) error("the header ends inside the dict");
    if (c == '\'' || c == '"') {
      PyValue v;
      v.kind = PyValue::Kind::string;
      v.text = string_literal();
      return v;
    }
    if (c == '(' || c == '[') {
      ++pos_;
      return sequence(c == '(' ? ')' : ']', depth);
    }
    if (is_digit(c) || c == '-' || c == '+') return integer();
    if (is_name(c)) {
      const std::size_t start = pos_;
      while (is_name(peek())) ++pos_;
      const std::string_view name = s_.substr(start, pos_ - start);
      PyValue v;
      if (name == "True" || name == "False") {
        v.kind = PyValue::Kind::boolean;
        v.truth = name == "True";
      } else if (name != "None") {
        pos_ = start;
        error("unexpected name '" + std::string(name) + "'");
      }
      return v;
    }
    error("unexpected character");
  }

  // After the opening bracket.
  PyValue sequence(char close, int depth) {
    PyValue v;
    v.kind = close == ')' ? PyValue::Kind::tuple : PyValue::Kind::list;
    bool comma = false;
    skip_space();
    while (!eat(close)) {
      v.items.push_back(value(depth + 1));
      skip_space();
      if (eat(close)) break;
      expect(',', std::string("expected ',' or '") + close + "'");
      comma = true;
      skip_space();
    }
    if (close == ')' && v.items.size() == 1 && !comma) return std::move(v.items[0]);
    return v;
  }

  PyValue integer() {
    PyValue v;
    v.kind = PyValue::Kind::integer;
    v.negative = eat('-');
    if (!v.negative) eat('+');
    skip_space();
    if (!is_digit(peek())) error("expected a digit");
    const std::uint64_t max = std::numeric_limits<std::uint64_t>::max();
    while (is_digit(peek())) {
      const std::uint64_t d = std::uint64_t(s_[pos_++] - '0');
      if (v.magnitude > (max - d) / 10) v.too_big = true;
      v.magnitude = v.magnitude * 10 + d;
    }
    if (!eat('L')) eat('l');  // Python 2 longs, as old numpy wrote them: (3L, 4L)
    if (is_name(peek()) || peek() == '.') error("not an integer");
    return v;
  }

  std::string string_literal() {
    const char quote = s_[pos_++];
    std::string text;
    while (!at_end() && s_[pos_] != quote) {
      if (s_[pos_] == '\\' && pos_ + 1 < s_.size()) ++pos_;  // keep the escaped character
      text += s_[pos_++];
    }
    if (!eat(quote)) error("unterminated string");
    return text;
  }

  [[noreturn]] void error(const std::string& what) const {
    std::string_view head = s_.substr(0, 120);
    while (!head.empty() && (head.back() == ' ' || head.back() == '\n')) head.remove_suffix(1);
    std::string shown;
    for (char c : head) {
      const auto u = static_cast<unsigned char>(c);
      if (u >= 0x20 && u < 0x7f) {
        shown += c;
      } else {
        char hex[8];
        std::snprintf(hex, sizeof hex, "\\x%02x", u);
        shown += hex;
      }
    }
    fail(path_, "corrupt header: " + what + " at character " + std::to_string(pos_) +
                    " of " + shown + (s_.size() > 120 ? "..." : "") +
                    "; expected a dict like {'descr': '<f8', 'fortran_order': False, "
                    "'shape': (nz, ny, nx), }");
  }

  std::string_view s_;
  std::size_t pos_ = 0;
  const std::string& path_;
};

// A numpy type string such as '<i4' or '|b1' in words, for error messages.
std::string describe_descr(std::string_view d) {
  if (!d.empty() && std::string_view("<>|=").find(d[0]) != std::string_view::npos)
    d.remove_prefix(1);
  if (d.empty()) return "unknown";
  std::size_t size = 0;
  for (char c : d.substr(1)) size = (c >= '0' && c <= '9' && size < 1000) ? size * 10 + (c - '0') : 0;
  const std::string bits = size ? std::to_string(size * 8) : "";
  switch (d[0]) {
    case 'f': return "float" + bits;
    case 'i': return "int" + bits;
    case 'u': return "uint" + bits;
    case 'c': return "complex" + bits;
    case 'b': return "bool";
    case 'U': return "unicode string";
    case 'S': case 'a': return "byte string";
    case 'O': return "Python object";
    case 'M': return "datetime64";
    case 'm': return "timedelta64";
    case 'V': return "raw bytes (void)";
  }
  return "unknown";
}

Precision dtype_of(const PyValue& v, const std::string& path) {
  if (v.kind == PyValue::Kind::list)
    fail(path, "structured dtype " + repr(v) + " is not supported; allowed: " + kAllowedDtypes);
  if (v.kind != PyValue::Kind::string)
    fail(path, "'descr' must be a dtype string such as '<f8', found " + repr(v));
  const std::string& d = v.text;
  if (d == "<f4") return Precision::f32;
  if (d == "<f8") return Precision::f64;
  if (d == ">f4" || d == ">f8")
    fail(path, "big-endian " + describe_descr(d) + " ('" + d + "') is not supported; allowed: " +
                   "little-endian " + kAllowedDtypes + "; convert with a.astype('<f" + d.back() +
                   "')");
  fail(path, "dtype " + describe_descr(d) + " ('" + d + "') is not supported; allowed: " +
                 kAllowedDtypes);
}

NpyInfo interpret(const HeaderDict& dict, const std::string& path) {
  const char* const keys = "a .npy header holds exactly 'descr', 'fortran_order' and 'shape'";
  const PyValue *descr = nullptr, *fortran = nullptr, *shape = nullptr;
  for (const auto& [key, value] : dict) {
    if (key == "descr") descr = &value;
    else if (key == "fortran_order") fortran = &value;
    else if (key == "shape") shape = &value;
    else fail(path, "corrupt header: unexpected key '" + key + "'; " + keys);
  }
  const std::pair<const PyValue*, const char*> required[] = {
      {descr, "descr"}, {fortran, "fortran_order"}, {shape, "shape"}};
  for (const auto& [found, name] : required)
    if (!found) fail(path, std::string("corrupt header: missing key '") + name + "'; " + keys);

  NpyInfo info;
  info.dtype = dtype_of(*descr, path);
  if (fortran->kind != PyValue::Kind::boolean)
    fail(path, "'fortran_order' must be True or False, found " + repr(*fortran));
  if (fortran->truth)
    fail(path, "the array is stored in fortran (column-major) order; only C order is "
               "supported: save it C-ordered, e.g. np.save(path, np.ascontiguousarray(a))");
  if (shape->kind != PyValue::Kind::tuple)
    fail(path, "'shape' must be a tuple of non-negative integers, found " + repr(*shape));
  for (const PyValue& d : shape->items) {
    const char* problem = d.kind != PyValue::Kind::integer ? "is not an integer"
                          : d.negative && d.magnitude != 0   ? "is negative"
                          : d.too_big || d.magnitude > std::numeric_limits<std::size_t>::max()
                              ? "is too large"
                              : nullptr;
    if (problem)
      fail(path, "shape " + repr(*shape) + " is invalid: dimension " + repr(d) + " " + problem +
                     "; dimensions are integers >= 0");
    info.shape.push_back(std::size_t(d.magnitude));
  }
  return info;
}

// ---- reading ---------------------------------------------------------------------------

struct FileCloser {
  void operator()(std::FILE* f) const { std::fclose(f); }
};
using FilePtr = std::unique_ptr<std::FILE, FileCloser>;

void read_exact(std::FILE* f, void* dst, std::size_t bytes, const std::string& path) {
  if (std::fread(dst, 1, bytes, f) == bytes) return;
  if (std::ferror(f)) fail(path, std::string("read error: ") + std::strerror(errno));
  fail(path, "the file ended early (was it changed while being read?)");
}

struct OpenNpy {
  FilePtr file;  // positioned at the first data byte
  NpyInfo info;
};

// Opens the file, validates the header and checks the data size against the file size.
OpenNpy open_npy(const std::string& path) {
  FilePtr file(std::fopen(path.c_str(), "rb"));
  if (!file) fail(path, std::string("cannot open: ") + std::strerror(errno));
  struct stat st {};
  if (::fstat(::fileno(file.get()), &st) != 0)
    fail(path, std::string("cannot stat: ") + std::strerror(errno));
  if (!S_ISREG(st.st_mode)) fail(path, "not a regular file");
  const std::size_t file_size = std::size_t(st.st_size);

  unsigned char pre[12] = {};
  const std::size_t got = std::fread(pre, 1, std::min<std::size_t>(8, file_size), file.get());
  if (got < sizeof kMagic || std::memcmp(pre, kMagic, sizeof kMagic) != 0)
    fail(path, "not a .npy file: bad magic (a .npy file starts with \\x93NUMPY)");
  if (got < 8) fail(path, "truncated header: the file ends after " + std::to_string(got) + " bytes");
  const int major = pre[6], minor = pre[7];
  if (!((major == 1 || major == 2 || major == 3) && minor == 0))
    fail(path, "unsupported .npy format version " + std::to_string(major) + "." +
                   std::to_string(minor) + "; allowed: 1.0, 2.0, 3.0");

  // Version 1.0 has a 2-byte header length, 2.0 and 3.0 (utf-8 header) a 4-byte one.
  const std::size_t len_bytes = major == 1 ? 2 : 4, prefix = 8 + len_bytes;
  if (file_size < prefix) fail(path, "truncated header: the file ends inside the header length");
  read_exact(file.get(), pre + 8, len_bytes, path);
  std::size_t header_len = 0;
  for (std::size_t i = 0; i < len_bytes; ++i) header_len |= std::size_t(pre[8 + i]) << (8 * i);
  if (header_len > kMaxHeaderBytes)
    fail(path, "corrupt header: its length field says " + std::to_string(header_len) +
                   " bytes (at most " + std::to_string(kMaxHeaderBytes) + " are accepted)");
  if (header_len > file_size - prefix)
    fail(path, "truncated header: expected " + std::to_string(header_len) + " header bytes, " +
                   std::to_string(file_size - prefix) + " present");
  std::string header(header_len, '\0');
  read_exact(file.get(), header.data(), header_len, path);

  NpyInfo info = interpret(HeaderParser(header, path).parse(), path);
  info.data_offset = prefix + header_len;

  std::size_t elements = 0, bytes = 0;
  const std::string what = "shape " + shape_str(info.shape) + " of " + dtype_name(info.dtype);
  if (!checked_bytes(info.shape, bytes_of(info.dtype), elements, bytes))
    fail(path, what + " is too large: its size in bytes overflows 64 bits");
  const std::size_t present = file_size - info.data_offset;
  if (present < bytes)
    fail(path, "data truncated: expected " + std::to_string(bytes) + " data bytes for " + what +
                   " after the " + std::to_string(info.data_offset) + "-byte header, " +
                   std::to_string(present) + " present");
  if (present > bytes)
    fail(path, "trailing data: " + std::to_string(present - bytes) + " bytes after the " +
                   std::to_string(bytes) + " data bytes that " + what +
                   " needs; the file is not what its header says");
  return {std::move(file), std::move(info)};
}

// Reads values stored as `stored` into T, converting through a small buffer when the
// precisions differ.
template <class T>
class ValueReader {
public:
  ValueReader(std::FILE* f, Precision stored, const std::string& path)
      : file_(f), stored_(stored), path_(path) {}

  void read(T* dst, std::size_t count) {
    if (stored_ == precision_of<T>)
      read_exact(file_, dst, count * sizeof(T), path_);
    else if (stored_ == Precision::f32)
      convert<float>(dst, count);
    else
      convert<double>(dst, count);
  }

private:
  template <class S>
  void convert(T* dst, std::size_t count) {
    constexpr std::size_t chunk = 1 << 14;
    scratch_.resize(std::min(count, chunk) * sizeof(S));
    for (std::size_t done = 0; done < count;) {
      const std::size_t n = std::min(count - done, chunk);
      read_exact(file_, scratch_.data(), n * sizeof(S), path_);
      for (std::size_t i = 0; i < n; ++i) {
        S v;
        std::memcpy(&v, scratch_.data() + i * sizeof(S), sizeof(S));
        dst[done + i] = static_cast<T>(v);
      }
      done += n;
    }
  }

  std::FILE* file_;
  Precision stored_;
  const std::string& path_;
  std::vector<unsigned char> scratch_;
};

Extent extent_of(const NpyInfo& info, const std::string& path) {
  const std::string shape = shape_str(info.shape);
  if (info.shape.size() != 3)
    fail(path, "has rank " + std::to_string(info.shape.size()) + " (shape " + shape +
                   "); a 3D field needs rank 3, shape (nz, ny, nx)");
  for (std::size_t d : info.shape) {
    if (d == 0)
      fail(path, "shape " + shape + " has a zero dimension; a 3D field needs at least 1 "
                 "point per axis");
    if (d > std::size_t(INT_MAX))
      fail(path, "shape " + shape + " has an axis of " + std::to_string(d) +
                     " points; at most " + std::to_string(INT_MAX) + " are allowed");
  }
  return Extent{int(info.shape[2]), int(info.shape[1]), int(info.shape[0])};
}

}  // namespace

// ---- writing ---------------------------------------------------------------------------

// Magic, version, header length and the header dict, padded with spaces and a final '\n'
// so the data starts on a 64-byte boundary. Version 1.0 unless the header needs > 64 KiB.
std::string npy_preamble(Precision dtype, std::span<const std::size_t> shape,
                         const std::string& path) {
  const std::string dict = std::string("{'descr': '") +
                           (dtype == Precision::f32 ? "<f4" : "<f8") +
                           "', 'fortran_order': False, 'shape': " + shape_str(shape) + ", }";
  const auto header_len = [&](std::size_t prefix) {
    const std::size_t unpadded = prefix + dict.size() + 1;
    return dict.size() + 1 + (kAlign - unpadded % kAlign) % kAlign;
  };
  int major = 1;
  std::size_t len_bytes = 2, len = header_len(10);
  if (len > 0xffff) {
    major = 2;
    len_bytes = 4;
    len = header_len(12);
  }
  if (len > 0xffffffffu)
    throw Error("cannot write '" + path + "': a rank-" + std::to_string(shape.size()) +
                " header does not fit in a .npy file");

  std::string out(reinterpret_cast<const char*>(kMagic), sizeof kMagic);
  out += char(major);
  out += '\0';
  for (std::size_t i = 0; i < len_bytes; ++i) out += char((len >> (8 * i)) & 0xff);
  out += dict;
  out.append(len - dict.size() - 1, ' ');
  out += '\n';
  return out;
}

template <class T>
void npy_read_box_rows(const std::string& path, std::array<int, 3> offset, Extent box, int chunk_rows,
                       const std::function<void(int z, int y, int rows, const T* values)>& put) {
  OpenNpy in = open_npy(path);
  const Extent n = extent_of(in.info, path);
  require(offset[0] >= 0 && offset[1] >= 0 && offset[2] >= 0 && offset[0] + box.nx <= n.nx &&
              offset[1] + box.ny <= n.ny && offset[2] + box.nz <= n.nz,
          "internal: a box outside '" + path + "'");
  ValueReader<T> reader(in.file.get(), in.info.dtype, path);
  const std::size_t elem = bytes_of(in.info.dtype), row = std::size_t(box.nx);
  const bool whole_rows = box.nx == n.nx;  // a chunk's rows follow each other in the file
  const int chunk = std::max(1, std::min(chunk_rows, box.ny));
  std::vector<T> stage(std::size_t(chunk) * row);
  auto seek = [&](int z, int y) {
    const std::size_t first =
        (std::size_t(offset[2] + z) * std::size_t(n.ny) + std::size_t(offset[1] + y)) * std::size_t(n.nx) +
        std::size_t(offset[0]);
    if (::fseeko(in.file.get(), off_t(in.info.data_offset + first * elem), SEEK_SET) != 0)
      fail(path, std::string("cannot seek: ") + std::strerror(errno));
  };
  for (int z = 0; z < box.nz; ++z)
    for (int y = 0; y < box.ny; y += chunk) {
      const int k = std::min(chunk, box.ny - y);
      if (whole_rows) {
        seek(z, y);
        reader.read(stage.data(), std::size_t(k) * row);
      } else {
        for (int j = 0; j < k; ++j) {
          seek(z, y + j);
          reader.read(stage.data() + std::size_t(j) * row, row);
        }
      }
      put(z, y, k, stage.data());
    }
}

template void npy_read_box_rows(const std::string&, std::array<int, 3>, Extent, int,
                                const std::function<void(int, int, int, const float*)>&);
template void npy_read_box_rows(const std::string&, std::array<int, 3>, Extent, int,
                                const std::function<void(int, int, int, const double*)>&);

NpyInfo npy_inspect(const std::string& path) { return open_npy(path).info; }

Extent npy_extent(const NpyInfo& info, const std::string& path) { return extent_of(info, path); }

template <class T>
std::vector<T> npy_read(const std::string& path, std::vector<std::size_t>& shape) {
  OpenNpy in = open_npy(path);
  std::vector<T> data(in.info.elements());
  ValueReader<T>(in.file.get(), in.info.dtype, path).read(data.data(), data.size());
  shape = std::move(in.info.shape);
  return data;
}

template <class T>
std::vector<T> npy_read_3d(const std::string& path, Extent& extent) {
  OpenNpy in = open_npy(path);
  const Extent n = extent_of(in.info, path);
  std::vector<T> data(n.points());
  ValueReader<T>(in.file.get(), in.info.dtype, path).read(data.data(), data.size());
  extent = n;
  return data;
}

// Device fields stream through a host buffer of whole planes (or rows of a plane, for
// planes larger than it): no host copy of the grid, which took longer than the solve.
constexpr std::size_t kStageBytes = std::size_t(64) << 20;

// Calls move(z, y0, rows) for consecutive runs of rows of a field's interior, plane by plane,
// each run at most the staging buffer's size (at least one row).
template <class Move>
void for_each_run(Extent n, std::size_t row_bytes, Move&& move) {
  const std::size_t rows = std::max<std::size_t>(1, kStageBytes / row_bytes);
  for (int z = 0; z < n.nz; ++z)
    for (int y = 0; y < n.ny; y += int(std::min<std::size_t>(rows, std::size_t(n.ny - y))))
      move(z, y, int(std::min<std::size_t>(rows, std::size_t(n.ny - y))));
}

template <class T>
Field<T> npy_read_field(const std::string& path, int ghost, Memory memory) {
  OpenNpy in = open_npy(path);
  const Extent n = extent_of(in.info, path);
  Field<T> f(n, ghost, memory);
  ValueReader<T> reader(in.file.get(), in.info.dtype, path);
  if (memory == Memory::host) {  // straight into the padded rows
    for (int z = 0; z < n.nz; ++z)
      for (int y = 0; y < n.ny; ++y) reader.read(&f(0, y, z), std::size_t(n.nx));
    return f;
  }
  const std::size_t row = std::size_t(n.nx);
  std::vector<T> stage(std::min(std::max<std::size_t>(1, kStageBytes / (row * sizeof(T))), std::size_t(n.ny)) * row);
  const Layout& L = f.layout();
  for_each_run(n, row * sizeof(T), [&](int z, int y, int rows) {
    reader.read(stage.data(), std::size_t(rows) * row);
    runtime::copy_2d(f.data() + L.index(0, y, z), memory, L.pitch * sizeof(T), stage.data(), Memory::host,
                     row * sizeof(T), row * sizeof(T), std::size_t(rows));
  });
  return f;
}

template <class T>
void npy_write(const std::string& path, std::span<const T> data,
               std::span<const std::size_t> shape) {
  std::size_t elements = 0, bytes = 0;
  if (!checked_bytes(shape, sizeof(T), elements, bytes))
    throw Error("cannot write '" + path + "': shape " + shape_str(shape) +
                " is too large: its size in bytes overflows 64 bits");
  if (elements != data.size())
    throw Error("cannot write '" + path + "': shape " + shape_str(shape) + " holds " +
                std::to_string(elements) + " values but " + std::to_string(data.size()) +
                " were given");
  const std::string preamble = npy_preamble(precision_of<T>, shape, path);
  io::AtomicFile out(path);
  out.write(preamble.data(), preamble.size());
  out.write(data.data(), bytes);
  out.commit();
}

template <class T>
void npy_write_field(const std::string& path, const Field<T>& f) {
  require(!f.empty(), "cannot write '" + path + "': the field is empty");
  const Extent n = f.extent();
  const std::size_t shape[3] = {std::size_t(n.nz), std::size_t(n.ny), std::size_t(n.nx)};
  const std::string preamble = npy_preamble(precision_of<T>, shape, path);
  io::AtomicFile out(path);
  out.write(preamble.data(), preamble.size());
  const std::size_t row = std::size_t(n.nx);
  const Layout& L = f.layout();
  if (f.memory() == Memory::host) {  // straight from the padded rows
    for (int z = 0; z < n.nz; ++z)
      for (int y = 0; y < n.ny; ++y) out.write(f.data() + L.index(0, y, z), row * sizeof(T));
  } else {
    std::vector<T> stage(std::min(std::max<std::size_t>(1, kStageBytes / (row * sizeof(T))), std::size_t(n.ny)) * row);
    for_each_run(n, row * sizeof(T), [&](int z, int y, int rows) {
      runtime::copy_2d(stage.data(), Memory::host, row * sizeof(T), f.data() + L.index(0, y, z), f.memory(),
                       L.pitch * sizeof(T), row * sizeof(T), std::size_t(rows));
      out.write(stage.data(), std::size_t(rows) * row * sizeof(T));
    });
  }
  out.commit();
}

template std::vector<float> npy_read(const std::string&, std::vector<std::size_t>&);
template std::vector<double> npy_read(const std::string&, std::vector<std::size_t>&);
template std::vector<float> npy_read_3d(const std::string&, Extent&);
template std::vector<double> npy_read_3d(const std::string&, Extent&);
template Field<float> npy_read_field(const std::string&, int, Memory);
template Field<double> npy_read_field(const std::string&, int, Memory);
template void npy_write(const std::string&, std::span<const float>, std::span<const std::size_t>);
template void npy_write(const std::string&, std::span<const double>, std::span<const std::size_t>);
template void npy_write_field(const std::string&, const Field<float>&);
template void npy_write_field(const std::string&, const Field<double>&);

}  // namespace strata

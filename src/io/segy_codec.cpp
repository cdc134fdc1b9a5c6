// SEG-Y's value codecs (segy_codec.hpp, and IBM float of segy.hpp). IBM numbers go through
// double, which holds every one exactly (24-bit fractions, exponents 2^-280..2^228), so each
// conversion rounds once: exact bits, no table of special cases.
#include "io/segy_codec.hpp"

#include <array>
#include <bit>
#include <cmath>
#include <limits>
#include <string_view>
#include <type_traits>

namespace strata::io::segy {

static_assert(std::numeric_limits<float>::is_iec559 && std::numeric_limits<double>::is_iec559);

// ---- IBM float ---------------------------------------------------------------------------

double ibm_to_double(std::uint32_t bits) {
  const double fraction = double(bits & 0xffffffu);     // 0.F as an integer: F 2^24
  const int exponent = int((bits >> 24) & 0x7fu) - 64;  // of 16
  const double v = std::ldexp(fraction, 4 * exponent - 24);
  return bits >> 31 ? -v : v;
}

float ibm_to_float(std::uint32_t bits) { return static_cast<float>(ibm_to_double(bits)); }

std::optional<std::uint32_t> to_ibm(double v) {
  if (!std::isfinite(v)) return std::nullopt;
  const std::uint32_t sign = std::signbit(v) ? 0x80000000u : 0u;
  const double a = std::fabs(v);
  if (a == 0) return sign;
  int e2 = 0;
  (void)std::frexp(a, &e2);  // a = m 2^e2, m in [0.5, 1)
  // a = F 16^x with F in [1/16, 1): x = ceil(e2 / 4).
  const int x = e2 >= 0 ? (e2 + 3) / 4 : -(-e2 / 4);
  int exponent = x + 64;
  double fraction = 0;  // F 2^24, rounded to nearest-even (the default rounding mode)
  if (exponent >= 0) {
    fraction = std::nearbyint(std::ldexp(a, 24 - 4 * x));
    if (fraction == 0x1p24) {  // rounded up to 16^x: 1/16 16^(x+1)
      fraction = 0x1p20;
      ++exponent;
    }
  } else {  // below 16^-65: an unnormalised fraction at the smallest exponent
    exponent = 0;
    fraction = std::nearbyint(std::ldexp(a, 24 + 4 * 64));
  }
  if (exponent > 127) return std::nullopt;
  if (fraction == 0) return sign;
  return sign | std::uint32_t(exponent) << 24 | std::uint32_t(fraction);
}

// ---- the textual header --------------------------------------------------------------------

namespace {

// Code page 037 (IBM EBCDIC, US/Canada) to ISO-8859-1, byte for byte: Python's codec 'cp037'.
constexpr std::array<unsigned char, 256> kCp037 = {
    0x00, 0x01, 0x02, 0x03, 0x9c, 0x09, 0x86, 0x7f, 0x97, 0x8d, 0x8e, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f,
    0x10, 0x11, 0x12, 0x13, 0x9d, 0x85, 0x08, 0x87, 0x18, 0x19, 0x92, 0x8f, 0x1c, 0x1d, 0x1e, 0x1f,
    0x80, 0x81, 0x82, 0x83, 0x84, 0x0a, 0x17, 0x1b, 0x88, 0x89, 0x8a, 0x8b, 0x8c, 0x05, 0x06, 0x07,
    0x90, 0x91, 0x16, 0x93, 0x94, 0x95, 0x96, 0x04, 0x98, 0x99, 0x9a, 0x9b, 0x14, 0x15, 0x9e, 0x1a,
    0x20, 0xa0, 0xe2, 0xe4, 0xe0, 0xe1, 0xe3, 0xe5, 0xe7, 0xf1, 0xa2, 0x2e, 0x3c, 0x28, 0x2b, 0x7c,
    0x26, 0xe9, 0xea, 0xeb, 0xe8, 0xed, 0xee, 0xef, 0xec, 0xdf, 0x21, 0x24, 0x2a, 0x29, 0x3b, 0xac,
    0x2d, 0x2f, 0xc2, 0xc4, 0xc0, 0xc1, 0xc3, 0xc5, 0xc7, 0xd1, 0xa6, 0x2c, 0x25, 0x5f, 0x3e, 0x3f,
    0xf8, 0xc9, 0xca, 0xcb, 0xc8, 0xcd, 0xce, 0xcf, 0xcc, 0x60, 0x3a, 0x23, 0x40, 0x27, 0x3d, 0x22,
    0xd8, 0x61, 0x62, 0x63, 0x64, 0x65, 0x66, 0x67, 0x68, 0x69, 0xab, 0xbb, 0xf0, 0xfd, 0xfe, 0xb1,
    0xb0, 0x6a, 0x6b, 0x6c, 0x6d, 0x6e, 0x6f, 0x70, 0x71, 0x72, 0xaa, 0xba, 0xe6, 0xb8, 0xc6, 0xa4,
    0xb5, 0x7e, 0x73, 0x74, 0x75, 0x76, 0x77, 0x78, 0x79, 0x7a, 0xa1, 0xbf, 0xd0, 0xdd, 0xde, 0xae,
    0x5e, 0xa3, 0xa5, 0xb7, 0xa9, 0xa7, 0xb6, 0xbc, 0xbd, 0xbe, 0x5b, 0x5d, 0xaf, 0xa8, 0xb4, 0xd7,
    0x7b, 0x41, 0x42, 0x43, 0x44, 0x45, 0x46, 0x47, 0x48, 0x49, 0xad, 0xf4, 0xf6, 0xf2, 0xf3, 0xf5,
    0x7d, 0x4a, 0x4b, 0x4c, 0x4d, 0x4e, 0x4f, 0x50, 0x51, 0x52, 0xb9, 0xfb, 0xfc, 0xf9, 0xfa, 0xff,
    0x5c, 0xf7, 0x53, 0x54, 0x55, 0x56, 0x57, 0x58, 0x59, 0x5a, 0xb2, 0xd4, 0xd6, 0xd2, 0xd3, 0xd5,
    0x30, 0x31, 0x32, 0x33, 0x34, 0x35, 0x36, 0x37, 0x38, 0x39, 0xb3, 0xdb, 0xdc, 0xd9, 0xda, 0x9f,
};

bool printable(unsigned c) { return c >= 0x20 && c <= 0x7e; }

}  // namespace

char ebcdic_to_ascii(unsigned char b) { return kCp037[b] < 0x80 ? char(kCp037[b]) : '?'; }

std::optional<unsigned char> ascii_to_ebcdic(char c) {
  if (!printable(static_cast<unsigned char>(c))) return std::nullopt;
  for (unsigned b = 0; b < 256; ++b)
    if (kCp037[b] == static_cast<unsigned char>(c)) return static_cast<unsigned char>(b);
  return std::nullopt;  // not reached: code page 037 holds every printable ASCII character
}

bool ebcdic_portable(char c) {
  return printable(static_cast<unsigned char>(c)) &&
         std::string_view("![]^|").find(c) == std::string_view::npos;
}

TextEncoding detect_text(const unsigned char* bytes, std::size_t n) {
  std::size_t ascii = 0, ebcdic = 0;
  for (std::size_t i = 0; i < n; ++i) {
    ascii += printable(bytes[i]);
    ebcdic += printable(kCp037[bytes[i]]);
  }
  return ascii > ebcdic ? TextEncoding::ascii : TextEncoding::ebcdic;
}

std::string decode_text(const unsigned char* bytes, std::size_t n, TextEncoding e) {
  std::string s(n, ' ');
  for (std::size_t i = 0; i < n; ++i)
    s[i] = e == TextEncoding::ebcdic ? ebcdic_to_ascii(bytes[i])
           : bytes[i] < 0x80         ? char(bytes[i])
                                     : '?';
  return s;
}

// ---- samples -------------------------------------------------------------------------------

bool is_format_code(int code) { return (code >= 1 && code <= 12) || code == 15 || code == 16; }

std::string format_code_name(int code) {
  switch (code) {
    case 1:
      return "4-byte IBM floating point";
    case 2:
      return "4-byte two's complement integer";
    case 3:
      return "2-byte two's complement integer";
    case 4:
      return "4-byte fixed point with gain (obsolete)";
    case 5:
      return "4-byte IEEE floating point";
    case 6:
      return "8-byte IEEE floating point";
    case 7:
      return "3-byte two's complement integer";
    case 8:
      return "1-byte two's complement integer";
    case 9:
      return "8-byte two's complement integer";
    case 10:
      return "4-byte unsigned integer";
    case 11:
      return "2-byte unsigned integer";
    case 12:
      return "8-byte unsigned integer";
    case 15:
      return "3-byte unsigned integer";
    case 16:
      return "1-byte unsigned integer";
  }
  return "unknown";
}

bool is_supported(int code) {
  return code == 1 || code == 2 || code == 3 || code == 5 || code == 6 || code == 8;
}

int bytes_per_sample(Format f) {
  switch (f) {
    case Format::int16:
      return 2;
    case Format::ieee64:
      return 8;
    case Format::int8:
      return 1;
    default:
      return 4;
  }
}

std::string to_string(Format f) {
  const int code = static_cast<int>(f);
  return format_code_name(code) + " (format " + std::to_string(code) + ")";
}

double decode_sample(const unsigned char* p, Format f, Endian e) {
  switch (f) {
    case Format::ibm32:
      return ibm_to_double(load_u32(p, e));
    case Format::int32:
      return load_i32(p, e);
    case Format::int16:
      return load_i16(p, e);
    case Format::ieee32:
      return std::bit_cast<float>(load_u32(p, e));
    case Format::ieee64:
      return std::bit_cast<double>(load(p, 8, e));
    case Format::int8:
      return static_cast<std::int8_t>(p[0]);
  }
  return 0;
}

namespace {

template <class I>
bool encode_integer(unsigned char* p, double v, Endian e) {
  if (!(v == std::trunc(v) && v >= double(std::numeric_limits<I>::min()) &&
        v <= double(std::numeric_limits<I>::max())))
    return false;  // NaN fails the first test
  store(p, int(sizeof(I)), std::uint64_t(static_cast<std::make_unsigned_t<I>>(static_cast<I>(v))),
        e);
  return true;
}

}  // namespace

bool encode_sample(unsigned char* p, double v, Format f, Endian e) {
  switch (f) {
    case Format::ibm32: {
      const auto bits = to_ibm(v);
      if (bits) store(p, 4, *bits, e);
      return bits.has_value();
    }
    case Format::int32:
      return encode_integer<std::int32_t>(p, v, e);
    case Format::int16:
      return encode_integer<std::int16_t>(p, v, e);
    case Format::int8:
      return encode_integer<std::int8_t>(p, v, e);
    case Format::ieee32:
      store(p, 4, std::bit_cast<std::uint32_t>(static_cast<float>(v)), e);
      return true;
    case Format::ieee64:
      store(p, 8, std::bit_cast<std::uint64_t>(v), e);
      return true;
  }
  return false;
}

}  // namespace strata::io::segy

// SEG-Y's byte-level codecs, apart from the file logic of segy.cpp: integers in either byte
// order, the textual header's EBCDIC (code page 037) and its detection, and one sample of
// each format to and from double. IBM float itself is in segy.hpp (ibm_to_double, to_ibm).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "io/segy.hpp"

namespace strata::io::segy {

// The layout: a textual header, a binary header, then per trace a header and its samples
// (rev 1 and 2 may put extended textual headers between; rev 2 a trailer after).
inline constexpr std::uint64_t kText = 3200, kBinary = 400, kPreamble = kText + kBinary,
                               kTraceHeader = 240;
inline constexpr std::uint32_t kByteOrder = 0x01020304;  // rev 2's byte-order constant, 3297-3300

// ---- integers as stored: big- or little-endian, any alignment

inline std::uint64_t load(const unsigned char* p, int bytes, Endian e) {
  std::uint64_t v = 0;
  for (int i = 0; i < bytes; ++i) v = v << 8 | p[e == Endian::big ? i : bytes - 1 - i];
  return v;
}
inline void store(unsigned char* p, int bytes, std::uint64_t v, Endian e) {
  for (int i = 0; i < bytes; ++i)
    p[e == Endian::big ? bytes - 1 - i : i] = (unsigned char)(v >> (8 * i));
}
inline std::uint16_t load_u16(const unsigned char* p, Endian e) {
  return std::uint16_t(load(p, 2, e));
}
inline std::int16_t load_i16(const unsigned char* p, Endian e) {
  return std::int16_t(load(p, 2, e));
}
inline std::uint32_t load_u32(const unsigned char* p, Endian e) {
  return std::uint32_t(load(p, 4, e));
}
inline std::int32_t load_i32(const unsigned char* p, Endian e) {
  return std::int32_t(load(p, 4, e));
}

// ---- the textual header

// The character an EBCDIC (code page 037) byte stands for; '?' where that is not ASCII.
char ebcdic_to_ascii(unsigned char b);
// The EBCDIC byte of a printable ASCII character (0x20-0x7e); none for any other.
std::optional<unsigned char> ascii_to_ebcdic(char c);
// Whether c is printable ASCII that EBCDIC's common code pages agree on: all but ! [ ] ^ |,
// which code page 500 (segyio's table, among others) puts elsewhere than 037 does.
bool ebcdic_portable(char c);
// Which the 3200 bytes are: the encoding under which more of them are printable ASCII
// characters (EBCDIC on a tie, as the standard has it). EBCDIC's space 0x40 is ASCII's '@',
// but its letters and digits (0x81-0xf9) are not ASCII at all, and ASCII's space and letters
// are control or accented characters in EBCDIC, so real headers are far apart.
TextEncoding detect_text(const unsigned char* bytes, std::size_t n);
// The bytes as ASCII text: EBCDIC decoded, and any byte that is not ASCII as '?'.
std::string decode_text(const unsigned char* bytes, std::size_t n, TextEncoding e);

// ---- samples

// Known sample format codes, with a name for messages (rev 2's list); supported: Format.
bool is_format_code(int code);
std::string format_code_name(int code);
bool is_supported(int code);

// One stored sample (bytes_per_sample(f) bytes in byte order e) as double: exact for every
// format, IBM included, so that a float is this value rounded once.
double decode_sample(const unsigned char* p, Format f, Endian e);

// Stores v in format f; false when the format cannot hold it (IBM: NaN, inf or beyond its
// range; integers: not a whole number or out of range). IEEE float32 rounds to nearest.
bool encode_sample(unsigned char* p, double v, Format f, Endian e);

}  // namespace strata::io::segy

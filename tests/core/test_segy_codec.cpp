// SEG-Y's value codecs: IBM float against bit patterns worked out by hand from the format's
// definition (sign, excess-64 exponent of 16, fraction 0.F), rounding at float's and IBM's
// edges, nearest-rounding of to_ibm checked against both neighbours over seeded random
// values; and EBCDIC (code page 037) and the textual header's detection.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>

#include <gtest/gtest.h>

#include "io/segy.hpp"
#include "io/segy_codec.hpp"

using namespace strata::io::segy;

namespace {

bool same_bits(float a, float b) { return std::memcmp(&a, &b, sizeof a) == 0; }

}  // namespace

// ---- IBM -> IEEE ---------------------------------------------------------------------------

TEST(SegyIbm, HandComputedPatterns) {
  // 0xC276A000: sign 1, exponent 0x42 - 64 = 2, fraction 0x76A000 / 2^24 = 0.4633789...;
  // -0.4633789 * 16^2 = -118.625.
  EXPECT_EQ(ibm_to_double(0xC276A000u), -118.625);
  EXPECT_EQ(ibm_to_float(0xC276A000u), -118.625f);
  // 0x42640000: 0x64 / 256 * 16^2 = 100.
  EXPECT_EQ(ibm_to_double(0x42640000u), 100.0);
  // 0x41100000: 1/16 * 16 = 1.
  EXPECT_EQ(ibm_to_double(0x41100000u), 1.0);
  // 0x40800000: 0.5 * 16^0.
  EXPECT_EQ(ibm_to_double(0x40800000u), 0.5);
  // Zero, both signs; a zero fraction reads as zero whatever the exponent.
  EXPECT_EQ(ibm_to_double(0x00000000u), 0.0);
  EXPECT_FALSE(std::signbit(ibm_to_double(0x00000000u)));
  EXPECT_TRUE(std::signbit(ibm_to_double(0x80000000u)));
  EXPECT_TRUE(same_bits(ibm_to_float(0x80000000u), -0.0f));
  EXPECT_EQ(ibm_to_double(0x45000000u), 0.0);
  // The largest: (1 - 2^-24) 16^63; the smallest normal: 1/16 16^-64 = 2^-260; the smallest
  // of all (unnormalised): 2^-24 16^-64 = 2^-280.
  EXPECT_EQ(ibm_to_double(0x7FFFFFFFu), (1 - std::ldexp(1.0, -24)) * std::ldexp(1.0, 252));
  EXPECT_EQ(ibm_to_double(0xFFFFFFFFu), -(1 - std::ldexp(1.0, -24)) * std::ldexp(1.0, 252));
  EXPECT_EQ(ibm_to_double(0x00100000u), std::ldexp(1.0, -260));
  EXPECT_EQ(ibm_to_double(0x00000001u), std::ldexp(1.0, -280));
  // Unnormalised fractions mean what they say: 0x41010000 = 1/256 * 16.
  EXPECT_EQ(ibm_to_double(0x41010000u), 1.0 / 16);
}

TEST(SegyIbm, FloatEdgesRoundOnceToNearestEven) {
  // float's largest, (1 - 2^-24) 2^128 = (1 - 2^-24) 16^32: exponent 96 = 0x60, fraction all ones.
  EXPECT_EQ(ibm_to_float(0x60FFFFFFu), std::numeric_limits<float>::max());
  // 16^32 = 2^128 is beyond float: +inf, and the largest IBM numbers too, both signs.
  EXPECT_EQ(ibm_to_float(0x61100000u), std::numeric_limits<float>::infinity());
  EXPECT_EQ(ibm_to_float(0x7FFFFFFFu), std::numeric_limits<float>::infinity());
  EXPECT_EQ(ibm_to_float(0xFFFFFFFFu), -std::numeric_limits<float>::infinity());
  // 2^-140 = 1/16 16^-34 (exponent 30 = 0x1E): a float denormal, exactly.
  EXPECT_EQ(ibm_to_float(0x1E100000u), std::ldexp(1.0f, -140));
  // 3 2^-150 = 0.75 16^-37 (exponent 27 = 0x1B): halfway between the denormals 2^-149 and
  // 2^-148; ties go to the even one, 2^-148.
  EXPECT_EQ(ibm_to_float(0x1BC00000u), std::ldexp(1.0f, -148));
  // 5 2^-151 = 0.625 16^-37: 1.25 2^-149, nearer 2^-149.
  EXPECT_EQ(ibm_to_float(0x1BA00000u), std::ldexp(1.0f, -149));
  // IBM's smallest normal, 2^-260, is far below float's denormals: +0 and -0.
  EXPECT_TRUE(same_bits(ibm_to_float(0x00100000u), 0.0f));
  EXPECT_TRUE(same_bits(ibm_to_float(0x80100000u), -0.0f));
}

// ---- IEEE -> IBM ---------------------------------------------------------------------------

TEST(SegyIbm, ToIbmHandComputedPatterns) {
  EXPECT_EQ(to_ibm(-118.625), 0xC276A000u);
  EXPECT_EQ(to_ibm(100.0), 0x42640000u);
  EXPECT_EQ(to_ibm(1.0), 0x41100000u);
  EXPECT_EQ(to_ibm(0.5), 0x40800000u);
  EXPECT_EQ(to_ibm(0.0), 0x00000000u);
  EXPECT_EQ(to_ibm(-0.0), 0x80000000u);
  EXPECT_EQ(to_ibm(std::ldexp(1.0, -260)), 0x00100000u);
  EXPECT_EQ(to_ibm(std::ldexp(1.0, -280)), 0x00000001u);
  EXPECT_EQ(to_ibm((1 - std::ldexp(1.0, -24)) * std::ldexp(1.0, 252)), 0x7FFFFFFFu);
  // At 1 = 1/16 16^1 the fraction's step is 16 2^-24 = 2^-20. 1 + 2^-21 is halfway between
  // fractions 0x100000 and 0x100001: the even one. 1 + 3 2^-21: between 0x100001 and 0x100002.
  EXPECT_EQ(to_ibm(1 + std::ldexp(1.0, -21)), 0x41100000u);
  EXPECT_EQ(to_ibm(1 + 3 * std::ldexp(1.0, -21)), 0x41100002u);
  // Just below 16: all-ones fraction at exponent 65 rounds up to 1/16 16^2.
  EXPECT_EQ(to_ibm(16 - std::ldexp(1.0, -30)), 0x42100000u);
  // Below 2^-280 / 2 nothing is left; 2^-281 is a tie between 0 and 1: 0. 3 2^-282 rounds to 1.
  EXPECT_EQ(to_ibm(std::ldexp(1.0, -300)), 0x00000000u);
  EXPECT_EQ(to_ibm(-std::ldexp(1.0, -281)), 0x80000000u);
  EXPECT_EQ(to_ibm(3 * std::ldexp(1.0, -282)), 0x00000001u);
}

TEST(SegyIbm, ToIbmRefusesWhatIbmCannotHold) {
  EXPECT_FALSE(to_ibm(std::numeric_limits<double>::quiet_NaN()));
  EXPECT_FALSE(to_ibm(std::numeric_limits<double>::infinity()));
  EXPECT_FALSE(to_ibm(-std::numeric_limits<double>::infinity()));
  EXPECT_FALSE(to_ibm(1e76));
  EXPECT_FALSE(to_ibm(-std::ldexp(1.0, 252)));  // 16^63: one past the largest
  // Rounds up past the largest fraction: refused, not wrapped.
  EXPECT_FALSE(to_ibm((1 - std::ldexp(1.0, -26)) * std::ldexp(1.0, 252)));
}

// Over seeded random doubles of every magnitude IBM covers: to_ibm's result is normalised,
// is at least as near as both its neighbours, and reads back within half a step.
TEST(SegyIbm, ToIbmIsNearestAndNormalised) {
  std::mt19937_64 rng(40);
  std::uniform_real_distribution<double> mantissa(0.5, 1.0);
  std::uniform_int_distribution<int> exponent(-258, 250);
  for (int i = 0; i < 200000; ++i) {
    const double x = std::ldexp(mantissa(rng), exponent(rng)) * ((rng() & 1) ? 1 : -1);
    const auto bits = to_ibm(x);
    ASSERT_TRUE(bits) << x;
    const std::uint32_t fraction = *bits & 0xffffffu;
    ASSERT_GE(fraction, 0x100000u) << x << ": not normalised";
    const double got = ibm_to_double(*bits), err = std::fabs(got - x);
    ASSERT_EQ(std::signbit(got), std::signbit(x));
    ASSERT_LE(err, std::ldexp(std::fabs(x), -21)) << x;
    if (fraction < 0xffffffu) {
      ASSERT_LE(err, std::fabs(ibm_to_double(*bits + 1) - x)) << x;
    }
    if (fraction > 0x100000u) {
      ASSERT_LE(err, std::fabs(ibm_to_double(*bits - 1) - x)) << x;
    }
  }
}

// Every float whose significand needs at most 21 bits is an IBM number: it goes there and
// back exactly, through double and into float.
TEST(SegyIbm, ExactWhereRepresentable) {
  std::mt19937_64 rng(41);
  for (int i = 0; i < 100000; ++i) {
    const float x =
        std::ldexp(float(rng() & 0x1fffff), int(rng() % 200) - 120) * ((rng() & 1) ? 1 : -1);
    const auto bits = to_ibm(x);
    ASSERT_TRUE(bits);
    ASSERT_EQ(ibm_to_double(*bits), double(x));
    ASSERT_TRUE(same_bits(ibm_to_float(*bits), x)) << x;
  }
}

// ---- the textual header --------------------------------------------------------------------

TEST(SegyText, CodePage037) {
  // From the EBCDIC chart: letters C1-C9, D1-D9, E2-E9 (upper), 81-89... (lower), digits F0-F9.
  EXPECT_EQ(ascii_to_ebcdic('C'), 0xC3);
  EXPECT_EQ(ascii_to_ebcdic(' '), 0x40);
  EXPECT_EQ(ascii_to_ebcdic('1'), 0xF1);
  EXPECT_EQ(ascii_to_ebcdic('a'), 0x81);
  EXPECT_EQ(ascii_to_ebcdic('Z'), 0xE9);
  EXPECT_EQ(ascii_to_ebcdic('.'), 0x4B);
  EXPECT_EQ(ascii_to_ebcdic('['), 0xBA);
  EXPECT_FALSE(ascii_to_ebcdic('\n'));
  EXPECT_FALSE(ascii_to_ebcdic('\x80'));
  for (int c = 0x20; c < 0x7f; ++c) {
    const auto b = ascii_to_ebcdic(char(c));
    ASSERT_TRUE(b) << c;
    EXPECT_EQ(ebcdic_to_ascii(*b), char(c));
  }
  EXPECT_EQ(ebcdic_to_ascii(0xC1), 'A');
  EXPECT_EQ(ebcdic_to_ascii(0x41), '?');  // a no-break space: not ASCII
}

TEST(SegyText, DetectsEbcdicAndAscii) {
  const std::string line = "C 1 CLIENT: STRATA   LINE 7   SHOT 12   RECEIVERS 1-96";
  std::string ascii(3200, ' '), ebcdic(3200, char(0x40));
  for (std::size_t i = 0; i < line.size(); ++i) {
    ascii[i] = line[i];
    ebcdic[i] = char(*ascii_to_ebcdic(line[i]));
  }
  const auto* a = reinterpret_cast<const unsigned char*>(ascii.data());
  const auto* e = reinterpret_cast<const unsigned char*>(ebcdic.data());
  EXPECT_EQ(detect_text(a, 3200), TextEncoding::ascii);
  EXPECT_EQ(detect_text(e, 3200), TextEncoding::ebcdic);
  EXPECT_EQ(decode_text(e, 3200, TextEncoding::ebcdic).substr(0, line.size()), line);
  EXPECT_EQ(decode_text(a, 3200, TextEncoding::ascii).substr(0, line.size()), line);
  // All EBCDIC spaces read '@' in ASCII as much as ' ' in EBCDIC: a tie, EBCDIC.
  EXPECT_EQ(detect_text(e + 100, 3000), TextEncoding::ebcdic);
  // Bytes beyond ASCII read '?'.
  const unsigned char high[2] = {0xC1, 0xE0};
  EXPECT_EQ(decode_text(high, 2, TextEncoding::ascii), "??");
}

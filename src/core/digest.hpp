// A 64-bit FNV-1a digest for consistency checks (is this checkpoint from this
// configuration? is this payload intact?): bytes for text, 64-bit words for bulk arrays so
// hashing a large model costs a fraction of reading it. Not a cryptographic hash.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>

namespace strata::io {

class Digest {
public:
  void add(std::string_view text) {
    for (unsigned char c : text) h_ = (h_ ^ c) * kPrime;
  }
  void add_bytes(const void* data, std::size_t bytes) {
    const auto* p = static_cast<const unsigned char*>(data);
    std::size_t i = 0;
    for (; i + 8 <= bytes; i += 8) {
      std::uint64_t w;
      std::memcpy(&w, p + i, 8);
      h_ = (h_ ^ w) * kPrime;
    }
    for (; i < bytes; ++i) h_ = (h_ ^ p[i]) * kPrime;
    h_ = (h_ ^ bytes) * kPrime;  // the length, so a prefix never collides trivially
  }
  std::uint64_t value() const { return h_; }
  std::string hex() const {
    char b[17];
    std::snprintf(b, sizeof b, "%016llx", static_cast<unsigned long long>(h_));
    return b;
  }

private:
  static constexpr std::uint64_t kPrime = 0x100000001b3ull;
  std::uint64_t h_ = 0xcbf29ce484222325ull;
};

}  // namespace strata::io

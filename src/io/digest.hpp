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
  // add_bytes of one array fed in pieces of any size: the same value as one add_bytes of
  // the whole, for writers that stream an array through a small buffer.
  void stream_bytes(const void* data, std::size_t bytes) {
    const auto* p = static_cast<const unsigned char*>(data);
    stream_total_ += bytes;
    while (bytes > 0 && tail_n_ > 0) {  // complete a word begun by the previous piece
      tail_[tail_n_++] = *p++, --bytes;
      if (tail_n_ == 8) word(tail_), tail_n_ = 0;
    }
    for (; bytes >= 8; p += 8, bytes -= 8) word(p);
    while (bytes > 0) tail_[tail_n_++] = *p++, --bytes;
  }
  void end_stream() {
    for (std::size_t i = 0; i < tail_n_; ++i) h_ = (h_ ^ tail_[i]) * kPrime;
    h_ = (h_ ^ stream_total_) * kPrime;
    tail_n_ = 0;
    stream_total_ = 0;
  }
  std::uint64_t value() const { return h_; }
  std::string hex() const {
    char b[17];
    std::snprintf(b, sizeof b, "%016llx", static_cast<unsigned long long>(h_));
    return b;
  }

private:
  void word(const unsigned char* p) {
    std::uint64_t w;
    std::memcpy(&w, p, 8);
    h_ = (h_ ^ w) * kPrime;
  }
  static constexpr std::uint64_t kPrime = 0x100000001b3ull;
  std::uint64_t h_ = 0xcbf29ce484222325ull;
  unsigned char tail_[8] = {};
  std::size_t tail_n_ = 0, stream_total_ = 0;
};

}  // namespace strata::io

// The checkpoint digest fed in pieces (as a streamed checkpoint feeds it) equals the digest
// of the whole array, whatever the pieces' sizes, including pieces that split 8-byte words.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "io/digest.hpp"

TEST(Digest, StreamedPiecesEqualTheWhole) {
  std::mt19937_64 rng(3);
  for (std::size_t bytes : {0u, 1u, 7u, 8u, 9u, 63u, 64u, 1000u, 4099u}) {
    std::vector<unsigned char> data(bytes);
    for (auto& b : data) b = static_cast<unsigned char>(rng());
    strata::io::Digest whole;
    whole.add("header");
    whole.add_bytes(data.data(), data.size());
    for (int trial = 0; trial < 20; ++trial) {
      strata::io::Digest streamed;
      streamed.add("header");
      std::size_t at = 0;
      while (at < bytes) {
        const std::size_t n = std::min<std::size_t>(bytes - at, rng() % 13);
        streamed.stream_bytes(data.data() + at, n);
        at += n;
      }
      streamed.end_stream();
      EXPECT_EQ(streamed.value(), whole.value()) << bytes << " bytes, trial " << trial;
    }
  }
}

// PNG: signature, IHDR, one IDAT (zlib stream of the rows, each with filter type 1 "Sub",
// which suits smooth colour ramps), IEND; chunk CRCs from zlib's crc32.
#include "io/png.hpp"

#include <zlib.h>

#include <cstdint>

#include "io/atomic_file.hpp"
#include "strata/error.hpp"

namespace strata::io {

namespace {

void put32(std::vector<unsigned char>& out, std::uint32_t v) {
  for (int s = 24; s >= 0; s -= 8) out.push_back(static_cast<unsigned char>(v >> s));
}

void chunk(AtomicFile& f, const char type[4], const std::vector<unsigned char>& data) {
  std::vector<unsigned char> buf;
  put32(buf, std::uint32_t(data.size()));
  buf.insert(buf.end(), type, type + 4);
  buf.insert(buf.end(), data.begin(), data.end());
  const uLong crc = crc32(crc32(0L, Z_NULL, 0), buf.data() + 4, uInt(buf.size() - 4));
  put32(buf, std::uint32_t(crc));
  f.write(buf.data(), buf.size());
}

}  // namespace

void write_png(const std::string& path, const Image& im) {
  require(im.width > 0 && im.height > 0 && im.rgb.size() == std::size_t(im.width) * im.height * 3,
          "write_png: image of " + std::to_string(im.width) + "x" + std::to_string(im.height) +
              " pixels with " + std::to_string(im.rgb.size()) + " bytes");
  const std::size_t row = std::size_t(im.width) * 3;
  std::vector<unsigned char> raw;
  raw.reserve((row + 1) * im.height);
  for (int y = 0; y < im.height; ++y) {
    const unsigned char* src = im.rgb.data() + y * row;
    raw.push_back(1);  // Sub: each byte minus the byte one pixel to its left
    for (std::size_t i = 0; i < row; ++i) raw.push_back(static_cast<unsigned char>(src[i] - (i >= 3 ? src[i - 3] : 0)));
  }
  uLongf packed_size = compressBound(uLong(raw.size()));
  std::vector<unsigned char> packed(packed_size);
  if (compress2(packed.data(), &packed_size, raw.data(), uLong(raw.size()), 6) != Z_OK)
    throw Error("cannot write '" + path + "': zlib compression failed");
  packed.resize(packed_size);

  std::vector<unsigned char> ihdr;
  put32(ihdr, std::uint32_t(im.width));
  put32(ihdr, std::uint32_t(im.height));
  ihdr.insert(ihdr.end(), {8, 2, 0, 0, 0});  // 8 bits, RGB, deflate, adaptive filters, no interlace
  AtomicFile f(path);
  const unsigned char signature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
  f.write(signature, 8);
  chunk(f, "IHDR", ihdr);
  chunk(f, "IDAT", packed);
  chunk(f, "IEND", {});
  f.commit();
}

}  // namespace strata::io

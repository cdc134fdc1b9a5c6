// The device-to-device copy of a pitched box by an SM kernel, which runtime.cpp's copy_2d and
// copy_3d use when both sides are device memory: cudaMemcpy3D runs at 0.55 of a flat
// cudaMemcpy on the H200, a row-order kernel at ~0.9 (docs/performance.md). No CUDA headers.
#pragma once

#include <cstddef>

namespace strata::cuda {

// depth planes of height rows of width bytes each; a row starts dpitch (spitch) bytes after
// the one before it, a plane drows (srows) rows after the one before it. Moves 16-byte
// vectors where both pointers, both pitches and the width allow, else 8, 4, 2 or 1 bytes.
// Runs on the legacy default stream and returns when the copy is done (as cudaMemcpy3D did
// for its callers, which read the result at once). src and dst must not overlap. Zero sizes
// launch nothing. wide_index forces the 64-bit index path of boxes of 2^31 vectors or more
// (tests: that path on a small box).
void copy_pitched(void* dst, std::size_t dpitch, std::size_t drows, const void* src,
                  std::size_t spitch, std::size_t srows, std::size_t width, std::size_t height,
                  std::size_t depth, bool wide_index = false);

}  // namespace strata::cuda

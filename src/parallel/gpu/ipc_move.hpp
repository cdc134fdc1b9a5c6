// One CUDA IPC message as one kernel (ipc_move.cu): wait until the peer's count says the
// message may go, copy its pieces, then bump this side's count and tell the peer. The counts
// only grow and live in device memory, so the kernel waits and signals by itself (no stream
// memory operations, no host) and a CUDA graph may replay it. Measured on 2 x H200 against
// copies by the copy engines with flags set and waited for by stream memory operations: a
// round of 4 KiB each way 13.3 against 30.4 us, 1 MiB 16.7 against 33.6, 4 MiB 26.8 against
// 43.1 (tools/ipc-probe.cu).
#pragma once

#include <cstddef>

namespace strata::dist::transport::ipc {

struct Piece {
  const char* src;
  char* dst;
  std::size_t bytes;
};

constexpr int kMaxPieces = 16;

struct Move {
  int n = 0;
  Piece piece[kMaxPieces];
  unsigned* count;        // this side's count of such messages (local)
  const unsigned* seen;   // the peer's count, written by the peer into local memory
  unsigned lag;           // go once seen >= count + 1 - lag
  unsigned* tell;         // where the peer keeps this side's count (the peer's memory)
  unsigned* blocks_done;  // scratch (local), zero between launches
};

// Enqueues the move on `stream`; `bytes` (the pieces' total) sizes the grid. Throws Error if
// the launch fails.
void launch_move(const Move& m, std::size_t bytes, void* stream);

}  // namespace strata::dist::transport::ipc

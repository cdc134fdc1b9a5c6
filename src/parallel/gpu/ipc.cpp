// Device halo exchange between the ranks of one host through CUDA IPC, without NCCL.
//
// Each rank keeps a staging buffer with one slot per source rank and a few counters,
// exported once (cudaIpcGetMemHandle) and mapped by every other rank (cudaIpcOpenMemHandle:
// about 10 ms for a pair, where NCCL's communicator and connections took 1.6-1.8 s on 2 x
// H200). A message travels in two kernels (ipc_move.cu) on the caller's stream: the sender's
// writes it over NVLink into its slot of the receiver's staging buffer once the receiver has
// taken the one before, then tells the receiver; the receiver's waits for that, copies the
// slot out where the leg says and tells the sender. The counts only grow and live in device
// memory, so an exchange is asynchronous like NCCL's and a CUDA graph can replay it.
// Messages between a pair are matched in order, as NCCL matches them: the k-th leg sent to a
// peer is its k-th received from here, at the same offset in the slot. What does not fit a
// slot goes in rounds of one slot each: every rank sends its round-c chunks, then receives
// them, so no pair waits for a round its peer has not reached.
#include <cuda_runtime.h>
#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "parallel/gpu/ipc_move.hpp"
#include "parallel/gpu/transports.hpp"
#include "strata/dist.hpp"
#include "strata/error.hpp"

namespace strata::dist::transport::ipc {

namespace {

constexpr std::size_t kAlign = 256;  // each message's offset in a slot

struct Part {
  char* local;     // the leg's buffer on this rank
  std::size_t at;  // offset in the pair's byte stream (its slot, round after round)
  std::size_t bytes;
};

struct State {
  int me = 0, ranks = 1;
  std::size_t slot = 0;
  char* staging = nullptr;  // mine: `ranks` slots, slot s written by rank s
  // Mine, six counters per rank r, all 0 at first: [0] messages from r that have landed
  // (written by r), [1] my messages r has taken (written by r), [2] messages sent to r, [3]
  // messages taken from r, [4] and [5] the send and receive kernels' scratch.
  unsigned* counts = nullptr;
  std::vector<char*> peer_staging;  // rank r's staging buffer mapped here (nullptr: me)
  std::vector<unsigned*> peer_counts;
  // One exchange's messages per peer (kept to reuse their storage).
  std::vector<std::vector<Part>> out, in;
  unsigned* count(int kind, int r) const {
    return counts + std::size_t(kind) * std::size_t(ranks) + r;
  }
  unsigned* peer_count(int r, int kind, int of) const {
    return peer_counts[std::size_t(r)] + std::size_t(kind) * std::size_t(ranks) + of;
  }
};
enum Count {
  kLanded = 0,
  kTaken = 1,
  kSent = 2,
  kTakenHere = 3,
  kSendScratch = 4,
  kRecvScratch = 5,
  kCounts = 6
};

State& state() {
  static State s;
  return s;
}

void check(cudaError_t rc, const char* what) {
  if (rc != cudaSuccess)
    throw Error(std::string("GPU halo exchange (CUDA IPC): ") + what + ": " +
                cudaGetErrorString(rc));
}
// This rank's part of connect: "" or why it cannot. Leaves what it made in `st` (released
// by release() if any rank fails).
std::string connect_mine(State& st) {
  const std::size_t stage_bytes = st.slot * std::size_t(st.ranks);
  if (cudaMalloc(&st.staging, stage_bytes) != cudaSuccess) {
    cudaGetLastError();
    st.staging = nullptr;
    return "cannot allocate " + std::to_string(stage_bytes >> 20) + " MiB of staging on the GPU";
  }
  const std::size_t count_bytes = kCounts * std::size_t(st.ranks) * sizeof(unsigned);
  if (cudaMalloc(&st.counts, count_bytes) != cudaSuccess) {
    cudaGetLastError();
    st.counts = nullptr;
    return "cannot allocate the exchange's counters on the GPU";
  }
  // The staging is cleared too: only the peers write it (through their mappings), which
  // compute-sanitizer's initcheck in this process cannot see, so every receive read as
  // uninitialized memory (460,000 reports on DistApply at 2 ranks) and hid any real one.
  if (cudaMemset(st.counts, 0, count_bytes) != cudaSuccess ||
      cudaMemset(st.staging, 0, stage_bytes) != cudaSuccess ||
      cudaDeviceSynchronize() != cudaSuccess) {
    cudaGetLastError();
    return "cannot clear the exchange's counters and staging on the GPU";
  }
  return "";
}

void release(State& st) {
  for (std::size_t r = 0; r < st.peer_staging.size(); ++r) {
    if (st.peer_staging[r]) cudaIpcCloseMemHandle(st.peer_staging[r]);
    if (st.peer_counts[r]) cudaIpcCloseMemHandle(st.peer_counts[r]);
  }
  st.peer_staging.clear();
  st.peer_counts.clear();
  if (st.staging) cudaFree(st.staging);
  if (st.counts) cudaFree(st.counts);
  st.staging = nullptr;
  st.counts = nullptr;
  cudaGetLastError();
}

// Agrees on the first failing rank's reason; true when none failed.
bool agree(const std::string& mine, std::string& why) {
  const Job& job = Job::get();
  const int first = job.first_failed(!mine.empty());
  if (first < 0) return true;
  std::string msg = mine;
  std::size_t len = msg.size();
  job.broadcast(&len, sizeof len, first);
  msg.resize(len);
  job.broadcast(msg.data(), len, first);
  why = "rank " + std::to_string(first) + ": " + msg;
  return false;
}

// The messages of `legs`, per peer, at their offsets in each pair's byte stream; the
// stream's length per peer in `end`.
void place(std::span<const Leg> legs, State& st, std::vector<std::size_t>& out_end,
           std::vector<std::size_t>& in_end) {
  auto add = [](std::vector<Part>& list, std::size_t& end, const void* p, std::size_t bytes) {
    const std::size_t at = list.empty() ? 0 : (end + kAlign - 1) / kAlign * kAlign;
    list.push_back({static_cast<char*>(const_cast<void*>(p)), at, bytes});
    end = at + bytes;
  };
  for (auto& l : st.out) l.clear();
  for (auto& l : st.in) l.clear();
  for (const Leg& l : legs) {
    if (l.bytes == 0) continue;
    if (l.send_peer >= 0)
      add(st.out[std::size_t(l.send_peer)], out_end[std::size_t(l.send_peer)], l.send, l.bytes);
    if (l.recv_peer >= 0)
      add(st.in[std::size_t(l.recv_peer)], in_end[std::size_t(l.recv_peer)], l.recv, l.bytes);
  }
}

// The parts of `pieces` inside round c's window of the stream, as pieces of a move between
// the legs' buffers and `slot` (into the slot when `to_slot`); their bytes.
std::size_t round_pieces(const std::vector<Part>& pieces, std::size_t c, std::size_t slot_bytes,
                         char* slot, bool to_slot, Move& m) {
  const std::size_t lo = c * slot_bytes, hi = lo + slot_bytes;
  std::size_t total = 0;
  m.n = 0;
  for (const Part& p : pieces) {
    const std::size_t a = std::max(p.at, lo), b = std::min(p.at + p.bytes, hi);
    if (a >= b) continue;
    if (m.n == kMaxPieces)
      throw Error("GPU halo exchange (CUDA IPC): more than " + std::to_string(kMaxPieces) +
                  " messages to one peer in one exchange");
    char* in_slot = slot + (a - lo);
    char* in_leg = p.local + (a - p.at);
    m.piece[m.n++] = to_slot ? Piece{in_leg, in_slot, b - a} : Piece{in_slot, in_leg, b - a};
    total += b - a;
  }
  return total;
}

}  // namespace

std::size_t slot_bytes() { return state().slot; }

bool connect(std::string& why) {
  State& st = state();
  const Job& job = Job::get();
  st.me = job.rank();
  st.ranks = job.size();
  // Decided the same way on every rank: every rank sees the job's host count.
  if (job.local_size() != job.size()) {
    why = "the ranks are on several hosts (CUDA IPC joins the GPUs of one host)";
    return false;
  }
  st.slot = ipc_slot_setting();
  std::string mine = connect_mine(st);
  if (!agree(mine, why)) {
    release(st);
    return false;
  }
  // Every rank's two handles to every rank, then each opens the others'.
  cudaIpcMemHandle_t handles[2];
  check(cudaIpcGetMemHandle(&handles[0], st.staging), "cudaIpcGetMemHandle");
  check(cudaIpcGetMemHandle(&handles[1], st.counts), "cudaIpcGetMemHandle");
  std::vector<cudaIpcMemHandle_t> all(2 * std::size_t(st.ranks));
  if (MPI_Allgather(handles, int(sizeof handles), MPI_BYTE, all.data(), int(sizeof handles),
                    MPI_BYTE, MPI_COMM_WORLD) != MPI_SUCCESS)
    throw Error("MPI_Allgather failed while joining the GPUs by CUDA IPC");
  st.peer_staging.assign(std::size_t(st.ranks), nullptr);
  st.peer_counts.assign(std::size_t(st.ranks), nullptr);
  for (int r = 0; r < st.ranks && mine.empty(); ++r) {
    if (r == st.me) continue;
    void *stage = nullptr, *counts = nullptr;
    cudaError_t rc =
        cudaIpcOpenMemHandle(&stage, all[2 * std::size_t(r)], cudaIpcMemLazyEnablePeerAccess);
    if (rc == cudaSuccess) {
      st.peer_staging[std::size_t(r)] = static_cast<char*>(stage);
      rc = cudaIpcOpenMemHandle(&counts, all[2 * std::size_t(r) + 1],
                                cudaIpcMemLazyEnablePeerAccess);
      if (rc == cudaSuccess) st.peer_counts[std::size_t(r)] = static_cast<unsigned*>(counts);
    }
    if (rc != cudaSuccess) {
      cudaGetLastError();
      mine = std::string("cannot map rank ") + std::to_string(r) +
             "'s GPU memory (cudaIpcOpenMemHandle: " + cudaGetErrorString(rc) + ")";
    }
  }
  if (!agree(mine, why)) {
    // No rank has written into another's memory yet: each closes what it opened.
    release(st);
    return false;
  }
  st.out.assign(std::size_t(st.ranks), {});
  st.in.assign(std::size_t(st.ranks), {});
  return true;
}

void finish() {
  State& st = state();
  // A peer's receive kernel may still be telling this rank it took the last message: every
  // GPU drains before any rank unmaps or leaves.
  cudaDeviceSynchronize();
  MPI_Barrier(MPI_COMM_WORLD);
  release(st);
}

void exchange(std::span<const Leg> legs, void* stream) {
  State& st = state();
  std::vector<std::size_t> out_end(std::size_t(st.ranks), 0), in_end(std::size_t(st.ranks), 0);
  place(legs, st, out_end, in_end);
  std::size_t rounds = 0;
  for (int r = 0; r < st.ranks; ++r) {
    const std::size_t most = std::max(out_end[std::size_t(r)], in_end[std::size_t(r)]);
    rounds = std::max(rounds, (most + st.slot - 1) / st.slot);
  }
  Move m;
  for (std::size_t c = 0; c < rounds; ++c) {
    const std::size_t lo = c * st.slot;
    for (int p = 0; p < st.ranks; ++p) {
      if (out_end[std::size_t(p)] <= lo) continue;
      // Into my slot of p's staging once p has taken my last message; then p's count of my
      // messages that have landed.
      const std::size_t bytes =
          round_pieces(st.out[std::size_t(p)], c, st.slot,
                       st.peer_staging[std::size_t(p)] + st.slot * std::size_t(st.me), true, m);
      m.count = st.count(kSent, p), m.seen = st.count(kTaken, p), m.lag = 1;
      m.tell = st.peer_count(p, kLanded, st.me), m.blocks_done = st.count(kSendScratch, p);
      launch_move(m, bytes, stream);
    }
    for (int q = 0; q < st.ranks; ++q) {
      if (in_end[std::size_t(q)] <= lo) continue;
      // Out of q's slot of mine once q's message has landed; then q's count of its messages
      // taken.
      const std::size_t bytes = round_pieces(st.in[std::size_t(q)], c, st.slot,
                                             st.staging + st.slot * std::size_t(q), false, m);
      m.count = st.count(kTakenHere, q), m.seen = st.count(kLanded, q), m.lag = 0;
      m.tell = st.peer_count(q, kTaken, st.me), m.blocks_done = st.count(kRecvScratch, q);
      launch_move(m, bytes, stream);
    }
  }
}

}  // namespace strata::dist::transport::ipc

// Device halo exchange between the ranks of one host through CUDA IPC, without NCCL.
//
// Each rank keeps a staging buffer with one slot per source rank and a few flags, exported
// once (cudaIpcGetMemHandle) and mapped by every other rank (cudaIpcOpenMemHandle: about
// 10 ms for a pair, where NCCL's communicator and connections took 1.6-1.8 s on 2 x H200).
// A message travels in two copies: the sender's copy engine writes it over NVLink into its
// slot of the receiver's staging buffer, then the receiver copies it out where the leg says.
// Two flags per ordered pair keep the slot safe, both written and waited for by CUDA stream
// memory operations (cuStreamWriteValue32 / cuStreamWaitValue32), so an exchange is
// asynchronous like NCCL's, ordered on the caller's stream, and can be captured in a CUDA
// graph (the flags go 0 -> 1 -> 0, the same values every time):
//   sender s -> receiver r:  wait free[r] == 1 (s's memory), free[r] = 0, copy into r's
//                            slot s, ready[s] = 1 (r's memory; the write fences the copy)
//   receiver r <- sender s:  wait ready[s] == 1, ready[s] = 0, copy slot s out, free[r] = 1
//                            (s's memory)
// Messages between a pair are matched in order, as NCCL matches them: the k-th leg sent to
// a peer is its k-th received from here, at the same offset in the slot. What does not fit a
// slot goes in rounds of one slot each: every rank sends its round-c chunks, then receives
// them, so no pair waits for a round its peer has not reached.
#include <cudaTypedefs.h>
#include <cuda_runtime.h>
#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "parallel/gpu/transports.hpp"
#include "strata/dist.hpp"
#include "strata/error.hpp"

namespace strata::dist::transport::ipc {

namespace {

constexpr std::size_t kAlign = 256;  // each message's offset in a slot

struct Piece {
  char* local;     // the leg's buffer on this rank
  std::size_t at;  // offset in the pair's byte stream (its slot, round after round)
  std::size_t bytes;
};

struct State {
  int me = 0, ranks = 1;
  std::size_t slot = 0;
  char* staging = nullptr;          // mine: `ranks` slots, slot s written by rank s
  std::uint32_t* flags = nullptr;   // mine: ready[ranks], then free[ranks]
  std::vector<char*> peer_staging;  // rank r's staging buffer mapped here (nullptr: me)
  std::vector<std::uint32_t*> peer_flags;
  PFN_cuStreamWaitValue32_v11070 wait = nullptr;
  PFN_cuStreamWriteValue32_v11070 write = nullptr;
  // One exchange's messages per peer (kept to reuse their storage).
  std::vector<std::vector<Piece>> out, in;
};

State& state() {
  static State s;
  return s;
}

std::uint32_t* ready_flag(std::uint32_t* flags, int from) { return flags + from; }
std::uint32_t* free_flag(std::uint32_t* flags, int ranks, int to) { return flags + ranks + to; }

std::size_t slot_setting() {
  // STRATA_IPC_SLOT_KB: the staging bytes per source rank (default 32 MiB: a radius-4 f32
  // z face of 1448^2 points in one round). Smaller slots send large halos in more rounds;
  // the tests use them to make every exchange take several.
  const char* e = std::getenv("STRATA_IPC_SLOT_KB");
  long kb = 32 * 1024;
  if (e && *e) {
    char* end = nullptr;
    kb = std::strtol(e, &end, 10);
    if (*end || kb < 4 || kb > 4 * 1024 * 1024)
      throw Error(std::string("STRATA_IPC_SLOT_KB=") + e +
                  ": expected kilobytes from 4 to 4194304");
  }
  return std::size_t(kb) * 1024;
}

template <class F>
F driver_entry(const char* name) {
  void* p = nullptr;
  cudaDriverEntryPointQueryResult q{};
  if (cudaGetDriverEntryPointByVersion(name, &p, 11070, cudaEnableDefault, &q) != cudaSuccess ||
      q != cudaDriverEntryPointSuccess || !p)
    return nullptr;
  return reinterpret_cast<F>(p);
}

void check(cudaError_t rc, const char* what) {
  if (rc != cudaSuccess)
    throw Error(std::string("GPU halo exchange (CUDA IPC): ") + what + ": " +
                cudaGetErrorString(rc));
}
void check(CUresult rc, const char* what) {
  if (rc != CUDA_SUCCESS)
    throw Error(std::string("GPU halo exchange (CUDA IPC): ") + what + " failed (CUresult " +
                std::to_string(int(rc)) + ")");
}

// This rank's part of connect: "" or why it cannot. Leaves what it made in `st` (released
// by release() if any rank fails).
std::string connect_mine(State& st) {
  st.wait = driver_entry<PFN_cuStreamWaitValue32_v11070>("cuStreamWaitValue32");
  st.write = driver_entry<PFN_cuStreamWriteValue32_v11070>("cuStreamWriteValue32");
  if (!st.wait || !st.write)
    return "the CUDA driver has no stream memory operations (cuStreamWaitValue32)";
  const std::size_t stage_bytes = st.slot * std::size_t(st.ranks);
  if (cudaMalloc(&st.staging, stage_bytes) != cudaSuccess) {
    cudaGetLastError();
    st.staging = nullptr;
    return "cannot allocate " + std::to_string(stage_bytes >> 20) + " MiB of staging on the GPU";
  }
  const std::size_t flag_bytes = 2 * std::size_t(st.ranks) * sizeof(std::uint32_t);
  if (cudaMalloc(&st.flags, flag_bytes) != cudaSuccess) {
    cudaGetLastError();
    st.flags = nullptr;
    return "cannot allocate the exchange's flags on the GPU";
  }
  std::vector<std::uint32_t> init(2 * std::size_t(st.ranks), 0);
  std::fill(init.begin() + st.ranks, init.end(), 1u);  // every slot free, nothing ready
  if (cudaMemcpy(st.flags, init.data(), flag_bytes, cudaMemcpyHostToDevice) != cudaSuccess) {
    cudaGetLastError();
    return "cannot set the exchange's flags on the GPU";
  }
  return "";
}

void release(State& st) {
  for (std::size_t r = 0; r < st.peer_staging.size(); ++r) {
    if (st.peer_staging[r]) cudaIpcCloseMemHandle(st.peer_staging[r]);
    if (st.peer_flags[r]) cudaIpcCloseMemHandle(st.peer_flags[r]);
  }
  st.peer_staging.clear();
  st.peer_flags.clear();
  if (st.staging) cudaFree(st.staging);
  if (st.flags) cudaFree(st.flags);
  st.staging = nullptr;
  st.flags = nullptr;
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
  auto add = [](std::vector<Piece>& list, std::size_t& end, const void* p, std::size_t bytes) {
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

// Copies the parts of `pieces` inside round c's window of the stream between the legs'
// buffers and `slot` (to the slot when `to_slot`).
void copy_round(const std::vector<Piece>& pieces, std::size_t c, std::size_t slot_bytes, char* slot,
                bool to_slot, cudaStream_t s) {
  const std::size_t lo = c * slot_bytes, hi = lo + slot_bytes;
  for (const Piece& p : pieces) {
    const std::size_t a = std::max(p.at, lo), b = std::min(p.at + p.bytes, hi);
    if (a >= b) continue;
    char* in_slot = slot + (a - lo);
    char* in_leg = p.local + (a - p.at);
    check(cudaMemcpyAsync(to_slot ? in_slot : in_leg, to_slot ? in_leg : in_slot, b - a,
                          cudaMemcpyDeviceToDevice, s),
          "cudaMemcpyAsync");
  }
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
  st.slot = slot_setting();
  std::string mine = connect_mine(st);
  if (!agree(mine, why)) {
    release(st);
    return false;
  }
  // Every rank's two handles to every rank, then each opens the others'.
  cudaIpcMemHandle_t handles[2];
  check(cudaIpcGetMemHandle(&handles[0], st.staging), "cudaIpcGetMemHandle");
  check(cudaIpcGetMemHandle(&handles[1], st.flags), "cudaIpcGetMemHandle");
  std::vector<cudaIpcMemHandle_t> all(2 * std::size_t(st.ranks));
  if (MPI_Allgather(handles, int(sizeof handles), MPI_BYTE, all.data(), int(sizeof handles),
                    MPI_BYTE, MPI_COMM_WORLD) != MPI_SUCCESS)
    throw Error("MPI_Allgather failed while joining the GPUs by CUDA IPC");
  st.peer_staging.assign(std::size_t(st.ranks), nullptr);
  st.peer_flags.assign(std::size_t(st.ranks), nullptr);
  for (int r = 0; r < st.ranks && mine.empty(); ++r) {
    if (r == st.me) continue;
    void *stage = nullptr, *flags = nullptr;
    cudaError_t rc =
        cudaIpcOpenMemHandle(&stage, all[2 * std::size_t(r)], cudaIpcMemLazyEnablePeerAccess);
    if (rc == cudaSuccess) {
      st.peer_staging[std::size_t(r)] = static_cast<char*>(stage);
      rc =
          cudaIpcOpenMemHandle(&flags, all[2 * std::size_t(r) + 1], cudaIpcMemLazyEnablePeerAccess);
      if (rc == cudaSuccess) st.peer_flags[std::size_t(r)] = static_cast<std::uint32_t*>(flags);
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

void exchange(std::span<const Leg> legs, void* stream) {
  State& st = state();
  const auto s = static_cast<cudaStream_t>(stream);
  const auto cs = static_cast<CUstream>(stream);
  std::vector<std::size_t> out_end(std::size_t(st.ranks), 0), in_end(std::size_t(st.ranks), 0);
  place(legs, st, out_end, in_end);
  std::size_t rounds = 0;
  for (int r = 0; r < st.ranks; ++r) {
    const std::size_t most = std::max(out_end[std::size_t(r)], in_end[std::size_t(r)]);
    rounds = std::max(rounds, (most + st.slot - 1) / st.slot);
  }
  for (std::size_t c = 0; c < rounds; ++c) {
    const std::size_t lo = c * st.slot;
    for (int p = 0; p < st.ranks; ++p) {
      if (out_end[std::size_t(p)] <= lo) continue;
      const auto free_p = reinterpret_cast<CUdeviceptr>(free_flag(st.flags, st.ranks, p));
      check(st.wait(cs, free_p, 1, CU_STREAM_WAIT_VALUE_EQ), "waiting for a peer's free slot");
      check(st.write(cs, free_p, 0, 0), "taking a peer's slot");
      copy_round(st.out[std::size_t(p)], c, st.slot,
                 st.peer_staging[std::size_t(p)] + st.slot * std::size_t(st.me), true, s);
      check(st.write(
                cs, reinterpret_cast<CUdeviceptr>(ready_flag(st.peer_flags[std::size_t(p)], st.me)),
                1, 0),
            "telling a peer its message is there");
    }
    for (int q = 0; q < st.ranks; ++q) {
      if (in_end[std::size_t(q)] <= lo) continue;
      const auto ready_q = reinterpret_cast<CUdeviceptr>(ready_flag(st.flags, q));
      check(st.wait(cs, ready_q, 1, CU_STREAM_WAIT_VALUE_EQ), "waiting for a peer's message");
      check(st.write(cs, ready_q, 0, 0), "taking a peer's message");
      copy_round(st.in[std::size_t(q)], c, st.slot, st.staging + st.slot * std::size_t(q), false,
                 s);
      check(st.write(cs,
                     reinterpret_cast<CUdeviceptr>(
                         free_flag(st.peer_flags[std::size_t(q)], st.ranks, st.me)),
                     1, 0),
            "giving a peer its slot back");
    }
  }
}

}  // namespace strata::dist::transport::ipc

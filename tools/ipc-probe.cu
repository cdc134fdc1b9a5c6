// tools/ipc-probe.cu (issue 36): can the ranks of one host trade halos through CUDA IPC and
// stream memory operations instead of NCCL, and what does each part cost? Standalone, one
// rank per GPU as strata runs them (each rank narrowed to its GPU by CUDA_VISIBLE_DEVICES
// before CUDA starts). Measures: the context, exporting and opening the peers' buffers, a
// halo round (every rank sends B bytes to each ring neighbour's staging buffer and copies what
// it received out of its own) for B from 4 KB to 64 MB, checked byte for byte, and the same
// round captured once into a CUDA graph and replayed. The protocol per ordered pair: the
// receiver's "ready" flag (written by the sender after its copy) and the sender's "free"
// flag (written by the receiver after it copied the staging out), waited on in the stream.
//   nvcc -O2 -std=c++17 -arch=sm_90 tools/ipc-probe.cu -o /tmp/ipc-probe \
//        $(mpicxx --showme:compile) $(mpicxx --showme:link) -lcuda
//   mpirun -np 2 /tmp/ipc-probe [--protocol engine|kernel|spin] [--blocks N] [--json FILE]
// Protocols: engine (the copies by the copy engines, every flag by a stream memory operation),
// kernel (the waits by stream memory operations, the copies and flag writes by one kernel each
// way), spin (one kernel each way that also waits, spinning on counters that only grow: no
// stream memory operations at all).
#include <cuda.h>
#include <cuda_runtime.h>
#include <mpi.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

namespace {

int rank = 0, size = 1;

void die(const char* what, const char* why) {
  std::fprintf(stderr, "rank %d: %s: %s\n", rank, what, why);
  MPI_Abort(MPI_COMM_WORLD, 1);
}
void ck(cudaError_t e, const char* what) {
  if (e != cudaSuccess) die(what, cudaGetErrorString(e));
}
void ck(CUresult e, const char* what) {
  if (e != CUDA_SUCCESS) {
    const char* s = nullptr;
    cuGetErrorString(e, &s);
    die(what, s ? s : "?");
  }
}
double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

constexpr std::size_t kSlot = std::size_t(64) << 20;  // staging bytes per source rank

struct Peer {
  int rank;
  char* staging;           // the peer's staging buffer, my slot in it
  unsigned* ready;         // the peer's ready flag for me
  unsigned* free;          // my free flag for the peer (local)
  unsigned* my_ready;      // my ready flag for the peer (local)
  unsigned* peer_free;     // the peer's free flag for me
};

__global__ void fill(unsigned* p, std::size_t n, unsigned seed) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x)
    p[i] = unsigned(i) * 2654435761u ^ seed;
}
__global__ void check(const unsigned* p, std::size_t n, unsigned seed, unsigned* bad) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x)
    if (p[i] != (unsigned(i) * 2654435761u ^ seed)) atomicAdd(bad, 1u);
}

// Copies every piece, 16-byte vectors, four loads in flight a thread (sizes and addresses
// 16-byte aligned here).
struct Pieces {
  int n = 0;
  const char* src[4];
  char* dst[4];
  unsigned long long bytes[4];
};
__device__ void copy_pieces(const Pieces& p) {
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x, t = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
  for (int k = 0; k < p.n; ++k) {
    const uint4* s = reinterpret_cast<const uint4*>(p.src[k]);
    uint4* d = reinterpret_cast<uint4*>(p.dst[k]);
    const std::size_t nv = p.bytes[k] / 16;
    std::size_t i = t;
    for (; i + 3 * stride < nv; i += 4 * stride) {
      const uint4 a = s[i], b = s[i + stride], c = s[i + 2 * stride], e = s[i + 3 * stride];
      d[i] = a, d[i + stride] = b, d[i + 2 * stride] = c, d[i + 3 * stride] = e;
    }
    for (; i < nv; i += stride) d[i] = s[i];
  }
}
__device__ unsigned load_acquire(const unsigned* p) {
  unsigned v;
  asm volatile("ld.acquire.sys.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}
__device__ void store_release(unsigned* p, unsigned v) {
  asm volatile("st.release.sys.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}
// The last block to finish (every block's writes fenced before it counts) runs `last`.
template <class F>
__device__ void when_last(unsigned* counter, F last) {
  __syncthreads();
  if (threadIdx.x == 0) {
    __threadfence_system();
    if (atomicAdd(counter, 1u) == gridDim.x - 1) {
      *counter = 0;
      __threadfence_system();
      last();
    }
  }
}
// kernel protocol: a stream wait saw `mine` == 1 before the launch.
__global__ void copy_and_flag(Pieces p, unsigned* mine, unsigned* theirs, unsigned* counter) {
  if (blockIdx.x == 0 && threadIdx.x == 0) *mine = 0;
  copy_pieces(p);
  when_last(counter, [&] { store_release(theirs, 1); });
}
// spin protocol: `count` (mine) numbers the messages; wait until `seen` (written by the peer)
// reaches count + 1 - lag, copy, then count + 1 goes to `count` and to the peer's `tell`.
__global__ void spin_copy(Pieces p, unsigned* count, const unsigned* seen, unsigned lag, unsigned* tell,
                          unsigned* counter) {
  __shared__ unsigned seq;
  if (threadIdx.x == 0) {
    seq = *const_cast<volatile unsigned*>(count) + 1;
    while (int(load_acquire(seen) - (seq - lag)) < 0) __nanosleep(32);
  }
  __syncthreads();
  copy_pieces(p);
  when_last(counter, [&] {
    *count = seq;
    store_release(tell, seq);
  });
}

}  // namespace

int main(int argc, char** argv) {
  const double t_start = now();
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  std::string json, protocol = "engine";
  int blocks = 32;
  for (int i = 1; i + 1 < argc; ++i) {
    if (std::string(argv[i]) == "--json") json = argv[i + 1];
    if (std::string(argv[i]) == "--protocol") protocol = argv[i + 1];
    if (std::string(argv[i]) == "--blocks") blocks = std::atoi(argv[i + 1]);
  }
  if (!std::getenv("PROBE_ALL_GPUS")) setenv("CUDA_VISIBLE_DEVICES", std::to_string(rank).c_str(), 1);
  const double t0 = now();
  ck(cudaFree(nullptr), "context");
  const double t_ctx = now() - t0;
  int mem_ops = 0;
  {
    CUdevice d;
    ck(cuCtxGetDevice(&d), "device");
    ck(cuDeviceGetAttribute(&mem_ops, CU_DEVICE_ATTRIBUTE_CAN_USE_64_BIT_STREAM_MEM_OPS, d), "attr");
  }
  // Each rank: staging (one slot per source rank) and flags (ready[src], free[dst]).
  const double t1 = now();
  char* staging = nullptr;
  unsigned* flags = nullptr;
  ck(cudaMalloc(&staging, kSlot * size), "staging");
  ck(cudaMalloc(&flags, 16384), "flags");
  std::vector<unsigned> init(4096, 0);
  for (int r = 0; r < size; ++r) init[512 + r] = 1;  // free[r] = 1
  ck(cudaMemcpy(flags, init.data(), 16384, cudaMemcpyHostToDevice), "flags init");
  cudaIpcMemHandle_t mine[2], all[2 * 64];
  ck(cudaIpcGetMemHandle(&mine[0], staging), "export staging");
  ck(cudaIpcGetMemHandle(&mine[1], flags), "export flags");
  MPI_Allgather(mine, sizeof mine, MPI_BYTE, all, sizeof mine, MPI_BYTE, MPI_COMM_WORLD);
  const double t_export = now() - t1;
  std::vector<int> ring;
  if (size > 1) ring.push_back((rank + 1) % size);
  if (size > 2) ring.push_back((rank + size - 1) % size);
  std::vector<Peer> peers;
  const double t2 = now();
  for (int q : ring) {
    void *st = nullptr, *fl = nullptr;
    ck(cudaIpcOpenMemHandle(&st, all[2 * q], cudaIpcMemLazyEnablePeerAccess), "open staging");
    ck(cudaIpcOpenMemHandle(&fl, all[2 * q + 1], cudaIpcMemLazyEnablePeerAccess), "open flags");
    auto* pf = static_cast<unsigned*>(fl);
    peers.push_back({q, static_cast<char*>(st) + kSlot * rank, pf + rank, flags + 512 + q, flags + q, pf + 512 + rank});
  }
  const double t_open = now() - t2;
  MPI_Barrier(MPI_COMM_WORLD);
  const double t_ready = now() - t_start;

  cudaStream_t s;
  ck(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "stream");
  char* src = nullptr;
  ck(cudaMalloc(&src, kSlot), "src");
  std::vector<char*> dst(peers.size());
  for (auto& d : dst) ck(cudaMalloc(&d, kSlot), "dst");
  unsigned* bad = nullptr;
  ck(cudaMalloc(&bad, 4), "bad");
  unsigned* counters = nullptr;  // [0]: sends, [1]: receives
  ck(cudaMalloc(&counters, 8), "counters");
  ck(cudaMemset(counters, 0, 8), "counters");
  // spin protocol's counters: sent[p] 1024+p, consumed[p] 1536+p (written by p), arrived[q]
  // 2048+q (written by q), taken[q] 2560+q; all start at 0.
  auto at = [](unsigned* base, int i) { return base + i; };
  cudaEvent_t e0, e1;
  cudaEventCreate(&e0);
  cudaEventCreate(&e1);

  // The round: the receive side copies its slot of the staging buffer out. Returns the first
  // failing call's name ("" if none): inside a capture a call may be refused.
  auto kernel_round = [&](std::size_t bytes) -> std::string {
    for (Peer& p : peers) {
      Pieces pc;
      pc.n = 1, pc.src[0] = src, pc.dst[0] = p.staging, pc.bytes[0] = bytes;
      if (protocol == "kernel") {
        if (cuStreamWaitValue32(s, CUdeviceptr(p.free), 1, CU_STREAM_WAIT_VALUE_EQ) != CUDA_SUCCESS) return "wait free";
        copy_and_flag<<<blocks, 512, 0, s>>>(pc, p.free, p.ready, counters);
      } else {
        unsigned* peer_base = p.ready - rank;  // the peer's flags
        spin_copy<<<blocks, 512, 0, s>>>(pc, at(flags, 1024 + p.rank), at(flags, 1536 + p.rank), 1,
                                          at(peer_base, 2048 + rank), counters);
      }
      if (cudaGetLastError() != cudaSuccess) return "send kernel";
    }
    for (std::size_t k = 0; k < peers.size(); ++k) {
      Peer& p = peers[k];
      Pieces pc;
      pc.n = 1, pc.src[0] = staging + kSlot * p.rank, pc.dst[0] = dst[k], pc.bytes[0] = bytes;
      if (protocol == "kernel") {
        if (cuStreamWaitValue32(s, CUdeviceptr(p.my_ready), 1, CU_STREAM_WAIT_VALUE_EQ) != CUDA_SUCCESS) return "wait ready";
        copy_and_flag<<<blocks, 512, 0, s>>>(pc, p.my_ready, p.peer_free, counters + 1);
      } else {
        unsigned* peer_base = p.ready - rank;
        spin_copy<<<blocks, 512, 0, s>>>(pc, at(flags, 2560 + p.rank), at(flags, 2048 + p.rank), 0,
                                          at(peer_base, 1536 + rank), counters + 1);
      }
      if (cudaGetLastError() != cudaSuccess) return "receive kernel";
    }
    return "";
  };
  auto real_round = [&](std::size_t bytes) -> std::string {
    if (protocol != "engine") return kernel_round(bytes);
    auto bad_cu = [](CUresult e) { return e != CUDA_SUCCESS; };
    auto bad_rt = [](cudaError_t e) { return e != cudaSuccess; };
    for (Peer& p : peers) {
      if (bad_cu(cuStreamWaitValue32(s, CUdeviceptr(p.free), 1, CU_STREAM_WAIT_VALUE_EQ))) return "wait free";
      if (bad_cu(cuStreamWriteValue32(s, CUdeviceptr(p.free), 0, 0))) return "reset free";
      if (bad_rt(cudaMemcpyAsync(p.staging, src, bytes, cudaMemcpyDeviceToDevice, s))) return "copy to peer";
      if (bad_cu(cuStreamWriteValue32(s, CUdeviceptr(p.ready), 1, 0))) return "set peer ready";
    }
    for (std::size_t k = 0; k < peers.size(); ++k) {
      Peer& p = peers[k];
      if (bad_cu(cuStreamWaitValue32(s, CUdeviceptr(p.my_ready), 1, CU_STREAM_WAIT_VALUE_EQ))) return "wait ready";
      if (bad_cu(cuStreamWriteValue32(s, CUdeviceptr(p.my_ready), 0, 0))) return "reset ready";
      if (bad_rt(cudaMemcpyAsync(dst[k], staging + kSlot * p.rank, bytes, cudaMemcpyDeviceToDevice, s))) return "copy out";
      if (bad_cu(cuStreamWriteValue32(s, CUdeviceptr(p.peer_free), 1, 0))) return "set peer free";
    }
    return "";
  };
  auto must = [](const std::string& e) {
    if (!e.empty()) die("round", e.c_str());
  };

  std::string rows;
  const std::size_t sizes[] = {4096, 1 << 20, 4 << 20, 16 << 20, 64 << 20};
  unsigned seed = 1;
  for (std::size_t bytes : sizes) {
    const int reps = bytes <= (1 << 20) ? 200 : 50;
    // Checked rounds (direct or replayed): the sender's pattern depends on the round and the
    // sender; returns the bytes' mismatches.
    auto checked = [&](const std::function<void()>& one_round) {
      unsigned errors = 0;
      for (int it = 0; it < 3; ++it, ++seed) {
        fill<<<264, 256, 0, s>>>(reinterpret_cast<unsigned*>(src), bytes / 4, seed * 97 + unsigned(rank));
        one_round();
        cudaMemsetAsync(bad, 0, 4, s);
        for (std::size_t k = 0; k < peers.size(); ++k)
          check<<<264, 256, 0, s>>>(reinterpret_cast<unsigned*>(dst[k]), bytes / 4, seed * 97 + unsigned(peers[k].rank), bad);
        unsigned b = 0;
        cudaMemcpyAsync(&b, bad, 4, cudaMemcpyDeviceToHost, s);
        ck(cudaStreamSynchronize(s), "checked round");
        errors += b;
      }
      return errors;
    };
    const unsigned errors = checked([&] { must(real_round(bytes)); });
    MPI_Barrier(MPI_COMM_WORLD);
    cudaEventRecord(e0, s);
    for (int it = 0; it < reps; ++it) must(real_round(bytes));
    cudaEventRecord(e1, s);
    ck(cudaStreamSynchronize(s), "timed rounds");
    float ms = 0;
    cudaEventElapsedTime(&ms, e0, e1);
    const double us = 1e3 * ms / reps;
    // Graph: one round captured, replayed.
    double g_us = -1;
    std::string g_err;
    cudaGraph_t g = nullptr;
    cudaGraphExec_t ge = nullptr;
    MPI_Barrier(MPI_COMM_WORLD);
    if (cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal) == cudaSuccess) {
      g_err = real_round(bytes);
      cudaError_t ce = cudaStreamEndCapture(s, &g);
      if (ce == cudaSuccess && g_err.empty()) ce = cudaGraphInstantiate(&ge, g, 0);
      if (ce != cudaSuccess) g_err += std::string(g_err.empty() ? "" : "; ") + cudaGetErrorString(ce);
    }
    int ok = ge != nullptr, all_ok = 0;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    unsigned g_errors = 0;
    if (all_ok) {
      g_errors = checked([&] { ck(cudaGraphLaunch(ge, s), "graph launch"); });
      MPI_Barrier(MPI_COMM_WORLD);
      cudaEventRecord(e0, s);
      for (int it = 0; it < reps; ++it) cudaGraphLaunch(ge, s);
      cudaEventRecord(e1, s);
      ck(cudaStreamSynchronize(s), "graph rounds");
      cudaEventElapsedTime(&ms, e0, e1);
      g_us = 1e3 * ms / reps;
    }
    cudaGetLastError();
    if (rank == 0) {
      std::printf("%10zu B: round %9.2f us, %7.1f GB/s each way per peer, errors %u; graph %s %9.2f us, errors %u\n",
                  bytes, us, bytes / us * 1e-3, errors, all_ok ? "ok" : ("failed (" + g_err + ")").c_str(), g_us,
                  g_errors);
      char row[400];
      std::snprintf(row, sizeof row,
                    "%s{\"bytes\": %zu, \"round_us\": %.3f, \"GBps_per_peer\": %.2f, \"errors\": %u, \"graph\": %s, "
                    "\"graph_round_us\": %.3f, \"graph_errors\": %u}",
                    rows.empty() ? "" : ", ", bytes, us, bytes / us * 1e-3, errors, all_ok ? "true" : "false", g_us,
                    g_errors);
      rows += row;
    }
  }
  double mine_t[5] = {t_ctx, t_export, t_open, t_ready, double(mem_ops)}, max_t[5];
  MPI_Reduce(mine_t, max_t, 5, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    std::printf("protocol %s, %d blocks of 512\n", protocol.c_str(), blocks);
    std::printf("ranks %d: context %.3f s, alloc+export+allgather %.3f s, open %.3f s, main->ready %.3f s (max over ranks); "
                "64-bit mem ops attr %d\n",
                size, max_t[0], max_t[1], max_t[2], max_t[3], int(max_t[4]));
    if (!json.empty()) {
      FILE* f = std::fopen(json.c_str(), "w");
      std::fprintf(f,
                   "{\"protocol\": \"%s\", \"blocks\": %d, \"ranks\": %d, \"context_s\": %.4f, \"export_s\": %.4f, \"open_s\": %.4f, \"ready_s\": %.4f, "
                   "\"rounds\": [%s]}\n",
                   protocol.c_str(), blocks, size, max_t[0], max_t[1], max_t[2], max_t[3], rows.c_str());
      std::fclose(f);
    }
  }
  MPI_Finalize();
  return 0;
}

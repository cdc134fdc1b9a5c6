// The device transport on its own (CUDA IPC between the GPUs of one host, NCCL otherwise, or
// as STRATA_GPU_TRANSPORT says): legs of every shape between every pair of ranks arrive byte
// for byte, group after group, run directly and replayed from a CUDA graph. CTest runs it
// with the default (IPC on one host), with STRATA_GPU_TRANSPORT=nccl, and with 4 KiB staging
// slots (STRATA_IPC_SLOT_KB=4), where most messages take several rounds.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "base/device_array.hpp"
#include "base/runtime.hpp"
#include "common/process_grids.hpp"
#include "parallel/transport.hpp"
#include "strata/dist.hpp"

namespace strata {
namespace {

using dist::Job;
namespace transport = dist::transport;

// Every byte depends on sender, receiver, message, group and its own index (a message put
// at the wrong offset, even a multiple of the slots' 256-byte alignment, does not match).
unsigned char expected(int from, int to, int message, int group, std::size_t i) {
  std::uint32_t x = std::uint32_t(i) * 2654435761u ^
                    std::uint32_t(from * 7919 + to * 104729 + message * 31 + group * 1009);
  x ^= x >> 15;
  x *= 2246822519u;
  x ^= x >> 13;
  return static_cast<unsigned char>(x);
}

// One group's legs: to every other rank, messages of these sizes both ways (the same list on
// both sides, so the k-th sent is the k-th received), then one more around the ring (sent to
// the next rank, received from the previous: one-sided legs; two ranks make it a second
// message to the same peer).
constexpr std::size_t kSizes[] = {1, 3, 256, 257, 4097, 70001, 300001};

struct Messages {
  std::vector<transport::Leg> legs;
  std::vector<DeviceArray<char>> send, recv;
  struct Want {
    int from, message;
    std::size_t bytes;
  };
  std::vector<Want> want;                 // per recv buffer
  std::vector<std::pair<int, int>> sent;  // per send buffer: (to, message)
};

Messages make_messages() {
  const Job& job = Job::get();
  const int me = job.rank(), n = job.size();
  Messages m;
  int message = 0;
  auto add = [&](int to, int from, std::size_t bytes, int id) {
    m.send.emplace_back(bytes);
    m.recv.emplace_back(bytes);
    m.legs.push_back({to, from, m.send.back().get(), m.recv.back().get(), bytes, id});
    m.sent.push_back({to, id});
    m.want.push_back({from, id, bytes});
  };
  for (int r = 0; r < n; ++r) {
    if (r == me) continue;
    message = 0;
    for (std::size_t bytes : kSizes) add(r, r, bytes, message++);
  }
  add((me + 1) % n, (me + n - 1) % n, 12345, 99);
  return m;
}

void fill_sends(Messages& m, int group) {
  const int me = Job::get().rank();
  for (std::size_t k = 0; k < m.legs.size(); ++k) {
    if (m.sent[k].first < 0) continue;
    std::vector<unsigned char> host(m.legs[k].bytes);
    for (std::size_t i = 0; i < host.size(); ++i)
      host[i] = expected(me, m.sent[k].first, m.sent[k].second, group, i);
    runtime::copy_bytes(m.send[k].get(), Memory::device, host.data(), Memory::host, host.size());
    // Garbage where the message goes: a message that does not arrive is seen.
    std::vector<unsigned char> junk(m.legs[k].bytes, 0xA5);
    if (m.want[k].from >= 0)
      runtime::copy_bytes(m.recv[k].get(), Memory::device, junk.data(), Memory::host, junk.size());
  }
}

std::size_t count_bad(const Messages& m, int group, std::string& first) {
  const int me = Job::get().rank();
  std::size_t bad = 0;
  for (std::size_t k = 0; k < m.legs.size(); ++k) {
    const Messages::Want& w = m.want[k];
    if (w.from < 0) continue;
    std::vector<unsigned char> host(w.bytes);
    runtime::copy_bytes(host.data(), Memory::host, m.recv[k].get(), Memory::device, w.bytes);
    for (std::size_t i = 0; i < host.size(); ++i)
      if (host[i] != expected(w.from, me, w.message, group, i)) {
        if (!bad++)
          first = "rank " + std::to_string(me) + ": message " + std::to_string(w.message) +
                  " from rank " + std::to_string(w.from) + " (" + std::to_string(w.bytes) +
                  " bytes), byte " + std::to_string(i) + ", group " + std::to_string(group);
      }
  }
  return bad;
}

TEST(DistTransport, EveryLegArrivesGpu) {
  REQUIRE_GPU_PER_RANK();
  const Job& job = Job::get();
  if (job.size() == 1) GTEST_SKIP() << "one rank: nothing travels between GPUs";
  // Chooses and readies the transport (collective); a real exchange names its neighbours.
  transport::prepare_device({}, {});
  const char* want = std::getenv("STRATA_GPU_TRANSPORT");
  const std::string chosen = dist::transports().gpu;
  if (want && std::string(want) == "nccl")
    EXPECT_NE(chosen.find("NCCL"), std::string::npos) << chosen;
  else  // CTest's ranks share one host: automatic takes CUDA IPC there
    EXPECT_NE(chosen.find("CUDA IPC"), std::string::npos) << chosen;

  Messages m = make_messages();
  void* stream = runtime::stream_create();
  // Directly, several groups in a row (each reuses the slots the last one freed).
  for (int group = 0; group < 3; ++group) {
    fill_sends(m, group);
    job.barrier();  // no rank's new messages before every rank's garbage is in place
    transport::exchange_device(m.legs, stream);
    runtime::stream_synchronize(stream);
    std::string first;
    EXPECT_EQ(count_bad(m, group, first), 0u) << first;
  }
  // Captured once, replayed (the multigrid cycle's graphs hold their exchanges).
  void* graph = runtime::graph_capture(stream, [&] { transport::exchange_device(m.legs, stream); });
  for (int group = 3; group < 6; ++group) {
    fill_sends(m, group);
    job.barrier();
    runtime::graph_launch(graph, stream);
    runtime::stream_synchronize(stream);
    std::string first;
    EXPECT_EQ(count_bad(m, group, first), 0u) << first << " (graph replay)";
  }
  runtime::graph_destroy(graph);
  runtime::stream_destroy(stream);
  job.barrier();
}

}  // namespace
}  // namespace strata

// Checkpoint and restart on the CPU: an interrupted run continued from its checkpoint is
// bitwise identical to the uninterrupted run (state, CPML memory and traces), through the
// Solver API and through `strata wave`'s run driver and its files; a checkpoint of another
// configuration is refused before anything is written.
#include <sys/resource.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>

#include "common/process.hpp"
#include "common/wave_cases.hpp"

using namespace strata;

namespace {

// f32 (so nothing hides behind double's headroom), CPML on five faces, free top, two
// sources, a line of receivers sampled every 2 steps.
wave::Config restart_case() {
  wave::Config c = test::wave_config({36, 30, 34}, 8, Precision::f32, "cpu");
  for (auto& f : c.faces) f = wave::FaceKind::pml;
  c.faces[wave::zmin] = wave::FaceKind::free;
  c.pml_width = 8;
  c.model = wave::ModelKind::layered;
  c.layers = {{0.0, 1.0}, {15.0, 1.3}};
  c.sources = {{{18.2, 15.1, 10.7}, 0.09, 1.0, std::nullopt}, {{14.0, 12.5, 20.5}, 0.07, -0.5, 5.0}};
  c.receiver_lines = {{{9.5, 15.0, 3.5}, {27.5, 15.0, 3.5}, 10}};
  c.receiver_every = 2;
  c.steps = 60;
  return c;
}

std::string bytes_of(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

template <class V>
bool same_bits(const V& a, const V& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(a[0])) == 0;
}

void put_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

// Rewrites a checkpoint's JSON header text as a person with an editor would, keeping the
// binary framing consistent (length field, padding to 64 bytes) so that only the edit differs.
// Works on format 1 (24-byte preamble) and 2 (32 bytes, with the digest).
void edit_header(const std::string& path, const std::function<void(std::string&)>& edit) {
  const std::string bytes = bytes_of(path);
  std::uint32_t version = 0;
  std::uint64_t len = 0;
  std::memcpy(&version, bytes.data() + 8, 4);
  std::memcpy(&len, bytes.data() + 16, 8);
  const std::size_t pre = version == 1 ? 24 : 32, start = (pre + len + 63) / 64 * 64;
  std::string header = bytes.substr(pre, len);
  edit(header);
  std::string out = bytes.substr(0, pre);
  const std::uint64_t new_len = header.size();
  std::memcpy(out.data() + 16, &new_len, 8);
  out += header;
  out.append((64 - out.size() % 64) % 64, '\0');
  out += bytes.substr(start);
  put_bytes(path, out);
}

void replace_once(std::string& s, const std::string& from, const std::string& to) {
  const auto at = s.find(from);
  ASSERT_NE(at, std::string::npos) << from << " is not in the header";
  s.replace(at, from.size(), to);
}

// Writes the checkpoint of restart_case() at `step` to `path`.
void checkpoint_at(int step, const std::string& path) {
  wave::Solver s(restart_case());
  s.advance(step);
  s.save_checkpoint(path);
}

// The message load_checkpoint refuses `path` with ("" when it is accepted).
std::string refusal(const wave::Config& c, const std::string& path) {
  wave::Solver s(c);
  try {
    s.load_checkpoint(path);
  } catch (const Error& e) {
    return e.what();
  } catch (const std::exception& e) {
    return std::string("not a strata::Error: ") + e.what();
  }
  return "";
}

}  // namespace

TEST(WaveRestart, SolverCheckpointContinuesBitIdentically) {
  const wave::Config c = restart_case();
  test::TempDir dir("wave-restart");
  wave::Solver whole(c);
  whole.advance(60);

  wave::Solver first(c);
  first.advance(25);
  first.save_checkpoint(dir / "ck.strata");
  wave::Solver resumed(c);
  resumed.load_checkpoint(dir / "ck.strata");
  EXPECT_EQ(resumed.step(), 25);
  resumed.advance(35);

  EXPECT_TRUE(same_bits(whole.wavefield(), resumed.wavefield())) << "wavefield differs";
  EXPECT_TRUE(same_bits(whole.traces(), resumed.traces())) << "traces differ";
  EXPECT_EQ(whole.trace_rows_recorded(), 31);
}

TEST(WaveRestart, RunDriverRestartWritesIdenticalFiles) {
  test::TempDir dir("wave-restart-run");
  wave::Config c = restart_case();
  c.snapshot_every = 30;
  c.snapshot_vti = c.snapshot_png = false;
  c.out_dir = dir / "whole";
  wave::run(c);

  wave::Config part = c;  // interrupted after its checkpoint at step 20
  part.out_dir = dir / "part";
  part.steps = 20;
  part.checkpoint_every = 20;
  wave::run(part);
  ASSERT_TRUE(std::filesystem::exists(dir / "part/checkpoint.strata"));

  wave::Config more = c;  // continued to the same end, in the same directory
  more.out_dir = dir / "part";
  wave::RunOptions resume;
  resume.restart = dir / "part/checkpoint.strata";
  const wave::Report r = wave::run(more, resume);
  EXPECT_EQ(r.first_step, 20);
  EXPECT_EQ(r.steps_run, 40);

  for (const char* f : {"seismogram.npy", "snapshots/u_000060.npy", "snapshots/u_000030.npy", "receivers.npy"}) {
    const std::string a = bytes_of(dir / (std::string("whole/") + f)), b = bytes_of(dir / (std::string("part/") + f));
    EXPECT_FALSE(a.empty()) << f;
    EXPECT_EQ(a, b) << f << " differs after the restart";
  }
}

TEST(WaveRestart, CheckpointOfAnotherConfigurationIsRefused) {
  test::TempDir dir("wave-restart-bad");
  wave::Config c = restart_case();
  checkpoint_at(10, dir / "ck.strata");
  wave::Config other = c;
  other.layers[1].velocity = 1.31;
  other.out_dir = dir / "out";
  wave::RunOptions opt;
  opt.restart = dir / "ck.strata";
  try {
    wave::run(other, opt);
    FAIL() << "a checkpoint of another model was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("different configuration"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("model"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(std::filesystem::exists(dir / "out")) << "a refused restart wrote output";

  // Steps, outputs and device are not part of the digest: a longer run may continue it.
  wave::Config longer = c;
  longer.steps = 80;
  longer.snapshot_every = 7;
  wave::Solver s(longer);
  EXPECT_NO_THROW(s.load_checkpoint(dir / "ck.strata"));
  EXPECT_EQ(s.step(), 10);

  // A truncated checkpoint is refused with a reason.
  std::filesystem::resize_file(dir / "ck.strata", std::filesystem::file_size(dir / "ck.strata") - 16);
  EXPECT_THROW(s.load_checkpoint(dir / "ck.strata"), Error);
}

// The digest covers the header: an edited step, swapped array names or a changed count are
// refused, not run from the wrong state (an edited "step" used to restart from "step 26"
// with the state of step 25).
TEST(WaveRestart, EditedHeaderIsRefused) {
  test::TempDir dir("wave-restart-edit");
  const wave::Config c = restart_case();
  const std::string good = dir / "good.strata", ck = dir / "ck.strata";
  checkpoint_at(25, good);
  ASSERT_EQ(refusal(c, good), "");
  const struct {
    const char* what;
    std::function<void(std::string&)> edit;
    const char* needle;
  } cases[] = {
      {"step 25 -> 24 (the same trace rows)", [](std::string& h) { replace_once(h, "\"step\":25", "\"step\":24"); }, "digest"},
      {"u <-> u_prev",
       [](std::string& h) {
         replace_once(h, "\"name\":\"u\",", "\"name\":\"@\",");
         replace_once(h, "\"name\":\"u_prev\",", "\"name\":\"u\",");
         replace_once(h, "\"name\":\"@\",", "\"name\":\"u_prev\",");
       },
       "digest"},
      {"psi_xmin <-> psi_xmax",
       [](std::string& h) {
         replace_once(h, "psi_xmin", "psi_@@@@");
         replace_once(h, "psi_xmax", "psi_xmin");
         replace_once(h, "psi_@@@@", "psi_xmax");
       },
       "digest"},
      {"step -1", [](std::string& h) { replace_once(h, "\"step\":25", "\"step\":-1"); }, "'step' is -1"},
      {"an unknown array", [](std::string& h) { replace_once(h, "zeta_xmin", "zeta_xmix"); }, "'zeta_xmix'"},
      {"a repeated key", [](std::string& h) { replace_once(h, "\"step\":25", "\"step\":25,\"step\":25"); },
       "appears twice"},
  };
  for (const auto& k : cases) {
    std::filesystem::copy_file(good, ck, std::filesystem::copy_options::overwrite_existing);
    edit_header(ck, k.edit);
    const std::string m = refusal(c, ck);
    EXPECT_NE(m.find(k.needle), std::string::npos) << k.what << " gave: " << (m.empty() ? "(accepted)" : m);
    EXPECT_EQ(m.find("internal"), std::string::npos) << k.what << ": " << m;
  }
}

// Array sizes are checked against the file before anything is allocated: a count of 2^40
// ended in std::bad_alloc, one of 1.5e9 zero-filled 6 GB before noticing the file's size.
// The load runs in a child whose address space is capped 1 GiB above its current size, so
// an allocation of the claimed size fails there instead of succeeding slowly.
TEST(WaveRestart, ImplausibleCountIsRefusedBeforeAllocating) {
  test::TempDir dir("wave-restart-count");
  const wave::Config c = restart_case();
  const std::string good = dir / "good.strata", ck = dir / "ck.strata";
  checkpoint_at(10, good);
  const std::string u_count = "\"count\":" + std::to_string(c.shape.points()) + ",";
  for (const char* count : {"1500000000", "1099511627776"}) {
    std::filesystem::copy_file(good, ck, std::filesystem::copy_options::overwrite_existing);
    edit_header(ck, [&](std::string& h) { replace_once(h, u_count, std::string("\"count\":") + count + ","); });
    wave::Solver s(c);  // built before the cap: its own allocations are not what is tested
    const auto t0 = std::chrono::steady_clock::now();
    const std::string m = test::in_child([&] {
      std::ifstream statm("/proc/self/statm");
      std::uint64_t pages = 0;
      statm >> pages;
      const rlim_t cap = rlim_t(pages) * rlim_t(::sysconf(_SC_PAGESIZE)) + (rlim_t(1) << 30);
      const rlimit lim{cap, cap};
      ::setrlimit(RLIMIT_AS, &lim);
      try {
        s.load_checkpoint(ck);
      } catch (const Error& e) {
        return std::string(e.what());
      } catch (const std::exception& e) {
        return std::string("not a strata::Error: ") + e.what();
      }
      return std::string("(accepted)");
    });
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    EXPECT_NE(m.find("does not fit the file"), std::string::npos) << "count " << count << " gave: " << m;
    EXPECT_LT(secs, 5.0) << "count " << count;
  }
}

// A checkpoint of the first format, whose digest did not cover its header, is refused with
// the reason and what to do.
TEST(WaveRestart, FormatVersionOneIsRefused) {
  test::TempDir dir("wave-restart-v1");
  const wave::Config c = restart_case();
  const std::string ck = dir / "ck.strata";
  checkpoint_at(4, ck);
  std::string bytes = bytes_of(ck);
  bytes[8] = 1;
  put_bytes(ck, bytes);
  const std::string m = refusal(c, ck);
  EXPECT_NE(m.find("version 1"), std::string::npos) << m;
  EXPECT_NE(m.find("not covered by its digest"), std::string::npos) << m;
}

// The last step is checkpointed even when time.steps is not a multiple of
// checkpoint_every, so a finished run can be extended without recomputing it.
TEST(WaveRestart, FinalStepIsCheckpointed) {
  test::TempDir dir("wave-restart-final");
  wave::Config c = restart_case();
  c.steps = 25;
  c.checkpoint_every = 10;
  c.out_dir = dir / "out";
  wave::run(c);
  wave::Config longer = c;
  longer.steps = 40;
  wave::Solver s(longer);
  s.load_checkpoint(dir / "out/checkpoint.strata");
  EXPECT_EQ(s.step(), 25) << "the checkpoint is not of the last step";
}

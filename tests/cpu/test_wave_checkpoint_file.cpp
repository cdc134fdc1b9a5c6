// The wave checkpoint file as written: to a file the arrays are read once and the digest is
// put into the preamble last; through a stream (a FIFO) they are read twice, the digest
// first. Both ways give the same bytes, and the file reads back (its digest checked).
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstddef>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "common/scratch_dir.hpp"
#include "solvers/wave/checkpoint.hpp"

namespace {

using strata::wave::ArraySource;
using strata::wave::ArraySpec;
using strata::wave::Checkpoint;

class WaveCheckpointFile : public strata::test::ScratchDirTest {
 protected:
  WaveCheckpointFile() : ScratchDirTest("strata_ckpt") {}
  static std::string slurp(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), {}};
  }
};

// Two arrays of odd lengths (the digest's 8-byte words end part-way), with reads counted.
struct Counted {
  std::vector<double> u, psi;
  int reads = 0;
  Counted() : u(1001), psi(37) {
    for (std::size_t i = 0; i < u.size(); ++i) u[i] = 0.5 * double(i) - 3.0;
    for (std::size_t i = 0; i < psi.size(); ++i) psi[i] = -1.0 / double(i + 1);
  }
  std::vector<ArraySource<double>> sources() {
    auto from = [this](const std::vector<double>& a) {
      return [this, &a](std::size_t first, std::size_t n, double* dst) {
        ++reads;
        std::copy_n(a.data() + first, n, dst);
      };
    };
    return {{"u", u.size(), 7, from(u)}, {"psi_xmin", psi.size(), 1, from(psi)}};
  }
};

Checkpoint<double> header_of() {
  Checkpoint<double> c;
  c.step = 12;
  c.trace_rows = 3;
  c.digest = "0123456789abcdef";
  c.config_json = R"({"grid": {"shape": [7, 11, 13]}})";
  return c;
}

TEST_F(WaveCheckpointFile, AFileIsReadOnceAStreamTwiceWithTheSameBytes) {
  const Checkpoint<double> c = header_of();

  Counted to_file;
  const std::string path = file("checkpoint.strata");
  strata::wave::write_checkpoint(path, c, to_file.sources());
  EXPECT_EQ(to_file.reads, 2) << "a file's arrays are read once (one piece each)";

  const std::string fifo = file("pipe");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::string through;
  std::thread reader([&] { through = slurp(fifo); });
  Counted to_stream;
  try {
    strata::wave::write_checkpoint(fifo, c, to_stream.sources());
  } catch (const std::exception& e) {
    // The reader waits in open() for a writer: give it one that closes at once, so that a
    // failing write ends the test instead of hanging it.
    if (const int fd = ::open(fifo.c_str(), O_WRONLY | O_NONBLOCK); fd >= 0) ::close(fd);
    reader.join();
    FAIL() << "writing through the FIFO: " << e.what();
  }
  reader.join();
  EXPECT_EQ(to_stream.reads, 4) << "a stream's arrays are read for the digest, then to write";

  const std::string written = slurp(path);
  ASSERT_GT(written.size(), std::size_t(64));
  EXPECT_EQ(written, through) << "the file and the stream differ";

  // It reads back: the digest in the preamble covers the header and the data.
  const Checkpoint<double> back =
      strata::wave::read_checkpoint<double>(path, [&](const Checkpoint<double>& h) {
        EXPECT_EQ(h.step, 12);
        return std::vector<ArraySpec>{{"u", to_file.u.size()}, {"psi_xmin", to_file.psi.size()}};
      });
  ASSERT_EQ(back.arrays.size(), 2u);
  EXPECT_EQ(back.arrays[0].data, to_file.u);
  EXPECT_EQ(back.arrays[1].data, to_file.psi);
}

// The digest put in last is the one the reader checks: a changed value is refused.
TEST_F(WaveCheckpointFile, AChangedValueIsRefusedByTheDigestWrittenLast) {
  Counted arrays;
  const std::string path = file("checkpoint.strata");
  strata::wave::write_checkpoint(path, header_of(), arrays.sources());
  std::string bytes = slurp(path);
  bytes[bytes.size() - 3] ^= 0x10;  // in psi's last value
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
  try {
    strata::wave::read_checkpoint<double>(path, [&](const Checkpoint<double>&) {
      return std::vector<ArraySpec>{{"u", arrays.u.size()}, {"psi_xmin", arrays.psi.size()}};
    });
    ADD_FAILURE() << "a checkpoint with a changed value was read";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("digest"), std::string::npos) << e.what();
  }
}

// A read that fails part-way (a GPU error while the state comes down) leaves the checkpoint
// that was there, byte for byte, and no temporary beside it.
TEST_F(WaveCheckpointFile, AFailedWriteLeavesTheOldCheckpoint) {
  Counted arrays;
  const std::string path = file("checkpoint.strata");
  strata::wave::write_checkpoint(path, header_of(), arrays.sources());
  const std::string before = slurp(path);
  Counted other;
  other.u[17] = 123.0;
  std::vector<ArraySource<double>> failing = other.sources();
  failing[1].read = [](std::size_t, std::size_t, double*) {
    throw std::runtime_error("injected read failure");
  };
  Checkpoint<double> later = header_of();
  later.step = 13;
  try {
    strata::wave::write_checkpoint(path, later, failing);
    ADD_FAILURE() << "the failing write did not throw";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "injected read failure");
  }
  EXPECT_EQ(slurp(path), before) << "the old checkpoint was changed";
  EXPECT_EQ(listing(), std::vector<std::string>{"checkpoint.strata"}) << "a temporary was left";
}

}  // namespace

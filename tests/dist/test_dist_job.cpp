// The job's text gather (what `strata wave --shots` collects its shots' results with): every
// rank's text reaches the root whole and in rank order, empty texts and texts of different
// lengths included; the other ranks get nothing.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "strata/dist.hpp"

namespace strata {
namespace {

using dist::Job;

// Rank r's text: r copies of a character that depends on r, and a NUL inside (texts are bytes).
std::string text_of(int r) { return std::string(std::size_t(r) * 3, char('a' + r % 26)) + std::string(1, '\0') + "#" + std::to_string(r); }

TEST(DistJob, GatherTextInRankOrderAtEachRoot) {
  const Job& job = Job::get();
  for (int root = 0; root < job.size(); ++root) {
    const std::vector<std::string> all = job.gather_text(text_of(job.rank()), root);
    if (job.rank() != root) {
      EXPECT_TRUE(all.empty()) << "rank " << job.rank() << " is not the root " << root;
      continue;
    }
    ASSERT_EQ(all.size(), std::size_t(job.size()));
    for (int r = 0; r < job.size(); ++r) EXPECT_EQ(all[std::size_t(r)], text_of(r)) << "rank " << r << ", root " << root;
  }
}

TEST(DistJob, GatherTextOfEmptyTexts) {
  const Job& job = Job::get();
  const std::vector<std::string> all = job.gather_text(job.rank() % 2 ? "odd" : "");
  if (!job.root()) return;
  ASSERT_EQ(all.size(), std::size_t(job.size()));
  for (int r = 0; r < job.size(); ++r) EXPECT_EQ(all[std::size_t(r)], r % 2 ? "odd" : "");
}

// Job::start narrows CUDA_VISIBLE_DEVICES to this rank's GPU before anything starts CUDA.
// CTest's dist.gpu_visibility runs this with a list of made-up GPU names (nothing here
// starts CUDA) in CUDA_VISIBLE_DEVICES and the same list in STRATA_TEST_GPU_LIST: local rank
// l keeps entry l alone; a rank beyond the list leaves it as it was, so that every rank of
// an over-full host sees the same GPUs and bind_gpu refuses them alike.
TEST(DistJob, StartNarrowsTheVisibleGpusToTheRanksOwn) {
  const char* list = std::getenv("STRATA_TEST_GPU_LIST");
  if (!list) GTEST_SKIP() << "run by CTest's dist.gpu_visibility, which sets STRATA_TEST_GPU_LIST";
  std::vector<std::string> entries;
  std::string item;
  for (const char* c = list;; ++c) {
    if (*c == ',' || *c == '\0') {
      entries.push_back(item);
      item.clear();
      if (*c == '\0') break;
    } else {
      item += *c;
    }
  }
  const Job& job = Job::get();
  const char* now = std::getenv("CUDA_VISIBLE_DEVICES");
  ASSERT_NE(now, nullptr);
  if (job.local_rank() < int(entries.size())) {
    EXPECT_EQ(std::string(now), entries[std::size_t(job.local_rank())]) << "local rank " << job.local_rank();
    EXPECT_EQ(job.gpu_visibility(),
              "CUDA_VISIBLE_DEVICES=" + entries[std::size_t(job.local_rank())] + " (was " + list + ")");
  } else {
    EXPECT_EQ(std::string(now), std::string(list)) << "local rank " << job.local_rank() << " has no GPU of its own";
    EXPECT_EQ(job.gpu_visibility(), "");
  }
}

}  // namespace
}  // namespace strata

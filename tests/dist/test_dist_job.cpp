// The job's text gather (what `strata wave --shots` collects its shots' results with): every
// rank's text reaches the root whole and in rank order, empty texts and texts of different
// lengths included; the other ranks get nothing.
#include <gtest/gtest.h>

#include <string>

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

}  // namespace
}  // namespace strata

// The main of the distributed test executables: every rank of an mpirun runs every test;
// the run fails on every rank when a test failed on any.
#include <gtest/gtest.h>

#include "strata/dist.hpp"

// MPI starts before the tests and ends after them; every rank runs every test.
int main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  strata::dist::Job::start(argc, argv);
  const int rc = RUN_ALL_TESTS();
  auto& job = strata::dist::Job::get();
  const bool failed_anywhere = job.first_failed(rc != 0) >= 0;
  job.finish();
  return failed_anywhere ? 1 : 0;
}

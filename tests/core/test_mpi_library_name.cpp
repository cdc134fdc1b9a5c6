// The MPI library's name as `strata info` shows it, from MPI_Get_library_version's text as
// the common libraries write it: one line, no tabs, no "Version:".
#include <gtest/gtest.h>

#include "parallel/launcher.hpp"

using strata::dist::library_name;

TEST(MpiLibraryName, TheCommonLibrariesTextsBecomeOneShortLine) {
  EXPECT_EQ(library_name("Open MPI v4.1.6, package: Debian OpenMPI, ident: 4.1.6, repo rev: "
                         "v4.1.6, Sep 30, 2023\n"),
            "Open MPI v4.1.6");
  EXPECT_EQ(
      library_name("MPICH Version:\t4.0.2\nMPICH Release date:\tThu Apr  7 12:34:45 CDT 2022\n"),
      "MPICH 4.0.2");
  EXPECT_EQ(library_name("Intel(R) MPI Library 2021.10 for Linux* OS\n"),
            "Intel(R) MPI Library 2021.10 for Linux* OS");
  EXPECT_EQ(library_name("MVAPICH2 Version      :\t2.3.7\nMVAPICH2 Release date :\tWed March 02 "
                         "22:00:00 EST 2022\n"),
            "MVAPICH2 Version : 2.3.7");
  EXPECT_EQ(library_name("  \t\n"), "");
  EXPECT_EQ(library_name(""), "");
}

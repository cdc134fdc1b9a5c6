// Whether an MPI launcher started this process (mpirun, mpiexec, srun with PMI/PMIx): the
// variables the common launchers set for every rank. Shared by both Job implementations.
#pragma once

#include <cstdlib>
#include <initializer_list>

namespace strata::dist::detail {

inline bool launched_by_mpi() {
  for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "PMI_RANK", "MPI_LOCALNRANKS"})
    if (std::getenv(v)) return true;
  return false;
}

}  // namespace strata::dist::detail

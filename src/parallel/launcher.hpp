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

// This process's rank among those of the job on its host, as the launcher tells it before
// MPI starts (Open MPI, MPICH/Hydra, Slurm, Cray PALS); -1 when none says.
inline int launcher_local_rank() {
  for (const char* v : {"OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID", "SLURM_LOCALID", "PALS_LOCAL_RANKID"})
    if (const char* text = std::getenv(v)) {
      char* end = nullptr;
      const long r = std::strtol(text, &end, 10);
      if (end != text && *end == '\0' && r >= 0 && r < 1 << 20) return int(r);
    }
  return -1;
}

}  // namespace strata::dist::detail

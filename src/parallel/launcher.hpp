// Whether an MPI launcher started this process (mpirun, mpiexec, srun with PMI/PMIx): the
// variables the common launchers set for every rank. Shared by both Job implementations.
// And the MPI library's name as `strata info` shows it.
#pragma once

#include <cstdlib>
#include <initializer_list>
#include <string>

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

namespace strata::dist {

// The first line of MPI_Get_library_version's text, up to a comma, with "Version:" and runs
// of white space made one space: "Open MPI v4.1.6, package: ..." -> "Open MPI v4.1.6",
// "MPICH Version:\t4.0.2\nMPICH Release date: ..." -> "MPICH 4.0.2".
inline std::string library_name(std::string v) {
  if (const std::size_t end = v.find_first_of(",\n"); end != std::string::npos) v.resize(end);
  if (const std::size_t at = v.find(" Version:"); at != std::string::npos) v.replace(at, 9, " ");
  std::string out;
  for (char c : v) {
    const bool space = c == ' ' || c == '\t' || c == '\r';
    if (!space)
      out += c;
    else if (!out.empty() && out.back() != ' ')
      out += ' ';
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

}  // namespace strata::dist

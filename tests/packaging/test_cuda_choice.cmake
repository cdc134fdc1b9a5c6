# cmake -DSRC=<source dir> -DWORK=<scratch dir> -P test_cuda_choice.cmake
# cmake/StrataCuda.cmake's decision on machines this one is not: nvidia-smi and nvcc are
# stand-ins (a script printing what nvidia-smi prints; a compiler path, or none), so every
# case runs in seconds on any machine, GPU or not.
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")
set(failures 0)

# smi(<name> <exit code> <output>): a stand-in nvidia-smi at ${WORK}/<name>.
function(smi name rc text)
  file(WRITE "${WORK}/${name}" "#!/bin/sh\nprintf '${text}'\nexit ${rc}\n")
  file(CHMOD "${WORK}/${name}" PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE)
endfunction()
smi(hopper 0 "9.0\\n")
smi(mixed 0 "9.0\\n8.0\\n9.0\\n")
smi(blackwell 0 "12.0\\n")
smi(nogpu 6 "No devices were found\\n")
smi(nodriver 18 "Failed to initialize NVML: Driver/library version mismatch\\nNVML library version: 535.104\\n")

set(STRATA_NVIDIA_SMI "${WORK}/hopper")
include("${SRC}/cmake/StrataCuda.cmake")

# expect(<case> MODE <m> SMI <stand-in or ""> NVCC <path or NOTFOUND> [ARCHS <given>]
#        [CUDAARCHS <env>] HAVE <ON|OFF> [USE <architectures used, comma-separated>])
function(expect name)
  cmake_parse_arguments(A "" "MODE;SMI;NVCC;ARCHS;CUDAARCHS;HAVE;USE" "" ${ARGN})
  set(STRATA_CUDA ${A_MODE})
  set(STRATA_NVIDIA_SMI "")
  if(A_SMI)
    set(STRATA_NVIDIA_SMI "${WORK}/${A_SMI}")
  endif()
  set(CMAKE_CUDA_COMPILER "${A_NVCC}")  # defined: check_language keeps it
  if(DEFINED A_ARCHS)
    set(CMAKE_CUDA_ARCHITECTURES "${A_ARCHS}")
  endif()
  set(ENV{CUDAARCHS} "${A_CUDAARCHS}")
  strata_choose_cuda()
  set(bad "")
  if(NOT STRATA_HAVE_CUDA STREQUAL A_HAVE)
    string(APPEND bad " STRATA_HAVE_CUDA=${STRATA_HAVE_CUDA}, expected ${A_HAVE};")
  endif()
  string(REPLACE ";" "," used "${CMAKE_CUDA_ARCHITECTURES}")
  if(DEFINED A_USE AND NOT used STREQUAL A_USE)
    string(APPEND bad " architectures '${CMAKE_CUDA_ARCHITECTURES}', expected '${A_USE}';")
  endif()
  if(NOT DEFINED A_USE AND DEFINED CMAKE_CUDA_ARCHITECTURES)
    string(APPEND bad " CMAKE_CUDA_ARCHITECTURES set to '${CMAKE_CUDA_ARCHITECTURES}';")
  endif()
  if(bad)
    message(SEND_ERROR "case ${name}:${bad}")
  endif()
endfunction()

# No GPU visible: the CPU backend, however nvcc stands, unless CUDA is asked for.
expect(no-smi MODE AUTO SMI "" NVCC /opt/cuda/bin/nvcc HAVE OFF)
expect(no-device MODE AUTO SMI nogpu NVCC /opt/cuda/bin/nvcc HAVE OFF)
expect(no-driver MODE AUTO SMI nodriver NVCC /opt/cuda/bin/nvcc HAVE OFF)
expect(off-with-gpu MODE OFF SMI hopper NVCC /opt/cuda/bin/nvcc HAVE OFF)
# A GPU visible: CUDA for its architecture only (never all/native), each GPU's once.
expect(hopper MODE AUTO SMI hopper NVCC /opt/cuda/bin/nvcc HAVE ON USE 90)
expect(mixed MODE AUTO SMI mixed NVCC /opt/cuda/bin/nvcc HAVE ON USE "90,80")
expect(blackwell MODE AUTO SMI blackwell NVCC /opt/cuda/bin/nvcc HAVE ON USE 120)
expect(gpu-no-nvcc MODE AUTO SMI hopper NVCC NOTFOUND HAVE OFF)
# Asked for: CMAKE_CUDA_ARCHITECTURES, CUDAARCHS or STRATA_CUDA=ON win over what is visible.
expect(given-archs MODE AUTO SMI nogpu NVCC /opt/cuda/bin/nvcc ARCHS 80 HAVE ON USE 80)
expect(given-over-gpu MODE AUTO SMI hopper NVCC /opt/cuda/bin/nvcc ARCHS 86 HAVE ON USE 86)
expect(cudaarchs-env MODE AUTO SMI nogpu NVCC /opt/cuda/bin/nvcc CUDAARCHS 89 HAVE ON)
expect(on-no-gpu MODE ON SMI nogpu NVCC /opt/cuda/bin/nvcc HAVE ON USE 90)
expect(on-blackwell MODE ON SMI blackwell NVCC /opt/cuda/bin/nvcc HAVE ON USE 120)

# The one line a GPU-less build prints says why and how to ask for CUDA; STRATA_CUDA=ON
# without nvcc stops the configure. Both run in a process of their own to read what they print.
foreach(mode AUTO ON)
  file(WRITE "${WORK}/${mode}.cmake"
    "set(STRATA_NVIDIA_SMI \"${WORK}/nogpu\")\nset(STRATA_CUDA ${mode})\n"
    "set(CMAKE_CUDA_COMPILER NOTFOUND)\ninclude(\"${SRC}/cmake/StrataCuda.cmake\")\nstrata_choose_cuda()\n")
  execute_process(COMMAND "${CMAKE_COMMAND}" -P "${WORK}/${mode}.cmake"
                  OUTPUT_VARIABLE out ERROR_VARIABLE out RESULT_VARIABLE rc)
  set(ENV{CUDAARCHS} "")
  if(mode STREQUAL "AUTO")
    string(REGEX MATCHALL "strata:" lines "${out}")
    list(LENGTH lines n)
    if(NOT rc EQUAL 0 OR NOT n EQUAL 1 OR NOT out MATCHES
       "strata: CUDA backend OFF: no GPU visible \\(nvidia-smi: exit 6, No devices were found\\), building the CPU backend only; to build CUDA anyway: -DSTRATA_CUDA=ON \\(pip install \\. -C cmake\\.define\\.STRATA_CUDA=ON\\)")
      message(SEND_ERROR "AUTO without a GPU printed (rc ${rc}):\n${out}")
    endif()
  elseif(rc EQUAL 0 OR NOT out MATCHES "STRATA_CUDA=ON but no CUDA compiler was found")
    message(SEND_ERROR "STRATA_CUDA=ON without nvcc: rc ${rc}:\n${out}")
  endif()
endforeach()

# Whether a build has the CUDA backend, and for which GPUs: decided here only, for the presets,
# tools/build.sh and `pip install .` alike, and said in one line.
#   STRATA_CUDA=OFF   the CPU backend only
#   STRATA_CUDA=ON    CUDA; no nvcc is an error
#   STRATA_CUDA=AUTO  CUDA when nvcc is found and either a GPU is visible (nvidia-smi) or
#                     CMAKE_CUDA_ARCHITECTURES (or the CUDAARCHS environment variable) is
#                     given; otherwise the CPU backend only (nvcc alone does not make a GPU
#                     build: compiling every kernel for no GPU costs a 2-core machine ~20 min)
# Architectures: the given ones, else the visible GPUs' compute capabilities (9.0 -> 90),
# else 90 (Hopper). Never `all` or `native`: one pass for the GPUs that will run it.

# The nvidia-smi that says which GPUs are visible (tests/cmake points it at stand-ins).
find_program(STRATA_NVIDIA_SMI nvidia-smi DOC "nvidia-smi, asked which GPUs this machine has")

# strata_visible_gpu_archs(<out> <why>): the visible GPUs' architectures ("90" or "80;90"),
# empty when nvidia-smi is absent or lists none (then <why> says which).
function(strata_visible_gpu_archs out why)
  set(archs "")
  set(reason "no nvidia-smi")
  if(STRATA_NVIDIA_SMI)
    execute_process(COMMAND "${STRATA_NVIDIA_SMI}" --query-gpu=compute_cap --format=csv,noheader
                    OUTPUT_VARIABLE said ERROR_VARIABLE said RESULT_VARIABLE rc TIMEOUT 30)
    if(rc EQUAL 0)
      string(REGEX MATCHALL "[^\n]+" lines "${said}")
      foreach(line IN LISTS lines)
        string(STRIP "${line}" line)
        if(line MATCHES "^([0-9]+)\\.([0-9])$")  # one GPU a line: 9.0 -> 90, 12.0 -> 120
          list(APPEND archs "${CMAKE_MATCH_1}${CMAKE_MATCH_2}")
        endif()
      endforeach()
      list(REMOVE_DUPLICATES archs)
      set(reason "nvidia-smi lists none")
    else()
      string(REGEX MATCH "[^\n]*" said "${said}")  # its first line says why
      set(reason "nvidia-smi: exit ${rc}, ${said}")
    endif()
  endif()
  set(${out} "${archs}" PARENT_SCOPE)
  set(${why} "${reason}" PARENT_SCOPE)
endfunction()

# strata_choose_cuda(): decides from STRATA_CUDA, CMAKE_CUDA_ARCHITECTURES/CUDAARCHS, the
# visible GPUs and nvcc; prints the one line; sets STRATA_HAVE_CUDA (ON/OFF) and, when ON and
# none were given, CMAKE_CUDA_ARCHITECTURES as a plain variable (so the next configure detects
# again, and a given value is never mistaken for a detected one).
function(strata_choose_cuda)
  set(ask "to build CUDA anyway: -DSTRATA_CUDA=ON (pip install . -C cmake.define.STRATA_CUDA=ON)")
  set(given "")
  if(DEFINED CMAKE_CUDA_ARCHITECTURES)
    set(given "${CMAKE_CUDA_ARCHITECTURES}")
    set(source "CMAKE_CUDA_ARCHITECTURES")
  elseif(NOT "$ENV{CUDAARCHS}" STREQUAL "")
    set(given "$ENV{CUDAARCHS}")
    set(source "CUDAARCHS")
  endif()
  set(on OFF)
  if(STRATA_CUDA STREQUAL "OFF")
    set(line "CUDA backend OFF (STRATA_CUDA=OFF): the CPU backend only")
  else()
    strata_visible_gpu_archs(gpus why)
    if(STRATA_CUDA STREQUAL "AUTO" AND NOT given AND NOT gpus)
      set(line "CUDA backend OFF: no GPU visible (${why}), building the CPU backend only; ${ask}")
    else()
      include(CheckLanguage)
      check_language(CUDA)
      if(NOT CMAKE_CUDA_COMPILER AND STRATA_CUDA STREQUAL "ON")
        message(FATAL_ERROR "STRATA_CUDA=ON but no CUDA compiler was found (put nvcc on PATH or "
                            "set CMAKE_CUDA_COMPILER, or use STRATA_CUDA=AUTO/OFF)")
      elseif(NOT CMAKE_CUDA_COMPILER)
        set(line "CUDA backend OFF: no CUDA compiler (nvcc) found, building the CPU backend only")
      else()
        set(on ON)
        if(given)
          set(archs "${given}")
        elseif(gpus)
          set(archs "${gpus}")
          set(source "the visible GPUs, nvidia-smi")
        else()
          set(archs 90)
          set(source "no GPU visible: Hopper unless CMAKE_CUDA_ARCHITECTURES says otherwise")
        endif()
        set(line "CUDA backend ON for architectures ${archs} (${source}); STRATA_CUDA=OFF builds the CPU backend only")
        if(NOT given)
          set(CMAKE_CUDA_ARCHITECTURES "${archs}" PARENT_SCOPE)
        endif()
      endif()
    endif()
  endif()
  message(STATUS "strata: ${line}")
  set(STRATA_HAVE_CUDA ${on} PARENT_SCOPE)
endfunction()

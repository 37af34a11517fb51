# Profile-guided optimisation of the simulator's libraries (NTPSIM_PGO; on in the release preset).
#
# The engine's per-event work is branchy (phases, recovery kinds, bucket moves), and GCC lays it
# out better when it knows which branches are taken. With NTPSIM_PGO the build
#   1. builds an instrumented copy of `ntpsim` in <build>/pgo/instrumented (a nested build of this
#      source tree: NTPSIM_PGO_GENERATE set, no tests, no CUDA, no MPI);
#   2. runs it on the example scenarios of scenarios/ (cmake/PgoTrain.cmake; never the bench/
#      scenarios, which measure the result), which writes the branch and call counts to
#      <build>/pgo/profile;
#   3. compiles every ntpsim_sim_* library with those counts (-fprofile-use).
# Results are unchanged: the counts steer code layout, inlining and unrolling, never the
# arithmetic (no fast-math), so every output is byte-identical to a build without PGO.
# Functions the training never ran are compiled as without a profile (-fprofile-partial-training).
# Only GCC is supported (its profile format); other compilers get a configure error naming the
# switch. Editing a simulator source re-runs steps 1-3 for what changed (about 20 s more for
# sim/engine/engine.cpp on 2 cores than a plain build): the dev preset leaves PGO off.
option(NTPSIM_PGO "Optimise the simulator with a profile from a training run (GCC; release preset)" OFF)
# Internal: set by step 1 on the nested build; the directory its instrumented code writes to.
set(NTPSIM_PGO_GENERATE "" CACHE PATH "Internal: instrument the simulator (PGO step 1)")
# Internal: set by step 1 on the nested build; the outer build's CMAKE_CXX_FLAGS_<CONFIG>.
set(NTPSIM_PGO_FLAGS "" CACHE STRING "Internal: the flags of the instrumented code (PGO step 1)")
mark_as_advanced(NTPSIM_PGO_GENERATE NTPSIM_PGO_FLAGS)

if(NTPSIM_PGO AND NTPSIM_PGO_GENERATE)
  message(FATAL_ERROR "NTPSIM_PGO and NTPSIM_PGO_GENERATE exclude each other")
endif()
if((NTPSIM_PGO OR NTPSIM_PGO_GENERATE) AND NOT CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
  message(FATAL_ERROR "NTPSIM_PGO needs GCC (found ${CMAKE_CXX_COMPILER_ID}); "
                      "configure with -DNTPSIM_PGO=OFF")
endif()
if(NTPSIM_PGO AND (NTPSIM_SANITIZE OR NTPSIM_TSAN OR NTPSIM_FUZZ))
  message(FATAL_ERROR "NTPSIM_PGO is for optimised builds: configure sanitizer builds with "
                      "-DNTPSIM_PGO=OFF")
endif()

set(NTPSIM_PGO_DIR ${CMAKE_BINARY_DIR}/pgo)
set(NTPSIM_PGO_PROFILE ${NTPSIM_PGO_DIR}/profile)  # written by step 2, read by step 3
if(NTPSIM_PGO)
  include(ExternalProject)
  set(instrumented_dir ${NTPSIM_PGO_DIR}/instrumented)
  set(instrumented_exe ${instrumented_dir}/tools/ntpsim${CMAKE_EXECUTABLE_SUFFIX})
  # The same compiler and flags as this build for the instrumented libraries: a profile is
  # matched to the code it measured. Everything else in step 1 (models, reports, the tools) only
  # has to link and run the training, so it is compiled with -O1 appended; the instrumented
  # libraries get this build's flags again after it (NTPSIM_PGO_FLAGS, see ntpsim_pgo), and the
  # last -O is the one GCC uses.
  string(TOUPPER "${CMAKE_BUILD_TYPE}" config)
  set(pgo_cmake_args
      -DCMAKE_BUILD_TYPE=${CMAKE_BUILD_TYPE}
      -DCMAKE_CXX_COMPILER=${CMAKE_CXX_COMPILER}
      -DCMAKE_CXX_FLAGS=${CMAKE_CXX_FLAGS}
      "-DCMAKE_CXX_FLAGS_${config}=${CMAKE_CXX_FLAGS_${config}} -O1"
      "-DNTPSIM_PGO_FLAGS=${CMAKE_CXX_FLAGS_${config}}"
      -DCMAKE_UNITY_BUILD=${CMAKE_UNITY_BUILD}
      -DNTPSIM_PGO=OFF
      -DNTPSIM_PGO_GENERATE=${NTPSIM_PGO_PROFILE}
      -DNTPSIM_BUILD_TESTS=OFF
      -DNTPSIM_BUILD_BENCH=OFF
      -DNTPSIM_WITH_CUDA=OFF
      -DNTPSIM_WITH_MPI=OFF)
  if(CMAKE_CXX_COMPILER_LAUNCHER)
    list(APPEND pgo_cmake_args -DCMAKE_CXX_COMPILER_LAUNCHER=${CMAKE_CXX_COMPILER_LAUNCHER})
  endif()
  ExternalProject_Add(ntpsim_pgo_instrumented
    SOURCE_DIR ${PROJECT_SOURCE_DIR}
    BINARY_DIR ${instrumented_dir}
    CMAKE_ARGS ${pgo_cmake_args}
    BUILD_COMMAND ${CMAKE_COMMAND} --build ${instrumented_dir} --target ntpsim
    INSTALL_COMMAND ""
    BUILD_ALWAYS ON
    BUILD_BYPRODUCTS ${instrumented_exe}
    EXCLUDE_FROM_ALL ON)
  # The training scenarios (scenarios/, which the bench/ figures do not use) and what the runs
  # read beside them.
  file(GLOB_RECURSE pgo_inputs CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/scenarios/*.yaml
       ${PROJECT_SOURCE_DIR}/models/*.yaml)
  add_custom_command(
    OUTPUT ${NTPSIM_PGO_DIR}/trained.stamp
    COMMAND ${CMAKE_COMMAND} -DNTPSIM=${instrumented_exe} -DSOURCE_DIR=${PROJECT_SOURCE_DIR}
            -DPROFILE_DIR=${NTPSIM_PGO_PROFILE} -DWORK_DIR=${NTPSIM_PGO_DIR}/training
            -DSTAMP=${NTPSIM_PGO_DIR}/trained.stamp -P ${PROJECT_SOURCE_DIR}/cmake/PgoTrain.cmake
    DEPENDS ${instrumented_exe} ${PROJECT_SOURCE_DIR}/cmake/PgoTrain.cmake ${pgo_inputs}
    COMMENT "PGO: training the instrumented simulator on scenarios/"
    VERBATIM)
  add_custom_target(ntpsim_pgo_profile DEPENDS ${NTPSIM_PGO_DIR}/trained.stamp)
endif()

# Compiles `target` instrumented (step 1) or with the training's profile (step 3); nothing
# otherwise. Object paths relative to the build directory name each profile file, so the nested
# build's and this build's objects find the same files. A function whose profile does not match
# its code (a stale profile) is compiled without one, with GCC's coverage-mismatch warning.
# Step 3 also starts every function on a 64-byte boundary: a hot function's alignment, and that
# of the loops in it, then depends on its own code alone, not on the size of unrelated code
# before it (identical engine code moved by 160 bytes measured 2% slower on a 2-core VM, which
# hid the effect of the change that moved it; the alignment itself measured 1.001 overall).
function(ntpsim_pgo target)
  if(NTPSIM_PGO_GENERATE)
    separate_arguments(flags NATIVE_COMMAND "${NTPSIM_PGO_FLAGS}")
    target_compile_options(${target} PRIVATE ${flags} -fprofile-generate=${NTPSIM_PGO_GENERATE}
                           -fprofile-prefix-path=${CMAKE_BINARY_DIR} -fprofile-update=single)
    target_link_options(${target} INTERFACE -fprofile-generate)
  elseif(NTPSIM_PGO)
    target_compile_options(${target} PRIVATE -fprofile-use=${NTPSIM_PGO_PROFILE}
                           -fprofile-prefix-path=${CMAKE_BINARY_DIR} -fprofile-partial-training
                           -Wno-missing-profile -Wno-error=coverage-mismatch
                           -falign-functions=64)
    add_dependencies(${target} ntpsim_pgo_profile)
  endif()
endfunction()

# Sources of an ntpsim_pgo target that the training never runs (the failure-log fits), named from
# the folder that adds the target. With GCC each is compiled on its own, not in a unity batch:
# the batches of the rest then hold the same files in step 1 and step 3 (a profile file is named
# after its object), and a build on two cores is not left waiting on one batch of every fit (the
# TSan build waited over a minute on it). GCC takes the same CPU time either way (141 s apart,
# 144 s batched, -O3); clang does not (230 s batched, 303 s apart, the ASan flags: it compiles
# the Eigen and Boost.Math code the fits share once per unit), so its builds keep the batch.
# Step 1 compiles them at -O1 without instrumentation, since it only links them; step 3
# compiles them as the rest, and with no counts for them GCC optimises them as without a profile.
function(ntpsim_pgo_cold)
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    set_source_files_properties(${ARGN} PROPERTIES SKIP_UNITY_BUILD_INCLUSION ON)
  endif()
  if(NTPSIM_PGO_GENERATE)
    set_source_files_properties(${ARGN} PROPERTIES
                                COMPILE_OPTIONS "-O1;-fno-profile-arcs;-fno-profile-values")
  endif()
endfunction()

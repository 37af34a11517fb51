# PGO step 2 (cmake/Pgo.cmake): runs the instrumented `ntpsim` on the example scenarios, which
# leaves the branch and call counts in PROFILE_DIR, then writes STAMP.
#   cmake -DNTPSIM=<instrumented ntpsim> -DSOURCE_DIR=<source tree> -DPROFILE_DIR=<dir>
#         -DWORK_DIR=<dir> -DSTAMP=<file> -P cmake/PgoTrain.cmake
# The runs cover what the engine does per event at scale (every strategy family, restart and
# in-place resume, spare domains, 16K-GPU and NVL72 clusters, a trace replay) and the planner's
# screen. One thread each: the instrumented counters are not atomic (-fprofile-update=single).
# About a second in all. A failed run fails the build: a profile from a partial training would
# optimise for the wrong paths without saying so. PROFILE_DIR must be the directory the
# instrumented build was given (NTPSIM_PGO_GENERATE): the counters are written there.
foreach(v NTPSIM SOURCE_DIR PROFILE_DIR WORK_DIR STAMP)
  if(NOT DEFINED ${v})
    message(FATAL_ERROR "PgoTrain.cmake: -D${v}=... is required")
  endif()
endforeach()

# Counts from an earlier training would add up with these (the instrumented code merges into
# existing files): start from none.
file(REMOVE_RECURSE ${PROFILE_DIR} ${WORK_DIR})
file(MAKE_DIRECTORY ${PROFILE_DIR} ${WORK_DIR})
file(REMOVE ${STAMP})

set(runs
    "run|scenarios/quickstart.yaml|--replications|20"
    "run|scenarios/hgx-h100-16k.yaml|--replications|20"
    "run|scenarios/paper/gb200-nvl72-tp64.yaml|--replications|10"
    "run|scenarios/ntp-paper-b200-nvl32.yaml|--replications|10"
    "plan|scenarios/plans/spares-32k-goodput95.yaml")
# The trace replay reads the StepFun trace from ../shared beside the checkout (the file the
# scenario names), which a checkout on its own lacks: then the replay is left out of the
# training, said here, and its code is compiled as without a profile.
set(trace ${SOURCE_DIR}/../shared/data/traces/infinitehbd-stepfun/fault_trace.json)
if(EXISTS ${trace})
  list(APPEND runs "run|scenarios/stepfun-trace-h100.yaml")
else()
  message(STATUS "PGO training: no trace replay (${trace} not found)")
endif()
set(n 0)
foreach(run IN LISTS runs)
  string(REPLACE "|" ";" args "${run}")
  math(EXPR n "${n} + 1")
  list(GET args 0 command)
  if(command STREQUAL "plan")
    set(out_args --out ${WORK_DIR}/plan-${n}.json)
  else()
    set(out_args --out ${WORK_DIR}/run-${n}.json -q)
  endif()
  execute_process(
    COMMAND ${NTPSIM} ${args} --threads 1 ${out_args}
    WORKING_DIRECTORY ${SOURCE_DIR}
    RESULT_VARIABLE rc
    OUTPUT_VARIABLE out
    ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "PGO training run failed (exit ${rc}): ntpsim ${args}\n${out}${err}")
  endif()
endforeach()
file(GLOB profiles ${PROFILE_DIR}/*.gcda)
if(NOT profiles)
  message(FATAL_ERROR "PGO training wrote no profile under ${PROFILE_DIR}")
endif()
file(WRITE ${STAMP} "${n} training runs\n")

# `mpirun -np 2 ntpsim run|sweep|plan|sensitivity` must write the same bytes as a single-process
# run. Invoked by ctest with -DNTPSIM=... -DMPIEXEC=... -DSCENARIO=... -DPROJECT_DIR=... -DWORK=...
# -DMODE=run|sweep|plan|sensitivity.
set(ENV{OMPI_ALLOW_RUN_AS_ROOT} 1)
set(ENV{OMPI_ALLOW_RUN_AS_ROOT_CONFIRM} 1)
# Under sanitizer builds: OpenMPI's own allocations are alive at exit; they are not ours to fix.
set(ENV{ASAN_OPTIONS} "detect_leaks=0")
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")
if(MODE STREQUAL "run")
  set(args run "${SCENARIO}" --set horizon=20d --replications 9 --threads 1 -q)
  set(outputs results.json results.csv)
elseif(MODE STREQUAL "sensitivity")
  # Two inputs (one a distribution), a break-even and the Sobol' design: every evaluation's
  # replications split over the ranks, every rank taking the same decisions.
  set(args sensitivity "${SCENARIO}" --set horizon=10d
      --set "uncertain={recovery.spare_swap: [20s, 10min], recovery.restart: {lognormal: {median: 10min, sigma: 0.5, high: 1h}}}"
      --replications 5 --samples 8 --bisection-steps 3 --threads 1 -q)
  set(outputs results.json results.csv)
elseif(MODE STREQUAL "plan")
  set(args plan "${PROJECT_DIR}/scenarios/plans/405b-15t-60d.yaml" --threads 1 -q)
  set(outputs results.json results.csv)
else()
  set(args sweep "${SCENARIO}" --vary "checkpoint.write=30s,90s" --set horizon=10d
      --replications 5 --threads 1 -q)
  set(outputs results.json)
endif()
foreach(tag one two)
  set(cmd "${NTPSIM}" ${args} --out "${WORK}/${tag}.results.json")
  if(NOT MODE STREQUAL "sweep")
    list(APPEND cmd --csv "${WORK}/${tag}.results.csv")
  endif()
  if(tag STREQUAL "two")
    set(cmd "${MPIEXEC}" --allow-run-as-root --oversubscribe -np 2 ${cmd})
  endif()
  execute_process(COMMAND ${cmd} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${tag}: exit ${rc}\n${out}\n${err}")
  endif()
endforeach()
foreach(f ${outputs})
  execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files "${WORK}/one.${f}" "${WORK}/two.${f}"
                  RESULT_VARIABLE same)
  if(NOT same EQUAL 0)
    message(FATAL_ERROR "${f} differs between 1 process and mpirun -np 2 (${WORK})")
  endif()
endforeach()
message(STATUS "${MODE}: 1 process and 2 MPI ranks wrote identical bytes")

# MPI tests: correctness of ftc_allgather at many process counts, error
# handling, FTCOLL_* environment settings. Included from tests/CMakeLists.txt.
#
# Labels: mpi (plain build), asan (same programs with ASan+UBSan, when
# FTCOLL_SANITIZERS), valgrind (one reduced run, when FTCOLL_VALGRIND finds
# valgrind). Every test has a TIMEOUT, so a hang fails instead of blocking ctest.
set(FTCOLL_MPI_TEST_DIR ${CMAKE_CURRENT_LIST_DIR})
set(FTCOLL_MPI_TEST_TIMEOUT 120)
set(FTCOLL_MPI_TEST_PROCS 1 2 3 4 5 6 7 8 9 10 11 12 16)
# MPICH (ch4) polls without yielding: oversubscribed on two cores each message
# costs milliseconds, so its suite keeps one of each kind of process count
# (1, 2, odd, even non-power of two, powers of two) and stays near 90 s.
if(FTCOLL_MPI_FLAVOR STREQUAL "mpich")
  set(FTCOLL_MPI_TEST_PROCS 1 2 3 4 5 8)
endif()
# Under ASan every process runs about three times slower: powers of two, their
# neighbours and the largest count still reach every algorithm and fallback;
# the large cases stop at 8 processes.
set(FTCOLL_ASAN_TEST_PROCS 1 2 3 4 5 7 8 16)
set(FTCOLL_ASAN_LARGE_MAX_PROCS 8)
# The 1 MiB-per-rank cases move p x (p - 1) MiB per call and every rank checks
# p MiB: on a slow machine lower this; larger p then run without them (the
# small counts still cover every code path).
set(FTCOLL_MPI_LARGE_MAX_PROCS 16 CACHE STRING
  "Largest process count that runs the 1 MiB-per-rank allgather cases")

if(MPIEXEC_NUMPROC_FLAG)
  set(FTCOLL_NUMPROC_FLAG ${MPIEXEC_NUMPROC_FLAG})
else()
  set(FTCOLL_NUMPROC_FLAG -n)
endif()

# A user's FTCOLL_* settings must not change what the tests check: empty
# values mean "unset" to ftc_comm_create.
set(FTCOLL_MPI_TEST_ENV ${FTCOLL_TEST_ENV} FTCOLL_ALLGATHER_ALGORITHM= FTCOLL_VERBOSE=)

# ftcoll_mpi_program(<target> <source> <library> [SANITIZED])
function(ftcoll_mpi_program target source library)
  cmake_parse_arguments(ARG "SANITIZED" "" "" ${ARGN})
  add_executable(${target} ${FTCOLL_MPI_TEST_DIR}/${source} ${FTCOLL_MPI_TEST_DIR}/harness.c
                 ${FTCOLL_MPI_TEST_DIR}/layouts.c ${FTCOLL_MPI_TEST_DIR}/rooted_kill.c
                 ${FTCOLL_MPI_TEST_DIR}/reductions.c)
  target_link_libraries(${target} PRIVATE ${library})
  target_compile_options(${target} PRIVATE ${FTCOLL_WARNINGS})
  target_compile_definitions(${target} PRIVATE ${FTCOLL_MPI_DEFINITIONS})
  if(ARG_SANITIZED)
    target_compile_options(${target} PRIVATE ${FTCOLL_SANITIZE_FLAGS})
  endif()
endfunction()

# Open MPI 5 started with --with-ft ulfm can exit 0 after a rank crashed or
# called MPI_Abort, so a test passes only if rank 0 printed its success line
# (PASS_REGULAR_EXPRESSION) and nothing printed a failure or crash marker.
set(FTCOLL_MPI_FAILURE_MARKERS
  "MISMATCH" "FAIL" "Process received signal" "MPI_ABORT was invoked" "exited on signal"
  "AddressSanitizer" "LeakSanitizer" "runtime error:" "ERROR SUMMARY: [1-9]")

# ftcoll_mpi_test(<name> <procs> <target> EXPECT <regex> [LABEL l] [ENV VAR=val...]
#                 [ARGS args...] [LAUNCH_WRAPPER cmd...])
function(ftcoll_mpi_test name procs target)
  cmake_parse_arguments(ARG "" "LABEL;EXPECT" "ENV;ARGS;LAUNCH_WRAPPER" ${ARGN})
  if(NOT ARG_LABEL)
    set(ARG_LABEL mpi)
  endif()
  if(ARG_LABEL STREQUAL "asan")
    list(APPEND ARG_ENV ${FTCOLL_ASAN_ENV})
  endif()
  add_test(NAME ${name}
    COMMAND ${FTCOLL_MPIEXEC} ${FTCOLL_MPIEXEC_FLAGS} ${FTCOLL_NUMPROC_FLAG} ${procs}
            ${MPIEXEC_PREFLAGS} ${ARG_LAUNCH_WRAPPER} $<TARGET_FILE:${target}>
            ${MPIEXEC_POSTFLAGS} ${ARG_ARGS})
  set_tests_properties(${name} PROPERTIES
    LABELS ${ARG_LABEL}
    TIMEOUT ${FTCOLL_MPI_TEST_TIMEOUT}
    PROCESSORS ${procs}
    PASS_REGULAR_EXPRESSION "${ARG_EXPECT}"
    FAIL_REGULAR_EXPRESSION "${FTCOLL_MPI_FAILURE_MARKERS}"
    ENVIRONMENT "${FTCOLL_MPI_TEST_ENV};${ARG_ENV}")
endfunction()

# The real-kill scenarios (ULFM only), one mpirun each, ending with the table
# "scenarios, survived, wrong results, hangs"; the script's exit status is
# the verdict (it judges each mpirun by the lines printed and its exit code).
# ftcoll_kill_table(<name> <label> <target> <scenarios file> [ENV VAR=val...])
function(ftcoll_kill_table name label target scenarios)
  cmake_parse_arguments(ARG "" "" "ENV" ${ARGN})
  add_test(NAME ${name}
    COMMAND ${PROJECT_SOURCE_DIR}/tests/scripts/allreduce_kill_table.sh
            ${FTCOLL_MPI_TEST_DIR}/${scenarios} 60
            ${FTCOLL_MPIEXEC} ${FTCOLL_MPIEXEC_FLAGS} ${MPIEXEC_PREFLAGS} ${FTCOLL_NUMPROC_FLAG}
            -- $<TARGET_FILE:${target}>)
  set_tests_properties(${name} PROPERTIES
    LABELS ${label}
    TIMEOUT 1800
    PROCESSORS 2
    ENVIRONMENT "${FTCOLL_MPI_TEST_ENV};FTCOLL_STRICT=;${ARG_ENV}")
endfunction()

# Two-digit process counts keep `ctest -R` and the listing in order.
function(ftcoll_procs_suffix procs out)
  if(procs LESS 10)
    set(${out} p0${procs} PARENT_SCOPE)
  else()
    set(${out} p${procs} PARENT_SCOPE)
  endif()
endfunction()

# The success lines the programs print on rank 0.
set(FTCOLL_ALLGATHER_OK "allgather p=[0-9]+: [0-9]+ cases, all elements checked")
set(FTCOLL_ALLGATHERV_OK "allgatherv p=[0-9]+: [0-9]+ cases, all elements checked")
set(FTCOLL_GATHER_OK "gather p=[0-9]+: [0-9]+ cases, all elements checked")
set(FTCOLL_GATHERV_OK "gatherv p=[0-9]+: [0-9]+ cases, all elements checked")
set(FTCOLL_SCATTERV_OK "scatterv p=[0-9]+: [0-9]+ cases, all elements checked")
set(FTCOLL_REDUCE_OK "reduce p=[0-9]+: [0-9]+ cases, all elements checked")
set(FTCOLL_ALLTOALL_OK "alltoall p=[0-9]+: [0-9]+ cases, all elements checked")
set(FTCOLL_REDUCE_SCATTER_OK "reduce_scatter p=[0-9]+: [0-9]+ cases, all elements checked")
set(FTCOLL_SCAN_OK "scan p=[0-9]+: [0-9]+ cases, all elements checked")
set(FTCOLL_ALLREDUCE_OK "allreduce p=[0-9]+: [0-9]+ cases, all elements checked")
set(FTCOLL_BCAST_OK "bcast p=[0-9]+: [0-9]+ cases, all elements checked")
set(FTCOLL_ERRORS_OK "errors p=[0-9]+: all checks passed")
set(FTCOLL_ENV_OK "as expected on every rank")

# ftcoll_per_procs_tests(<collective> <expect> <prefix> <target> <label> <large_max_procs>
#                        <procs...>): one test per process count, named
# <prefix>.<collective>.pNN; the large cases up to large_max_procs (the
# allgather's and the broadcast's programs take --large 0 to skip them).
function(ftcoll_per_procs_tests collective expect prefix target label large_max_procs)
  foreach(procs IN LISTS ARGN)
    ftcoll_procs_suffix(${procs} suffix)
    set(args "")
    if(procs GREATER large_max_procs)
      set(args --large 0)
    endif()
    ftcoll_mpi_test(${prefix}.${collective}.${suffix} ${procs} ${target} LABEL ${label}
                    EXPECT "${expect}" ARGS ${args})
  endforeach()
endfunction()

# ftcoll_allreduce_tests(<prefix> <target> <label> <large_max_procs> <procs...>):
# one test per process count; the large-count cases (256 Ki elements) up to
# large_max_procs. On MPICH (see FTCOLL_MPI_TEST_PROCS) each (type, op) pair
# runs once instead of twice (--lean), which keeps its suite near 25 s.
function(ftcoll_allreduce_tests prefix target label large_max_procs)
  foreach(procs IN LISTS ARGN)
    ftcoll_procs_suffix(${procs} suffix)
    set(args "")
    if(FTCOLL_MPI_FLAVOR STREQUAL "mpich")
      list(APPEND args --lean)
    endif()
    if(procs GREATER large_max_procs)
      list(APPEND args --large 0)
    endif()
    ftcoll_mpi_test(${prefix}.allreduce.${suffix} ${procs} ${target} LABEL ${label}
                    EXPECT "${FTCOLL_ALLREDUCE_OK}" ARGS ${args})
  endforeach()
endfunction()

function(ftcoll_error_tests prefix target label)
  foreach(procs 1 2 4)
    ftcoll_procs_suffix(${procs} suffix)
    ftcoll_mpi_test(${prefix}.errors.${suffix} ${procs} ${target} LABEL ${label}
                    EXPECT "${FTCOLL_ERRORS_OK}")
  endforeach()
endfunction()

# FTCOLL_* variables as ftc_comm_create reads them. A bad value must fail on
# every rank with MPI_ERR_ARG and a message naming the variable, the value
# and the valid values (the words after the variable).
function(ftcoll_env_tests prefix target label)
  set(algorithms auto linear bruck recursive_doubling ring neighbor_exchange two_proc sparbit)
  ftcoll_mpi_test(${prefix}.env.algorithm_ring 3 ${target} LABEL ${label}
    EXPECT "${FTCOLL_ENV_OK}" ENV FTCOLL_ALLGATHER_ALGORITHM=ring
    ARGS --expect-algorithm ring)
  ftcoll_mpi_test(${prefix}.env.algorithm_number 2 ${target} LABEL ${label}
    EXPECT "${FTCOLL_ENV_OK}" ENV FTCOLL_ALLGATHER_ALGORITHM=7
    ARGS --expect-algorithm sparbit)
  # Settings that shape messages must be equal on every rank (one agreement
  # at ftc_comm_create): VARIABLE, its value on even and odd ranks ("" unset),
  # the setting the message names.
  foreach(case "algorithm FTCOLL_ALLGATHER_ALGORITHM ring recursive_doubling FTCOLL_ALLGATHER_ALGORITHM"
               "strict FTCOLL_STRICT 0 1 FTCOLL_STRICT"
               "allreduce_algorithm FTCOLL_ALLREDUCE_ALGORITHM rabenseifner - FTCOLL_ALLREDUCE_ALGORITHM"
               "tag_window FTCOLL_TAG_WINDOW 128 256 FTCOLL_TAG_WINDOW"
               "guard FTCOLL_GUARD every=1 every=2 FTCOLL_GUARD"
               "bcast FTCOLL_BCAST binomial - FTCOLL_BCAST"
               "bcast_plan FTCOLL_BCAST_PLAN scatter_ring - FTCOLL_BCAST_PLAN"
               "bcast_confirm FTCOLL_BCAST_CONFIRM off on FTCOLL_BCAST_CONFIRM")
    separate_arguments(fields UNIX_COMMAND "${case}")
    list(POP_FRONT fields name)
    ftcoll_mpi_test(${prefix}.env.${name}_differs 3 ${target} LABEL ${label}
      EXPECT "${FTCOLL_ENV_OK}" ARGS --per-parity ${fields})
  endforeach()
  ftcoll_mpi_test(${prefix}.env.algorithm_bogus 3 ${target} LABEL ${label}
    EXPECT "${FTCOLL_ENV_OK}" ENV FTCOLL_ALLGATHER_ALGORITHM=bogus
    ARGS --expect-rejected FTCOLL_ALLGATHER_ALGORITHM ${algorithms})
  ftcoll_mpi_test(${prefix}.env.allreduce_algorithm_bogus 3 ${target} LABEL ${label}
    EXPECT "${FTCOLL_ENV_OK}" ENV FTCOLL_ALLREDUCE_ALGORITHM=ring
    ARGS --expect-rejected FTCOLL_ALLREDUCE_ALGORITHM auto recursive_doubling rabenseifner)
  ftcoll_mpi_test(${prefix}.env.bcast_plan_bogus 3 ${target} LABEL ${label}
    EXPECT "${FTCOLL_ENV_OK}" ENV FTCOLL_BCAST_PLAN=ring
    ARGS --expect-rejected FTCOLL_BCAST_PLAN auto binomial scatter_ring)
  ftcoll_mpi_test(${prefix}.env.bcast_confirm_bogus 3 ${target} LABEL ${label}
    EXPECT "${FTCOLL_ENV_OK}" ENV FTCOLL_BCAST_CONFIRM=yes
    ARGS --expect-rejected FTCOLL_BCAST_CONFIRM auto on off)
  ftcoll_mpi_test(${prefix}.env.verbose_bogus 3 ${target} LABEL ${label}
    EXPECT "${FTCOLL_ENV_OK}" ENV FTCOLL_VERBOSE=7
    ARGS --expect-rejected FTCOLL_VERBOSE 0 1)
  ftcoll_mpi_test(${prefix}.env.strict_bogus 3 ${target} LABEL ${label}
    EXPECT "${FTCOLL_ENV_OK}" ENV FTCOLL_STRICT=yes
    ARGS --expect-rejected FTCOLL_STRICT 0 1)
  ftcoll_mpi_test(${prefix}.env.inject_bogus 2 ${target} LABEL ${label}
    EXPECT "${FTCOLL_ENV_OK}" ENV FTCOLL_INJECT=explode
    ARGS --expect-rejected FTCOLL_INJECT kill)
  ftcoll_mpi_test(${prefix}.env.tag_window_bogus 3 ${target} LABEL ${label}
    EXPECT "${FTCOLL_ENV_OK}" ENV FTCOLL_TAG_WINDOW=127
    ARGS --expect-rejected FTCOLL_TAG_WINDOW 128 16384)
  ftcoll_mpi_test(${prefix}.env.tag_window_small 2 ${target} LABEL ${label}
    EXPECT "${FTCOLL_ENV_OK}" ENV FTCOLL_TAG_WINDOW=128
    ARGS --expect-algorithm auto)
  ftcoll_mpi_test(${prefix}.env.verbose_on 2 ${target} LABEL ${label}
    EXPECT "${FTCOLL_ENV_OK}" ENV FTCOLL_VERBOSE=1
    ARGS --expect-algorithm auto)
endfunction()

# Guarded collectives and the watchdog (test_guard.c). Clean stops are
# judged by the program itself; aborts by tests/scripts/guard_abort.sh (the
# diagnosis, the time from the stalled collective to the end of the job,
# no process left behind).
set(FTCOLL_GUARD_OK "guard [a-z]+ p=[0-9]+: as expected on every rank")

# ftcoll_guard_abort_test(<name> <procs> <target> <label> WITHIN <s> EXPECT <regex>...
#                         [ENV VAR=val...] ARGS args...)
function(ftcoll_guard_abort_test name procs target label)
  cmake_parse_arguments(ARG "" "WITHIN" "EXPECT;ENV;ARGS" ${ARGN})
  add_test(NAME ${name}
    COMMAND ${PROJECT_SOURCE_DIR}/tests/scripts/guard_abort.sh ${ARG_WITHIN} ${ARG_EXPECT} --
            ${FTCOLL_MPIEXEC} ${FTCOLL_MPIEXEC_FLAGS} ${FTCOLL_NUMPROC_FLAG} ${procs}
            ${MPIEXEC_PREFLAGS} $<TARGET_FILE:${target}> ${MPIEXEC_POSTFLAGS} ${ARG_ARGS})
  set_tests_properties(${name} PROPERTIES
    LABELS ${label} TIMEOUT ${FTCOLL_MPI_TEST_TIMEOUT} PROCESSORS ${procs}
    ENVIRONMENT "${FTCOLL_MPI_TEST_ENV};FTCOLL_WATCHDOG=;${ARG_ENV}")
endfunction()

# ftcoll_guard_tests(<prefix> <target> <label> <healthy procs>)
function(ftcoll_guard_tests prefix target label healthy_procs)
  set(every1 "FTCOLL_GUARD=every=1,timeout=30")
  set(t ${target})
  # clean stops: one rank; two ranks in the same check-in; every 3rd call
  # guarded (an error raised before collective 7 stops every rank at 8);
  # bad arguments on one rank
  ftcoll_mpi_test(${prefix}.guard.raise_one 4 ${t} LABEL ${label} EXPECT "${FTCOLL_GUARD_OK}"
                  ENV ${every1} ARGS raise 2 3 3)
  ftcoll_mpi_test(${prefix}.guard.raise_two 5 ${t} LABEL ${label} EXPECT "${FTCOLL_GUARD_OK}"
                  ENV ${every1} ARGS raise 1,4 2 2)
  ftcoll_mpi_test(${prefix}.guard.raise_every3 4 ${t} LABEL ${label}
                  EXPECT "${FTCOLL_GUARD_OK}" ENV FTCOLL_GUARD=every=3,timeout=30
                  ARGS raise 3 7 8 10)
  ftcoll_mpi_test(${prefix}.guard.bad_argument 3 ${t} LABEL ${label}
                  EXPECT "${FTCOLL_GUARD_OK}" ENV ${every1} ARGS badarg 2 4)
  ftcoll_mpi_test(${prefix}.guard.api 2 ${t} LABEL ${label} EXPECT "${FTCOLL_GUARD_OK}"
                  ARGS api)
  # roots and sizes that differ between ranks: a clean stop naming the rank
  # (different sizes would run different algorithms and hang, or match)
  ftcoll_mpi_test(${prefix}.guard.arguments_differ 4 ${t} LABEL ${label}
                  EXPECT "${FTCOLL_GUARD_OK}" ENV ${every1} ARGS differ 2)
  # warnings on two ranks: rank 0's tally at ftc_comm_free names both
  ftcoll_mpi_test(${prefix}.guard.warnings 4 ${t} LABEL ${label}
                  EXPECT "warning\\(s\\) emitted: rank 1: 2, rank 3: 1; none on the other 2"
                  ENV ${every1} ARGS warn)
  # long healthy runs under the guard (every call, every 3rd) and a watchdog
  ftcoll_mpi_test(${prefix}.guard.healthy_every1 ${healthy_procs} ${t} LABEL ${label}
                  EXPECT "${FTCOLL_GUARD_OK}"
                  ENV FTCOLL_GUARD=every=1,timeout=60 FTCOLL_WATCHDOG=deadline=60
                  ARGS healthy 300)
  ftcoll_mpi_test(${prefix}.guard.healthy_every3 ${healthy_procs} ${t} LABEL ${label}
                  EXPECT "${FTCOLL_GUARD_OK}"
                  ENV FTCOLL_GUARD=every=3,timeout=60 FTCOLL_WATCHDOG=deadline=60
                  ARGS healthy 300)
  # aborts: a sleeping rank (with a rank reporting through it), a rank in
  # another collective, a rank spinning inside an allreduce
  ftcoll_guard_abort_test(${prefix}.guard.sleeping_rank 8 ${t} ${label} WITHIN 4.5
    EXPECT "rank 6 did not check in within [0-9.]+ s; not heard from either: 7"
           "ranks 0-5 wait in the check-in before ftc_allreduce call 2"
    ENV FTCOLL_GUARD=every=1,timeout=3 ARGS sleep 6 60)
  ftcoll_guard_abort_test(${prefix}.guard.other_collective 4 ${t} ${label} WITHIN 60
    EXPECT "rank 3 is in ftc_allgather call 1 instead"
    ENV ${every1} ARGS mismatch 3)
  ftcoll_guard_abort_test(${prefix}.guard.watchdog_spin 4 ${t} ${label} WITHIN 60
    EXPECT "ftcoll watchdog: rank [0-9] of 4: ftc_allreduce call 2 has not finished after"
    ENV "FTCOLL_INJECT=spin rank=2 call=3 step=1" FTCOLL_WATCHDOG=deadline=3 ARGS spin)
endfunction()

# ftcoll_mpi_suite(<label> <library> <large_max_procs> <procs list var> [SANITIZED]):
# the test programs built against <library>, and their tests, named and
# labelled <label>.
function(ftcoll_mpi_suite label library large_max_procs procs_var)
  foreach(program test_allgather test_allgatherv test_gather test_gatherv test_scatterv
                  test_reduce test_reduce_scatter test_scan test_alltoall test_errors
                  test_env test_allreduce
                  test_bcast test_guard)
    ftcoll_mpi_program(${label}_${program} ${program}.c ${library} ${ARGN})
  endforeach()
  ftcoll_per_procs_tests(allgather "${FTCOLL_ALLGATHER_OK}" ${label} ${label}_test_allgather
                         ${label} ${large_max_procs} ${${procs_var}})
  foreach(procs IN LISTS ${procs_var})
    ftcoll_procs_suffix(${procs} suffix)
    ftcoll_mpi_test(${label}.allgatherv.${suffix} ${procs} ${label}_test_allgatherv
                    LABEL ${label} EXPECT "${FTCOLL_ALLGATHERV_OK}")
    ftcoll_mpi_test(${label}.gather.${suffix} ${procs} ${label}_test_gather
                    LABEL ${label} EXPECT "${FTCOLL_GATHER_OK}")
    ftcoll_mpi_test(${label}.gatherv.${suffix} ${procs} ${label}_test_gatherv
                    LABEL ${label} EXPECT "${FTCOLL_GATHERV_OK}")
    ftcoll_mpi_test(${label}.scatterv.${suffix} ${procs} ${label}_test_scatterv
                    LABEL ${label} EXPECT "${FTCOLL_SCATTERV_OK}")
    ftcoll_mpi_test(${label}.reduce.${suffix} ${procs} ${label}_test_reduce
                    LABEL ${label} EXPECT "${FTCOLL_REDUCE_OK}")
    ftcoll_mpi_test(${label}.alltoall.${suffix} ${procs} ${label}_test_alltoall
                    LABEL ${label} EXPECT "${FTCOLL_ALLTOALL_OK}")
    ftcoll_mpi_test(${label}.reduce_scatter.${suffix} ${procs} ${label}_test_reduce_scatter
                    LABEL ${label} EXPECT "${FTCOLL_REDUCE_SCATTER_OK}")
    ftcoll_mpi_test(${label}.scan.${suffix} ${procs} ${label}_test_scan
                    LABEL ${label} EXPECT "${FTCOLL_SCAN_OK}")
  endforeach()
  # a linear gather's root passes its word to more children than one wait
  # takes (ULFM: three or more ranks keep copies, and large calls pass the word)
  if(FTCOLL_HAVE_ULFM)
    ftcoll_mpi_test(${label}.gather.p34 34 ${label}_test_gather LABEL ${label}
                    EXPECT "${FTCOLL_GATHER_OK}" ARGS --quick)
    ftcoll_mpi_test(${label}.gatherv.p34 34 ${label}_test_gatherv LABEL ${label}
                    EXPECT "${FTCOLL_GATHERV_OK}" ARGS --quick)
    ftcoll_mpi_test(${label}.scatterv.p34 34 ${label}_test_scatterv LABEL ${label}
                    EXPECT "${FTCOLL_SCATTERV_OK}" ARGS --quick)
    ftcoll_mpi_test(${label}.reduce.p34 34 ${label}_test_reduce LABEL ${label}
                    EXPECT "${FTCOLL_REDUCE_OK}" ARGS --quick)
    ftcoll_mpi_test(${label}.alltoall.p34 34 ${label}_test_alltoall LABEL ${label}
                    EXPECT "${FTCOLL_ALLTOALL_OK}" ARGS --quick)
    ftcoll_mpi_test(${label}.reduce_scatter.p34 34 ${label}_test_reduce_scatter LABEL ${label}
                    EXPECT "${FTCOLL_REDUCE_SCATTER_OK}" ARGS --quick)
    ftcoll_mpi_test(${label}.scan.p34 34 ${label}_test_scan LABEL ${label}
                    EXPECT "${FTCOLL_SCAN_OK}" ARGS --quick)
  endif()
  # each reduce_scatter algorithm forced at every size: recursive halving
  # with and without spares, the allreduce on two ranks (the rules halve)
  foreach(procs 3 5 8)
    ftcoll_mpi_test(${label}.reduce_scatter_halving.p0${procs} ${procs}
                    ${label}_test_reduce_scatter LABEL ${label}
                    EXPECT "${FTCOLL_REDUCE_SCATTER_OK}"
                    ENV FTCOLL_REDUCE_SCATTER_ALGORITHM=recursive_halving)
  endforeach()
  ftcoll_mpi_test(${label}.reduce_scatter_allreduce.p02 2 ${label}_test_reduce_scatter
                  LABEL ${label} EXPECT "${FTCOLL_REDUCE_SCATTER_OK}"
                  ENV FTCOLL_REDUCE_SCATTER_ALGORITHM=allreduce)
  ftcoll_allreduce_tests(${label} ${label}_test_allreduce ${label} ${large_max_procs}
                         ${${procs_var}})
  ftcoll_per_procs_tests(bcast "${FTCOLL_BCAST_OK}" ${label} ${label}_test_bcast
                         ${label} ${large_max_procs} ${${procs_var}})
  # the scatter + ring, which the default plan keeps for large messages on
  # 16 ranks or more, forced at an odd and an even count, and with ULFM at
  # 33 ranks, where a rank has more steps than sends it can keep in flight
  # (without ULFM the broadcast is MPI's)
  set(scatter_procs 3 8)
  if(NOT FTCOLL_MPI_FLAVOR STREQUAL "mpich")
    list(APPEND scatter_procs 33)
  endif()
  foreach(procs IN LISTS scatter_procs)
    set(args "")
    if(procs GREATER large_max_procs)
      set(args --large 0)
    endif()
    ftcoll_procs_suffix(${procs} suffix)
    ftcoll_mpi_test(${label}.bcast.scatter_ring.${suffix} ${procs} ${label}_test_bcast
                    LABEL ${label} EXPECT "${FTCOLL_BCAST_OK}" ENV FTCOLL_BCAST_PLAN=scatter_ring
                    ARGS ${args})
  endforeach()
  # large broadcasts keeping their copies instead of confirming: what
  # FTCOLL_BCAST_CONFIRM=auto does where every rank has a processor of its
  # own (on this oversubscribed host it confirms)
  foreach(procs 3 8)
    ftcoll_procs_suffix(${procs} suffix)
    ftcoll_mpi_test(${label}.bcast.copies.${suffix} ${procs} ${label}_test_bcast
                    LABEL ${label} EXPECT "${FTCOLL_BCAST_OK}" ENV FTCOLL_BCAST_CONFIRM=off)
  endforeach()
  ftcoll_error_tests(${label} ${label}_test_errors ${label})
  ftcoll_env_tests(${label} ${label}_test_env ${label})
  # the long healthy runs at p = 16: a check-in tree four levels deep on an
  # oversubscribed host, where a timeout too tight would raise a false alarm;
  # MPICH's slow oversubscribed polling and the sanitizers keep theirs at 8
  set(healthy_procs 8)
  if(label STREQUAL "mpi" AND NOT FTCOLL_MPI_FLAVOR STREQUAL "mpich")
    set(healthy_procs 16)
  endif()
  ftcoll_guard_tests(${label} ${label}_test_guard ${label} ${healthy_procs})
endfunction()

# --- plain build (label mpi) --------------------------------------------------------
ftcoll_mpi_suite(mpi ftcoll_static ${FTCOLL_MPI_LARGE_MAX_PROCS} FTCOLL_MPI_TEST_PROCS)

# ftc_reduce_local's own loops against MPI_Reduce_local, bit for bit (one process).
add_executable(mpi_test_reduce_local ${FTCOLL_MPI_TEST_DIR}/test_reduce_local.c
               ${PROJECT_SOURCE_DIR}/src/reduce_local.c)
target_link_libraries(mpi_test_reduce_local PRIVATE MPI::MPI_C)
target_compile_options(mpi_test_reduce_local PRIVATE ${FTCOLL_WARNINGS})
ftcoll_mpi_test(mpi.reduce_local.p01 1 mpi_test_reduce_local
                EXPECT "reduce_local: [0-9]+ cases, every byte checked")

# --- ASan + UBSan (label asan) ------------------------------------------------------
# The same programs, compiled with the sanitizers and linked with ftcoll_asan.
# Leaks inside Open MPI and its runtime libraries are suppressed
# (tests/mpi/lsan.supp); a leak in ftcoll or in the tests is an error.
if(FTCOLL_SANITIZERS)
  # fast_unwind_on_malloc=0: Open MPI's leaks go through libc's vasprintf,
  # which the fast unwinder cannot walk past, so without it lsan.supp would
  # not see the Open MPI frames of those stacks.
  set(FTCOLL_ASAN_ENV
    "ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:detect_stack_use_after_return=1:fast_unwind_on_malloc=0"
    "LSAN_OPTIONS=suppressions=${FTCOLL_MPI_TEST_DIR}/lsan.supp:print_suppressions=0"
    # abort_on_error: a rank UBSan stops must die of a signal, which ULFM
    # reports to the others; a plain exit is never reported and they hang.
    "UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:abort_on_error=1")
  ftcoll_mpi_suite(asan ftcoll_asan ${FTCOLL_ASAN_LARGE_MAX_PROCS} FTCOLL_ASAN_TEST_PROCS
                   SANITIZED)
  # Recovery runs only when ranks die: the kill scenarios again, sanitized.
  if(FTCOLL_HAVE_ULFM)
    ftcoll_mpi_program(asan_test_allreduce_kill test_allreduce_kill.c ftcoll_asan SANITIZED)
    ftcoll_kill_table(asan.allreduce_kill_table asan asan_test_allreduce_kill
                      kill_scenarios.txt ENV ${FTCOLL_ASAN_ENV})
    ftcoll_mpi_program(asan_test_bcast_kill test_bcast_kill.c ftcoll_asan SANITIZED)
    ftcoll_kill_table(asan.bcast_kill_table asan asan_test_bcast_kill
                      bcast_kill_scenarios.txt ENV ${FTCOLL_ASAN_ENV})
    ftcoll_kill_table(asan.bcast_tree_kill_table asan asan_test_bcast_kill
                      bcast_tree_kill_scenarios.txt ENV ${FTCOLL_ASAN_ENV})
    ftcoll_mpi_program(asan_test_allgather_kill test_allgather_kill.c ftcoll_asan SANITIZED)
    ftcoll_mpi_program(asan_test_scan_kill test_scan_kill.c ftcoll_asan SANITIZED)
    ftcoll_kill_table(asan.scan_kill_table asan asan_test_scan_kill scan_kill_scenarios.txt
                      ENV ${FTCOLL_ASAN_ENV})
    ftcoll_kill_table(asan.allgather_kill_table asan asan_test_allgather_kill
                      allgather_kill_scenarios.txt ENV ${FTCOLL_ASAN_ENV})
    ftcoll_kill_table(asan.allgatherv_kill_table asan asan_test_allgather_kill
                      allgatherv_kill_scenarios.txt ENV ${FTCOLL_ASAN_ENV}
                      FTCOLL_TEST_ALLGATHERV=1)
    ftcoll_mpi_program(asan_test_gather_kill test_gather_kill.c ftcoll_asan SANITIZED)
    ftcoll_kill_table(asan.gather_kill_table asan asan_test_gather_kill
                      gather_kill_scenarios.txt ENV ${FTCOLL_ASAN_ENV})
    ftcoll_kill_table(asan.reduce_scatter_kill_table asan asan_test_allreduce_kill
                      reduce_scatter_kill_scenarios.txt ENV ${FTCOLL_ASAN_ENV}
                      FTCOLL_TEST_REDUCE_SCATTER=1)
    ftcoll_mpi_program(asan_test_alltoall_kill test_alltoall_kill.c ftcoll_asan SANITIZED)
    ftcoll_kill_table(asan.alltoall_kill_table asan asan_test_alltoall_kill
                      alltoall_kill_scenarios.txt ENV ${FTCOLL_ASAN_ENV})
    ftcoll_mpi_program(asan_test_gatherv_kill test_gatherv_kill.c ftcoll_asan SANITIZED)
    ftcoll_kill_table(asan.gatherv_kill_table asan asan_test_gatherv_kill
                      gatherv_kill_scenarios.txt ENV ${FTCOLL_ASAN_ENV})
    ftcoll_mpi_program(asan_test_scatterv_kill test_scatterv_kill.c ftcoll_asan SANITIZED)
    ftcoll_kill_table(asan.scatterv_kill_table asan asan_test_scatterv_kill
                      scatterv_kill_scenarios.txt ENV ${FTCOLL_ASAN_ENV})
    ftcoll_kill_table(asan.scatter_binomial_kill_table asan asan_test_scatterv_kill
                      scatter_binomial_kill_scenarios.txt
                      ENV ${FTCOLL_ASAN_ENV} FTCOLL_TEST_SCATTER=1)
    ftcoll_mpi_program(asan_test_reduce_kill test_reduce_kill.c ftcoll_asan SANITIZED)
    ftcoll_kill_table(asan.reduce_kill_table asan asan_test_reduce_kill
                      reduce_kill_scenarios.txt ENV ${FTCOLL_ASAN_ENV})
  endif()
endif()

# --- valgrind (label valgrind) ------------------------------------------------------
# One allgather run with every rank under memcheck, its large cases cut to
# 64 KiB per rank (still past the eager limit: rendezvous transfers). Errors
# and definite leaks outside the suppressed MPI internals fail it;
# tests/mpi/valgrind.supp says what is suppressed and why.
if(FTCOLL_VALGRIND AND VALGRIND)
  get_filename_component(ftcoll_mpi_bin "${FTCOLL_MPIEXEC}" DIRECTORY)
  set(ftcoll_ompi_supp "${ftcoll_mpi_bin}/../share/openmpi/openmpi-valgrind.supp")
  set(ftcoll_supp_args --suppressions=${FTCOLL_MPI_TEST_DIR}/valgrind.supp)
  if(EXISTS "${ftcoll_ompi_supp}")
    list(APPEND ftcoll_supp_args --suppressions=${ftcoll_ompi_supp})
  endif()
  set(ftcoll_memcheck ${VALGRIND} --error-exitcode=99 --leak-check=full
      --errors-for-leak-kinds=definite --show-leak-kinds=definite --num-callers=40
      ${ftcoll_supp_args})
  ftcoll_mpi_test(valgrind.allgather.p03 3 mpi_test_allgather LABEL valgrind
    EXPECT "${FTCOLL_ALLGATHER_OK}" LAUNCH_WRAPPER ${ftcoll_memcheck} ARGS --large 65536)
  # And one allgatherv run (p = 3: every algorithm, blocks of their own
  # sizes and places, the datatypes made for slots not end to end).
  ftcoll_mpi_test(valgrind.allgatherv.p03 3 mpi_test_allgatherv LABEL valgrind
    EXPECT "${FTCOLL_ALLGATHERV_OK}" LAUNCH_WRAPPER ${ftcoll_memcheck})
  # And one gather run (p = 3: every tree and root, the word's room).
  ftcoll_mpi_test(valgrind.gather.p03 3 mpi_test_gather LABEL valgrind
    EXPECT "${FTCOLL_GATHER_OK}" LAUNCH_WRAPPER ${ftcoll_memcheck})
  # And one gatherv run (p = 3: every root, copies kept and the word).
  ftcoll_mpi_test(valgrind.gatherv.p03 3 mpi_test_gatherv LABEL valgrind
    EXPECT "${FTCOLL_GATHERV_OK}" LAUNCH_WRAPPER ${ftcoll_memcheck})
  # And one scatterv run (p = 3: every root, copies kept, acknowledgements).
  ftcoll_mpi_test(valgrind.scatterv.p03 3 mpi_test_scatterv LABEL valgrind
    EXPECT "${FTCOLL_SCATTERV_OK}" LAUNCH_WRAPPER ${ftcoll_memcheck})
  # And one reduce run (p = 3: every root, copies kept and the word).
  ftcoll_mpi_test(valgrind.reduce.p03 3 mpi_test_reduce LABEL valgrind
    EXPECT "${FTCOLL_REDUCE_OK}" LAUNCH_WRAPPER ${ftcoll_memcheck})
  # And one alltoall run (p = 3: both algorithms, copies kept and
  # acknowledgements, in place).
  ftcoll_mpi_test(valgrind.alltoall.p03 3 mpi_test_alltoall LABEL valgrind
    EXPECT "${FTCOLL_ALLTOALL_OK}" LAUNCH_WRAPPER ${ftcoll_memcheck})
  # And one scan run (p = 3, MPI_COMM_WORLD: both calls, every op, in place).
  ftcoll_mpi_test(valgrind.scan.p03 3 mpi_test_scan LABEL valgrind
    EXPECT "${FTCOLL_SCAN_OK}" LAUNCH_WRAPPER ${ftcoll_memcheck} ARGS --quick)
  # And one allreduce run (p = 3: a fold), its large cases cut to 5000 elements.
  ftcoll_mpi_test(valgrind.allreduce.p03 3 mpi_test_allreduce LABEL valgrind
    EXPECT "${FTCOLL_ALLREDUCE_OK}" LAUNCH_WRAPPER ${ftcoll_memcheck} ARGS --large 5000)
  # And one broadcast run (p = 3: every root, a strided type), 5000 doubles at most.
  ftcoll_mpi_test(valgrind.bcast.p03 3 mpi_test_bcast LABEL valgrind
    EXPECT "${FTCOLL_BCAST_OK}" LAUNCH_WRAPPER ${ftcoll_memcheck} ARGS --large 5000)
endif()

# Real deaths during ftc_allreduce (ULFM only): every scenario of
# kill_scenarios.txt (1 to 3 ranks SIGKILLed at a step, a fold, the hand-out,
# during a recovery; p from 2 to 16; strict mode), one mpirun each, ending
# with the table (the sanitized run is in the asan section).
if(FTCOLL_HAVE_ULFM)
  ftcoll_mpi_program(mpi_test_allreduce_kill test_allreduce_kill.c ftcoll_static)
  ftcoll_kill_table(mpi.allreduce_kill_table mpi mpi_test_allreduce_kill kill_scenarios.txt)
  # Communicators made and freed while a rank dies, then a recovery on an
  # older one (test_create_churn.c): the death lands at a different instant
  # each run, often inside a duplicate's context-id allocation.
  ftcoll_mpi_program(mpi_test_create_churn test_create_churn.c ftcoll_static)
  foreach(procs 4 7)
    ftcoll_mpi_test(mpi.create_churn.p0${procs} ${procs} mpi_test_create_churn
      EXPECT "create-churn p=${procs} made=[0-9]+: PASS")
  endforeach()
  # The same for ftc_bcast: its root, an interior rank, a leaf
  # (bcast_kill_scenarios.txt, test_bcast_kill.c).
  ftcoll_mpi_program(mpi_test_bcast_kill test_bcast_kill.c ftcoll_static)
  ftcoll_kill_table(mpi.bcast_kill_table mpi mpi_test_bcast_kill bcast_kill_scenarios.txt)
  # Over the network trees (bcast_tree_kill_scenarios.txt): the dead rank's
  # subtree served in the recovery, then re-attached in the survivors' tree.
  ftcoll_kill_table(mpi.bcast_tree_kill_table mpi mpi_test_bcast_kill
                    bcast_tree_kill_scenarios.txt)
  # The same for ftc_allgather over every algorithm (allgather_kill_scenarios.txt,
  # test_allgather_kill.c).
  ftcoll_mpi_program(mpi_test_allgather_kill test_allgather_kill.c ftcoll_static)
  # ftc_scan and ftc_exscan: the allgather's points, five ops, one of them
  # not commutative (scan_kill_scenarios.txt, test_scan_kill.c)
  ftcoll_mpi_program(mpi_test_scan_kill test_scan_kill.c ftcoll_static)
  ftcoll_kill_table(mpi.scan_kill_table mpi mpi_test_scan_kill scan_kill_scenarios.txt)
  ftcoll_kill_table(mpi.allgather_kill_table mpi mpi_test_allgather_kill
                    allgather_kill_scenarios.txt)
  ftcoll_kill_table(mpi.allgatherv_kill_table mpi mpi_test_allgather_kill
                    allgatherv_kill_scenarios.txt ENV FTCOLL_TEST_ALLGATHERV=1)
  # ftc_gather: every tree, inner ranks, the root, the word (gather_kill_scenarios.txt,
  # test_gather_kill.c).
  ftcoll_mpi_program(mpi_test_gather_kill test_gather_kill.c ftcoll_static)
  ftcoll_kill_table(mpi.gather_kill_table mpi mpi_test_gather_kill gather_kill_scenarios.txt)
  # ftc_gatherv: the root, non-roots before and after their block left, the
  # late root served from copies, the word (gatherv_kill_scenarios.txt,
  # test_gatherv_kill.c).
  ftcoll_mpi_program(mpi_test_gatherv_kill test_gatherv_kill.c ftcoll_static)
  ftcoll_kill_table(mpi.gatherv_kill_table mpi mpi_test_gatherv_kill gatherv_kill_scenarios.txt)
  # ftc_scatterv: the root before, during and after its sends, receivers
  # before and after their block, late receivers served from the root's
  # copies, the acknowledgements and the word (scatterv_kill_scenarios.txt,
  # test_scatterv_kill.c).
  # ftc_reduce_scatter(_block): the allreduce's program, its calls
  # reduce_scatters (reduce_scatter_kill_scenarios.txt)
  ftcoll_kill_table(mpi.reduce_scatter_kill_table mpi mpi_test_allreduce_kill
                    reduce_scatter_kill_scenarios.txt ENV FTCOLL_TEST_REDUCE_SCATTER=1)
  # ftc_alltoall(v): ranks entering, once their blocks arrived, in the
  # acknowledgements, two deaths, a death in the recovery, both algorithms
  # (alltoall_kill_scenarios.txt, test_alltoall_kill.c).
  ftcoll_mpi_program(mpi_test_alltoall_kill test_alltoall_kill.c ftcoll_static)
  ftcoll_kill_table(mpi.alltoall_kill_table mpi mpi_test_alltoall_kill
                    alltoall_kill_scenarios.txt)
  ftcoll_mpi_program(mpi_test_scatterv_kill test_scatterv_kill.c ftcoll_static)
  ftcoll_kill_table(mpi.scatterv_kill_table mpi mpi_test_scatterv_kill
                    scatterv_kill_scenarios.txt)
  ftcoll_kill_table(mpi.scatter_kill_table mpi mpi_test_scatterv_kill
                    scatterv_kill_scenarios.txt ENV FTCOLL_TEST_SCATTER=1)
  # ftc_scatter down the binomial tree: ranks with children dying before
  # and after their subtree arrived, with the root and in the recovery
  # (scatter_binomial_kill_scenarios.txt)
  ftcoll_kill_table(mpi.scatter_binomial_kill_table mpi mpi_test_scatterv_kill
                    scatter_binomial_kill_scenarios.txt ENV FTCOLL_TEST_SCATTER=1)
  # ftc_reduce: the root before and with every value, inner ranks before
  # passing their subtree on, the word (560 KB, a user's op), roots found
  # dead (reduce_kill_scenarios.txt, test_reduce_kill.c).
  ftcoll_mpi_program(mpi_test_reduce_kill test_reduce_kill.c ftcoll_static)
  ftcoll_kill_table(mpi.reduce_kill_table mpi mpi_test_reduce_kill
                    reduce_kill_scenarios.txt)
  # Whether large broadcasts confirm: counted from the ranks and processors
  # of each node (either answer, whatever host runs the test), or as
  # FTCOLL_BCAST_CONFIRM says; rank 0 says which at FTCOLL_VERBOSE=1.
  set(decided "ftcoll: bcast on 3 ranks: from 128 KiB on three live ranks or more,")
  ftcoll_mpi_test(mpi.bcast.confirm_counted 3 mpi_test_bcast ENV FTCOLL_VERBOSE=1 ARGS --large 10
    EXPECT "${decided} (every call confirms \\(ranks share processors\\)|the scatter and ring confirms, the binomial flow keeps a copy \\(a processor per rank\\)).*${FTCOLL_BCAST_OK}")
  ftcoll_mpi_test(mpi.bcast.confirm_off 3 mpi_test_bcast ARGS --large 10
    ENV FTCOLL_VERBOSE=1 FTCOLL_BCAST_CONFIRM=off
    EXPECT "${decided} every call keeps a copy \\(FTCOLL_BCAST_CONFIRM\\).*${FTCOLL_BCAST_OK}")
  # `make run`'s demonstration: 8 ranks, two killed, the survivors' report.
  ftcoll_mpi_test(mpi.demo 8 ftcoll-demo
    EXPECT "every call returned on every survivor the exact sum")
endif()

# The PMPI layer and ftcrun (docs/pmpi.md): unmodified MPI programs, built
# against MPI alone, run under ftcrun. Included from tests/CMakeLists.txt.
#
#   pmpi.compare.*   examples/apps give byte-for-byte the answers they give
#                    without ftcoll, and ftcoll ran their collectives
#   pmpi.semantics.* test_pmpi.c: MPI's semantics kept (every element)
#   pmpi.comms.*     test_pmpi_comms.c: communicators made by every kind of
#                    constructor serve collectives (with ULFM also after a
#                    death that came between their making and their use)
#   pmpi.linked.*    the layer linked instead of preloaded
#   pmpi.alloc.*     test_pmpi_alloc.c: each allocation of ftcoll's failing
#                    on one rank while a communicator is made fails it on
#                    every rank alike, no hang, results kept
#   pmpi.kill.*      (ULFM) ranks killed: the survivors finish, exit 0, the
#                    summary names the dead; a program whose point-to-point
#                    calls reach a dead rank ends with MPI's error
#   pmpi.guard_stop  a bad argument on one rank stops every rank cleanly
#   pmpi.guard_root_differs  so does a root unlike the others'
#   pmpi.ftcrun.*    bad options are errors with the reason; a launcher that
#                    outlives every rank is stopped
set(ftcrun ${PROJECT_BINARY_DIR}/ftcrun)
set(expect_run ${PROJECT_SOURCE_DIR}/tests/scripts/expect_run.sh)
set(compare ${PROJECT_SOURCE_DIR}/tests/scripts/pmpi_compare.sh)
set(launcher_args ${FTCOLL_MPIEXEC_FLAGS})
list(REMOVE_ITEM launcher_args --with-ft ulfm)   # ftcrun adds them
string(JOIN " " launcher_args_text ${launcher_args})
string(JOIN " " plain_text ${FTCOLL_MPIEXEC} ${FTCOLL_MPIEXEC_FLAGS})

foreach(app jacobi monte_carlo heat census)
  add_executable(app_${app} ${PROJECT_SOURCE_DIR}/examples/apps/${app}.c)
  target_link_libraries(app_${app} PRIVATE MPI::MPI_C m)
  target_compile_options(app_${app} PRIVATE ${FTCOLL_WARNINGS})
endforeach()
add_executable(pmpi_test_pmpi ${FTCOLL_MPI_TEST_DIR}/test_pmpi.c)
target_link_libraries(pmpi_test_pmpi PRIVATE MPI::MPI_C)
target_compile_options(pmpi_test_pmpi PRIVATE ${FTCOLL_WARNINGS})
add_executable(pmpi_test_pmpi_comms ${FTCOLL_MPI_TEST_DIR}/test_pmpi_comms.c)
target_link_libraries(pmpi_test_pmpi_comms PRIVATE MPI::MPI_C)
target_compile_options(pmpi_test_pmpi_comms PRIVATE ${FTCOLL_WARNINGS})
add_executable(pmpi_test_pmpi_linked ${FTCOLL_MPI_TEST_DIR}/test_pmpi.c)
target_link_libraries(pmpi_test_pmpi_linked PRIVATE ftcoll_pmpi MPI::MPI_C)
target_compile_options(pmpi_test_pmpi_linked PRIVATE ${FTCOLL_WARNINGS})
add_executable(pmpi_test_pmpi_alloc ${FTCOLL_MPI_TEST_DIR}/test_pmpi_alloc.c)
target_link_libraries(pmpi_test_pmpi_alloc PRIVATE ftcoll_pmpi MPI::MPI_C ${CMAKE_DL_LIBS})
target_compile_options(pmpi_test_pmpi_alloc PRIVATE ${FTCOLL_WARNINGS})

set(app_args_jacobi 120)
set(app_args_monte_carlo 10 5000)
set(app_args_heat 32 30 5)
set(app_args_census 12)
if(FTCOLL_MPI_FLAVOR STREQUAL "mpich")
  set(pmpi_compare_procs 3 4)
  set(pmpi_semantics_procs 1 2 3 4)
else()
  set(pmpi_compare_procs 4 7)
  set(pmpi_semantics_procs 1 2 3 5 8)
endif()

# ftcrun takes the launcher's flags (oversubscription) from FTCOLL_MPIRUN_ARGS.
function(pmpi_test name procs)
  add_test(NAME ${name} COMMAND ${ARGN})
  set_tests_properties(${name} PROPERTIES LABELS mpi TIMEOUT ${FTCOLL_MPI_TEST_TIMEOUT}
    PROCESSORS ${procs}
    ENVIRONMENT "${FTCOLL_MPI_TEST_ENV};FTCOLL_MPIRUN_ARGS=${launcher_args_text}")
endfunction()

foreach(app jacobi monte_carlo heat census)
  foreach(procs ${pmpi_compare_procs})
    pmpi_test(pmpi.compare.${app}.p0${procs} ${procs} ${compare}
      "${plain_text} -n ${procs}"
      "${ftcrun} -n ${procs} --"
      $<TARGET_FILE:app_${app}> ${app_args_${app}})
  endforeach()
endforeach()
set(ftcrun_launch ${ftcrun})
foreach(procs ${pmpi_semantics_procs})
  pmpi_test(pmpi.semantics.p0${procs} ${procs} ${expect_run} 0
    "pmpi p=${procs}: all checks passed" "bcast [1-9][0-9]* by ftcoll" --
    ${ftcrun_launch} -n ${procs} -- $<TARGET_FILE:pmpi_test_pmpi>)
endforeach()

foreach(procs 1 2 5)
  pmpi_test(pmpi.comms.p0${procs} ${procs} ${expect_run} 0
    "pmpi_comms p=${procs}: all checks passed" "allgather [1-9][0-9]* by ftcoll, 0 by MPI" --
    ${ftcrun_launch} -n ${procs} -- $<TARGET_FILE:pmpi_test_pmpi_comms>)
endforeach()

pmpi_test(pmpi.linked.semantics 3 ${expect_run} 0 "pmpi p=3: all checks passed" --
  ${FTCOLL_MPIEXEC} ${FTCOLL_MPIEXEC_FLAGS} -n 3 $<TARGET_FILE:pmpi_test_pmpi_linked>)
foreach(victim 0 2)
  pmpi_test(pmpi.alloc.victim${victim} 3 ${expect_run} 0
    "pmpi_alloc p=3: [1-9][0-9]* allocations failed in turn, all checks passed" --
    ${FTCOLL_MPIEXEC} ${FTCOLL_MPIEXEC_FLAGS} -n 3 $<TARGET_FILE:pmpi_test_pmpi_alloc> ${victim})
endforeach()
# the guard's settings read, agreed and its every call checked in
pmpi_test(pmpi.alloc.guarded 4 ${expect_run} 0
  "pmpi_alloc p=4: [1-9][0-9]* allocations failed in turn, all checks passed" --
  ${CMAKE_COMMAND} -E env "FTCOLL_GUARD=every=1,timeout=30"
  ${FTCOLL_MPIEXEC} ${FTCOLL_MPIEXEC_FLAGS} -n 4 $<TARGET_FILE:pmpi_test_pmpi_alloc> 1)
# a bad layer setting stops in MPI_Init: proof that the linked layer runs
pmpi_test(pmpi.linked.bad_setting 2 ${expect_run} 1
  "FTCOLL_NATIVE: unknown collective \"bcst\"" --
  ${CMAKE_COMMAND} -E env FTCOLL_NATIVE=bcst
  ${FTCOLL_MPIEXEC} ${FTCOLL_MPIEXEC_FLAGS} -n 2 $<TARGET_FILE:pmpi_test_pmpi_linked>)

pmpi_test(pmpi.guard_stop 4 ${expect_run} 71
  "MPI_Allreduce stopped on every rank at check-in 1: 1 rank\\(s\\) raised an error: rank 2: ftc_allreduce: count is negative \\(-1\\)"
  "every rank ends with exit status 71" --
  ${ftcrun_launch} -n 4 --guard every=1,timeout=30 -- $<TARGET_FILE:pmpi_test_pmpi> badarg 2)
pmpi_test(pmpi.guard_root_differs 4 ${expect_run} 71
  "MPI_Bcast stopped on every rank at check-in 1: 1 rank\\(s\\) raised an error: rank 2: passes root 3 \\(1 rank\\(s\\)\\), rank 0 root 0 \\(3\\)"
  "every rank ends with exit status 71" --
  ${ftcrun_launch} -n 4 --guard every=1,timeout=30 -- $<TARGET_FILE:pmpi_test_pmpi> rootdiffers 2)

# a launcher that outlives every rank is stopped; the program's status
# stands (the launcher kills the ranks left once one exits non-zero: those
# killed in their exit write no report, so which ranks report varies)
pmpi_test(pmpi.ftcrun.stuck_launcher 4 ${expect_run} 71
  "the launcher outlived every rank and was stopped" "non-zero exit: rank [0-3]: 71" --
  ${CMAKE_COMMAND} -E env FTCOLL_REAL_MPIRUN=${FTCOLL_MPIEXEC}
  ${ftcrun_launch} -n 4 --mpirun ${PROJECT_SOURCE_DIR}/tests/scripts/stuck_launcher.sh
  --guard every=1,timeout=30 -- $<TARGET_FILE:pmpi_test_pmpi> badarg 2)

# bad options: exit status 2, the reason
pmpi_test(pmpi.ftcrun.bad_guard 1 ${expect_run} 2 "--guard \"every=x\": " --
  ${ftcrun} -n 2 --guard every=x -- true)
pmpi_test(pmpi.ftcrun.bad_algorithm 1 ${expect_run} 2
  "unknown allgather algorithm \"rin\" \\(expected auto, linear, bruck" --
  ${ftcrun} -n 2 --algorithm allgather=rin -- true)
pmpi_test(pmpi.ftcrun.bad_gather_algorithm 1 ${expect_run} 2
  "unknown gather algorithm \"ring\" \\(expected auto \\(0\\), basic_linear" --
  ${ftcrun} -n 2 --algorithm gather=ring -- true)
pmpi_test(pmpi.ftcrun.bad_allgatherv_algorithm 1 ${expect_run} 2
  "unknown allgatherv algorithm \"recursive_doubling\" \\(expected auto \\(0\\), linear" --
  ${ftcrun} -n 2 --algorithm allgatherv=recursive_doubling -- true)
pmpi_test(pmpi.ftcrun.bad_gatherv_algorithm 1 ${expect_run} 2
  "--algorithm gatherv=\"binomial\": expected ftcoll, linear \\(its one algorithm\\) or native" --
  ${ftcrun} -n 2 --algorithm gatherv=binomial -- true)
pmpi_test(pmpi.ftcrun.bad_scatter_algorithm 1 ${expect_run} 2
  "unknown scatter algorithm \"ring\" \\(expected auto \\(0\\), basic_linear \\(1\\), binomial \\(2\\)\\)" --
  ${ftcrun} -n 2 --algorithm scatter=ring -- true)
pmpi_test(pmpi.ftcrun.bad_scatterv_algorithm 1 ${expect_run} 2
  "--algorithm scatterv=\"binomial\": expected ftcoll, linear \\(its one algorithm\\) or native" --
  ${ftcrun} -n 2 --algorithm scatterv=binomial -- true)
pmpi_test(pmpi.ftcrun.bad_reduce_algorithm 1 ${expect_run} 2
  "--algorithm reduce=\"linear\": expected ftcoll, binomial \\(its one algorithm\\) or native" --
  ${ftcrun} -n 2 --algorithm reduce=linear -- true)
pmpi_test(pmpi.ftcrun.bad_collective 1 ${expect_run} 2
  "--algorithm: unknown collective \"alltoallw\"" --
  ${ftcrun} -n 2 --algorithm alltoallw=linear -- true)
pmpi_test(pmpi.ftcrun.bad_scan_algorithm 1 ${expect_run} 2
  "--algorithm exscan=\"linear\": expected ftcoll, chain \\(its one algorithm\\) or native" --
  ${ftcrun} -n 2 --algorithm exscan=linear -- true)
pmpi_test(pmpi.ftcrun.bad_alltoall_algorithm 1 ${expect_run} 2
  "--algorithm alltoallv=\"ring\": expected ftcoll, auto, linear, pairwise, modified_bruck or native" --
  ${ftcrun} -n 2 --algorithm alltoallv=ring -- true)
pmpi_test(pmpi.ftcrun.bad_reduce_scatter_algorithm 1 ${expect_run} 2
  "--algorithm reduce_scatter=\"ring\": expected ftcoll, auto, allreduce, recursive_halving or native" --
  ${ftcrun} -n 2 --algorithm reduce_scatter=ring -- true)
pmpi_test(pmpi.ftcrun.two_alltoall_algorithms 1 ${expect_run} 2
  "alltoall and alltoallv share one algorithm setting, already \"linear\"" --
  ${ftcrun} -n 2 --algorithm alltoall=linear,alltoallv=pairwise -- true)
pmpi_test(pmpi.ftcrun.bad_ranks 1 ${expect_run} 2 "-n \"0\": expected an integer >= 1" --
  ${ftcrun} -n 0 -- true)
pmpi_test(pmpi.ftcrun.no_program 1 ${expect_run} 2 "no program to run" -- ${ftcrun} -n 2)
pmpi_test(pmpi.ftcrun.unknown_option 1 ${expect_run} 2 "unknown option \"--fast\"" --
  ${ftcrun} -n 2 --fast -- true)
pmpi_test(pmpi.ftcrun.topology_missing 1 ${expect_run} 2 "--topology: cannot open t.txt" --
  ${ftcrun} -n 2 --topology t.txt -- true)
pmpi_test(pmpi.ftcrun.topology_malformed 1 ${expect_run} 2 "--topology: line 4: .*1O" --
  ${ftcrun} -n 6 --topology ${FTCOLL_MPI_TEST_DIR}/topologies/bad.topo -- true)
pmpi_test(pmpi.ftcrun.topology_size 1 ${expect_run} 2
  "--topology: the file describes 8 rank\\(s\\), the job has 2" --
  ${ftcrun} -n 2 --topology ${FTCOLL_MPI_TEST_DIR}/topologies/eight.topo -- true)
pmpi_test(pmpi.ftcrun.bad_tree 1 ${expect_run} 2 "--tree \"check=x\": bad value 'x' for check" --
  ${ftcrun} -n 2 --tree check=x -- true)
pmpi_test(pmpi.ftcrun.bad_bcast 1 ${expect_run} 2
  "--algorithm bcast \"fast\": unknown broadcast algorithm 'fast'" --
  ${ftcrun} -n 2 --algorithm bcast=fast -- true)
pmpi_test(pmpi.ftcrun.help 1 ${expect_run} 0 "Usage: ftcrun -n N" "--spares S" "--inject SPEC"
  "--algorithm LIST" "--guard SPEC" "--topology FILE" -- ${ftcrun} --help)

# MPI_Bcast over trees on the emulated 8-rank network (adapting every 2
# broadcasts): the programs' answers unchanged, MPI's semantics kept
foreach(app jacobi heat)
  pmpi_test(pmpi.compare.${app}.topology.p08 8 ${compare}
    "${plain_text} -n 8"
    "${ftcrun} -n 8 --topology ${FTCOLL_MPI_TEST_DIR}/topologies/eight.topo --tree check=2 --"
    $<TARGET_FILE:app_${app}> ${app_args_${app}})
endforeach()
pmpi_test(pmpi.semantics.topology.p08 8 ${expect_run} 0 "pmpi p=8: all checks passed"
  "broadcast trees: [1-9][0-9]* call\\(s\\), the last over the (ecef|mst) tree" --
  ${ftcrun_launch} -n 8 --topology ${FTCOLL_MPI_TEST_DIR}/topologies/eight.topo
  --tree check=1 -- $<TARGET_FILE:pmpi_test_pmpi>)
# every MPI_Allgatherv by Bruck (its blocks in place through datatypes)
pmpi_test(pmpi.semantics.allgatherv_bruck.p05 5 ${expect_run} 0 "pmpi p=5: all checks passed"
  "allgatherv: bruck x[1-9]" --
  ${ftcrun_launch} -n 5 --algorithm allgatherv=bruck -- $<TARGET_FILE:pmpi_test_pmpi>)
# every MPI_Gather by linear_sync
pmpi_test(pmpi.semantics.gather_linear_sync.p04 4 ${expect_run} 0 "pmpi p=4: all checks passed"
  "gather: linear_sync x[1-9]" --
  ${ftcrun_launch} -n 4 --algorithm gather=linear_sync -- $<TARGET_FILE:pmpi_test_pmpi>)
pmpi_test(pmpi.semantics.gather_native.p03 3 ${expect_run} 0 "pmpi p=3: all checks passed"
  "gather 0 by ftcoll, [1-9][0-9]* by MPI" --
  ${ftcrun_launch} -n 3 --algorithm gather=native -- $<TARGET_FILE:pmpi_test_pmpi>)
# every MPI_Gatherv by ftcoll, which the summary counts
pmpi_test(pmpi.semantics.gatherv.p04 4 ${expect_run} 0 "pmpi p=4: all checks passed"
  "gatherv [1-9][0-9]* by ftcoll, 0 by MPI" --
  ${ftcrun_launch} -n 4 --algorithm gatherv=linear -- $<TARGET_FILE:pmpi_test_pmpi>)
# every MPI_Scatterv by ftcoll, which the summary counts
pmpi_test(pmpi.semantics.scatterv.p04 4 ${expect_run} 0 "pmpi p=4: all checks passed"
  "scatter [1-9][0-9]* by ftcoll, 0 by MPI; scatterv [1-9][0-9]* by ftcoll, 0 by MPI"
  "scatter: basic_linear x[1-9]" --
  ${ftcrun_launch} -n 4 --algorithm scatter=linear,scatterv=linear -- $<TARGET_FILE:pmpi_test_pmpi>)
# every MPI_Scatter down the binomial tree, whatever its size
pmpi_test(pmpi.semantics.scatter_binomial.p06 6 ${expect_run} 0 "pmpi p=6: all checks passed"
  "scatter: binomial x[1-9]" --
  ${ftcrun_launch} -n 6 --algorithm scatter=binomial -- $<TARGET_FILE:pmpi_test_pmpi>)
# every MPI_Reduce ftcoll takes (predefined types, commutative ops) by ftcoll
pmpi_test(pmpi.semantics.reduce.p04 4 ${expect_run} 0 "pmpi p=4: all checks passed"
  "reduce [1-9][0-9]* by ftcoll, [1-9][0-9]* by MPI" "reduce: binomial x[1-9]" --
  ${ftcrun_launch} -n 4 --algorithm reduce=binomial -- $<TARGET_FILE:pmpi_test_pmpi>)
# every MPI_Alltoall(v) by ftcoll, pairwise forced
pmpi_test(pmpi.semantics.alltoall.p04 4 ${expect_run} 0 "pmpi p=4: all checks passed"
  "alltoall [1-9][0-9]* by ftcoll, 0 by MPI; alltoallv [1-9][0-9]* by ftcoll, 0 by MPI"
  "alltoall\\(v\\): pairwise x[1-9]" --
  ${ftcrun_launch} -n 4 --algorithm alltoall=pairwise -- $<TARGET_FILE:pmpi_test_pmpi>)
# every MPI_Reduce_scatter(_block) by ftcoll
pmpi_test(pmpi.semantics.reduce_scatter.p04 4 ${expect_run} 0 "pmpi p=4: all checks passed"
  "reduce_scatter [1-9][0-9]* by ftcoll, 0 by MPI; reduce_scatter_block [1-9][0-9]* by ftcoll, 0 by MPI"
  "reduce_scatter\\(_block\\): allreduce x[1-9]" --
  ${ftcrun_launch} -n 4 --algorithm reduce_scatter=allreduce -- $<TARGET_FILE:pmpi_test_pmpi>)
pmpi_test(pmpi.semantics.reduce_scatter_halving.p05 5 ${expect_run} 0 "pmpi p=5: all checks passed"
  "reduce_scatter [1-9][0-9]* by ftcoll, 0 by MPI; reduce_scatter_block [1-9][0-9]* by ftcoll, 0 by MPI"
  "reduce_scatter\\(_block\\): recursive_halving x[1-9]" --
  ${ftcrun_launch} -n 5 --algorithm reduce_scatter_block=recursive_halving -- $<TARGET_FILE:pmpi_test_pmpi>)
# every MPI_Scan and MPI_Exscan by ftcoll
pmpi_test(pmpi.semantics.scan.p04 4 ${expect_run} 0 "pmpi p=4: all checks passed"
  "scan [1-9][0-9]* by ftcoll, 0 by MPI; exscan [1-9][0-9]* by ftcoll, 0 by MPI"
  "scan, exscan: chain x[1-9]" --
  ${ftcrun_launch} -n 4 --algorithm scan=chain -- $<TARGET_FILE:pmpi_test_pmpi>)
pmpi_test(pmpi.semantics.mst.p05 5 ${expect_run} 0 "pmpi p=5: all checks passed"
  "broadcast trees: [1-9][0-9]* call\\(s\\), the last over the mst tree" --
  ${ftcrun_launch} -n 5 --algorithm bcast=mst -- $<TARGET_FILE:pmpi_test_pmpi>)

if(FTCOLL_HAVE_ULFM)
  # MPI_Allgatherv left to MPI, which the summary says (Open MPI only:
  # MPICH 4.0 puts the block of a one-rank communicator at the
  # buffer's start, whatever its displacement, which the program checks)
  pmpi_test(pmpi.semantics.allgatherv_native.p03 3 ${expect_run} 0 "pmpi p=3: all checks passed"
    "allgatherv 0 by ftcoll, [1-9][0-9]* by MPI" --
    ${ftcrun_launch} -n 3 --algorithm allgatherv=native -- $<TARGET_FILE:pmpi_test_pmpi>)
  pmpi_test(pmpi.semantics.gatherv_native.p03 3 ${expect_run} 0 "pmpi p=3: all checks passed"
    "gatherv 0 by ftcoll, [1-9][0-9]* by MPI" --
    ${ftcrun_launch} -n 3 --algorithm gatherv=native -- $<TARGET_FILE:pmpi_test_pmpi>)
  pmpi_test(pmpi.semantics.scatterv_native.p03 3 ${expect_run} 0 "pmpi p=3: all checks passed"
    "scatter 0 by ftcoll, [1-9][0-9]* by MPI; scatterv 0 by ftcoll, [1-9][0-9]* by MPI" --
    ${ftcrun_launch} -n 3 --algorithm scatter=native,scatterv=native -- $<TARGET_FILE:pmpi_test_pmpi>)
  pmpi_test(pmpi.semantics.reduce_scatter_native.p03 3 ${expect_run} 0 "pmpi p=3: all checks passed"
    "reduce_scatter 0 by ftcoll, [1-9][0-9]* by MPI; reduce_scatter_block 0 by ftcoll, [1-9][0-9]* by MPI" --
    ${ftcrun_launch} -n 3 --algorithm reduce_scatter=native,reduce_scatter_block=native -- $<TARGET_FILE:pmpi_test_pmpi>)
  pmpi_test(pmpi.semantics.scan_native.p03 3 ${expect_run} 0 "pmpi p=3: all checks passed"
    "scan 0 by ftcoll, [1-9][0-9]* by MPI; exscan 0 by ftcoll, [1-9][0-9]* by MPI" --
    ${ftcrun_launch} -n 3 --algorithm scan=native,exscan=native -- $<TARGET_FILE:pmpi_test_pmpi>)
  pmpi_test(pmpi.semantics.alltoall_native.p03 3 ${expect_run} 0 "pmpi p=3: all checks passed"
    "alltoall 0 by ftcoll, [1-9][0-9]* by MPI; alltoallv 0 by ftcoll, [1-9][0-9]* by MPI" --
    ${ftcrun_launch} -n 3 --algorithm alltoall=native,alltoallv=native -- $<TARGET_FILE:pmpi_test_pmpi>)
  pmpi_test(pmpi.semantics.reduce_native.p03 3 ${expect_run} 0 "pmpi p=3: all checks passed"
    "reduce 0 by ftcoll, [1-9][0-9]* by MPI" --
    ${ftcrun_launch} -n 3 --algorithm reduce=native -- $<TARGET_FILE:pmpi_test_pmpi>)
  # the fault-tolerant broadcast's scatter + ring on every MPI_Bcast
  pmpi_test(pmpi.semantics.scatter_ring.p05 5 ${expect_run} 0 "pmpi p=5: all checks passed" --
    ${ftcrun_launch} -n 5 --algorithm bcast=scatter_ring -- $<TARGET_FILE:pmpi_test_pmpi>)
  pmpi_test(pmpi.ftcrun.bad_inject 1 ${expect_run} 2 "--inject \"kill rank=x\": " --
    ${ftcrun} -n 2 --inject "kill rank=x" -- true)
  pmpi_test(pmpi.kill.jacobi 6 ${expect_run} 0 "failures survived: rank\\(s\\) 3"
    "jacobi n=120: [0-9]+ iterations" "finished: 5 rank\\(s\\), exit status 0" --
    ${ftcrun_launch} -n 6 --inject "kill rank=3 call=8 step=1" -- $<TARGET_FILE:app_jacobi> 120)
  pmpi_test(pmpi.kill.monte_carlo 8 ${expect_run} 0 "failures survived: rank\\(s\\) 2, 5"
    "monte_carlo: [0-9]+ hits of [0-9]+ darts" "finished: 6 rank\\(s\\)" --
    ${ftcrun_launch} -n 8 --inject "kill rank=5 call=4 step=0$<SEMICOLON> kill rank=2 call=7 step=1"
    -- $<TARGET_FILE:app_monte_carlo> 10 5000)
  # census: every collective ftcoll survives in, each round (15 calls); rank
  # 3 dies entering round 2's MPI_Reduce, rank 6 in round 3's MPI_Gatherv,
  # rank 5 entering round 3's MPI_Alltoall, rank 1 entering round 5's
  # MPI_Exscan: the program's own checks pass on the survivors
  pmpi_test(pmpi.kill.census 8 ${expect_run} 0 "failures survived: rank\\(s\\) 1, 3, 5, 6"
    "census: 12 rounds, 4 of 8 ranks counted at the end: every check passed"
    "finished: 4 rank\\(s\\), exit status 0" "reduce [1-9][0-9]* by ftcoll, 0 by MPI"
    "alltoallv [1-9][0-9]* by ftcoll, 0 by MPI"
    "reduce_scatter_block [1-9][0-9]* by ftcoll, 0 by MPI"
    "exscan [1-9][0-9]* by ftcoll, 0 by MPI" --
    ${ftcrun_launch} -n 8 --inject "kill rank=3 call=20 step=0$<SEMICOLON> kill rank=6 call=34 step=1$<SEMICOLON> kill rank=5 call=38 step=0$<SEMICOLON> kill rank=1 call=73 step=0"
    -- $<TARGET_FILE:app_census> 12)
  # communicators made first, then ranks 0 and 6 die in MPI_COMM_WORLD's
  # allreduces: each communicator's first collectives, after the deaths,
  # serve its survivors
  pmpi_test(pmpi.kill.late_comms 8 ${expect_run} 0 "failures survived: rank\\(s\\) 0, 6"
    "pmpi_comms p=8: all checks passed, S=be" "finished: 6 rank\\(s\\), exit status 0" --
    ${ftcrun_launch} -n 8 --inject "kill rank=0 call=2 step=0$<SEMICOLON> kill rank=6 call=5 step=fold-in"
    -- $<TARGET_FILE:pmpi_test_pmpi_comms>)
  # heat: rank 3 dies in its collective phase; the allgather goes on over
  # the survivors and rank 3's block keeps the program's -1
  pmpi_test(pmpi.kill.heat_collectives 6 ${expect_run} 0 "failures survived: rank\\(s\\) 3"
    "heat by rank: [0-9. ]+ -1.000000 [0-9. ]+$" "recoveries: [1-9][0-9]* recovery round" --
    ${ftcrun_launch} -n 6 --algorithm allgather=ring --inject "kill rank=3 call=33 step=0"
    -- $<TARGET_FILE:app_heat> 32 30 5)
  # heat: rank 3 dies while neighbours still exchange halos with it: their
  # MPI_Sendrecv fails (MPI's error, documented), the job ends, no hang
  pmpi_test(pmpi.kill.heat_point_to_point 6 ${expect_run} nonzero "MPI_ERR_PROC_FAILED" --
    ${ftcrun_launch} -n 6 --inject "kill rank=3 call=10 step=0" -- $<TARGET_FILE:app_heat> 32 30 5)
endif()

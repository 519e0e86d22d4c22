# External-kill torture (ULFM only; tests/torture/README.md). Included from
# tests/CMakeLists.txt.
#
#   torture_api    ftc_allreduce (or ftc_bcast, ftc_allgather(v), ftc_gather(v), ftc_scatter(v),
#                  ftc_reduce, ftc_alltoall(v), ftc_reduce_scatter(_block),
#                  ftc_scan and ftc_exscan)
#                  through ftcoll's
#                  API, every element checked
#   torture_pmpi   a plain MPI program, for ftcrun (the PMPI layer)
#   torture.py     the driver: SIGKILLs ranks by pid from outside at random
#                  instants, judges every job, ends with a table per p and
#                  "torture: N passed, M failed" (exit status 0: all correct)
#
# torture.bounded (label torture) runs FTCOLL_TORTURE_JOBS jobs over p = 2..16
# (about 2 s a job on two cores when nothing hangs; a hang costs the job's
# time limit), torture.bcast_trees a third as many broadcasts over the
# network trees (FTCOLL_BCAST), torture.allgather, torture.allgatherv, torture.gather,
# torture.gatherv, torture.scatterv, torture.reduce, torture.alltoall,
# torture.alltoallv, torture.reduce_scatter and torture.scan a third as
# many each of back-to-back allgathers, allgathervs, gathers, gathervs,
# scatter(v)s, reduces, alltoalls, alltoallvs, reduce_scatter(_block)s
# and scans and exscans.
# `make torture TORTURE_JOBS=1000` runs a long one.
if(NOT FTCOLL_HAVE_ULFM)
  return()
endif()

set(FTCOLL_TORTURE_JOBS 100 CACHE STRING "Jobs of the torture.bounded test")
set(FTCOLL_TORTURE_SEED 1 CACHE STRING
  "Seed of the torture.bounded test (its kill plans; the instants also depend on timing)")
set(FTCOLL_TORTURE_TIME_LIMIT 20 CACHE STRING
  "Seconds a torture job may run past twice its failure-free time before it counts as a hang")

set(torture_dir ${CMAKE_CURRENT_LIST_DIR})
add_executable(torture_api ${torture_dir}/torture_api.c ${torture_dir}/torture_launch.c
  ${torture_dir}/torture_digest.c)
target_link_libraries(torture_api PRIVATE ftcoll_static)
target_compile_options(torture_api PRIVATE ${FTCOLL_WARNINGS})
# No ftcoll here: an unmodified MPI program, ftcoll comes with ftcrun.
add_executable(torture_pmpi ${torture_dir}/torture_pmpi.c ${torture_dir}/torture_launch.c
  ${torture_dir}/torture_digest.c)
target_link_libraries(torture_pmpi PRIVATE MPI::MPI_C)
target_compile_options(torture_pmpi PRIVATE ${FTCOLL_WARNINGS})

add_test(NAME torture.bounded
  COMMAND ${torture_dir}/torture.py --jobs ${FTCOLL_TORTURE_JOBS} --seed ${FTCOLL_TORTURE_SEED}
          --time-limit ${FTCOLL_TORTURE_TIME_LIMIT} --build ${PROJECT_BINARY_DIR}
          --mpi-prefix ${FTCOLL_MPI_PREFIX_DIR}
          --keep-logs ${CMAKE_CURRENT_BINARY_DIR}/torture-logs)
math(EXPR torture_allgather_jobs "${FTCOLL_TORTURE_JOBS} / 3")
add_test(NAME torture.allgather
  COMMAND ${torture_dir}/torture.py --jobs ${torture_allgather_jobs}
          --seed ${FTCOLL_TORTURE_SEED} --collective allgather
          --time-limit ${FTCOLL_TORTURE_TIME_LIMIT} --build ${PROJECT_BINARY_DIR}
          --mpi-prefix ${FTCOLL_MPI_PREFIX_DIR}
          --keep-logs ${CMAKE_CURRENT_BINARY_DIR}/torture-logs-allgather)
add_test(NAME torture.allgatherv
  COMMAND ${torture_dir}/torture.py --jobs ${torture_allgather_jobs}
          --seed ${FTCOLL_TORTURE_SEED} --collective allgatherv
          --time-limit ${FTCOLL_TORTURE_TIME_LIMIT} --build ${PROJECT_BINARY_DIR}
          --mpi-prefix ${FTCOLL_MPI_PREFIX_DIR}
          --keep-logs ${CMAKE_CURRENT_BINARY_DIR}/torture-logs-allgatherv)
add_test(NAME torture.bcast_trees
  COMMAND ${torture_dir}/torture.py --jobs ${torture_allgather_jobs}
          --seed ${FTCOLL_TORTURE_SEED} --collective bcast --bcast-trees 1.0
          --time-limit ${FTCOLL_TORTURE_TIME_LIMIT} --build ${PROJECT_BINARY_DIR}
          --mpi-prefix ${FTCOLL_MPI_PREFIX_DIR}
          --keep-logs ${CMAKE_CURRENT_BINARY_DIR}/torture-logs-bcast-trees)
add_test(NAME torture.gather
  COMMAND ${torture_dir}/torture.py --jobs ${torture_allgather_jobs}
          --seed ${FTCOLL_TORTURE_SEED} --collective gather
          --time-limit ${FTCOLL_TORTURE_TIME_LIMIT} --build ${PROJECT_BINARY_DIR}
          --mpi-prefix ${FTCOLL_MPI_PREFIX_DIR}
          --keep-logs ${CMAKE_CURRENT_BINARY_DIR}/torture-logs-gather)
add_test(NAME torture.gatherv
  COMMAND ${torture_dir}/torture.py --jobs ${torture_allgather_jobs}
          --seed ${FTCOLL_TORTURE_SEED} --collective gatherv
          --time-limit ${FTCOLL_TORTURE_TIME_LIMIT} --build ${PROJECT_BINARY_DIR}
          --mpi-prefix ${FTCOLL_MPI_PREFIX_DIR}
          --keep-logs ${CMAKE_CURRENT_BINARY_DIR}/torture-logs-gatherv)
add_test(NAME torture.scatterv
  COMMAND ${torture_dir}/torture.py --jobs ${torture_allgather_jobs}
          --seed ${FTCOLL_TORTURE_SEED} --collective scatterv
          --time-limit ${FTCOLL_TORTURE_TIME_LIMIT} --build ${PROJECT_BINARY_DIR}
          --mpi-prefix ${FTCOLL_MPI_PREFIX_DIR}
          --keep-logs ${CMAKE_CURRENT_BINARY_DIR}/torture-logs-scatterv)
add_test(NAME torture.reduce
  COMMAND ${torture_dir}/torture.py --jobs ${torture_allgather_jobs}
          --seed ${FTCOLL_TORTURE_SEED} --collective reduce
          --time-limit ${FTCOLL_TORTURE_TIME_LIMIT} --build ${PROJECT_BINARY_DIR}
          --mpi-prefix ${FTCOLL_MPI_PREFIX_DIR}
          --keep-logs ${CMAKE_CURRENT_BINARY_DIR}/torture-logs-reduce)
add_test(NAME torture.alltoall
  COMMAND ${torture_dir}/torture.py --jobs ${torture_allgather_jobs}
          --seed ${FTCOLL_TORTURE_SEED} --collective alltoall
          --time-limit ${FTCOLL_TORTURE_TIME_LIMIT} --build ${PROJECT_BINARY_DIR}
          --mpi-prefix ${FTCOLL_MPI_PREFIX_DIR}
          --keep-logs ${CMAKE_CURRENT_BINARY_DIR}/torture-logs-alltoall)
add_test(NAME torture.alltoallv
  COMMAND ${torture_dir}/torture.py --jobs ${torture_allgather_jobs}
          --seed ${FTCOLL_TORTURE_SEED} --collective alltoallv
          --time-limit ${FTCOLL_TORTURE_TIME_LIMIT} --build ${PROJECT_BINARY_DIR}
          --mpi-prefix ${FTCOLL_MPI_PREFIX_DIR}
          --keep-logs ${CMAKE_CURRENT_BINARY_DIR}/torture-logs-alltoallv)
add_test(NAME torture.reduce_scatter
  COMMAND ${torture_dir}/torture.py --jobs ${torture_allgather_jobs}
          --seed ${FTCOLL_TORTURE_SEED} --collective reduce_scatter
          --time-limit ${FTCOLL_TORTURE_TIME_LIMIT} --build ${PROJECT_BINARY_DIR}
          --mpi-prefix ${FTCOLL_MPI_PREFIX_DIR}
          --keep-logs ${CMAKE_CURRENT_BINARY_DIR}/torture-logs-reduce_scatter)
add_test(NAME torture.scan
  COMMAND ${torture_dir}/torture.py --jobs ${torture_allgather_jobs}
          --seed ${FTCOLL_TORTURE_SEED} --collective scan
          --time-limit ${FTCOLL_TORTURE_TIME_LIMIT} --build ${PROJECT_BINARY_DIR}
          --mpi-prefix ${FTCOLL_MPI_PREFIX_DIR}
          --keep-logs ${CMAKE_CURRENT_BINARY_DIR}/torture-logs-scan)
# Every job oversubscribes both cores and runs against a time limit, and
# the calibration times failure-free runs: nothing else runs beside it.
set_tests_properties(torture.bounded torture.bcast_trees torture.allgather torture.allgatherv
                     torture.gather
                     torture.gatherv torture.scatterv torture.reduce torture.alltoall
                     torture.alltoallv torture.reduce_scatter torture.scan
  PROPERTIES
  LABELS torture
  TIMEOUT 900
  RUN_SERIAL ON
  ENVIRONMENT "${FTCOLL_TEST_ENV}")

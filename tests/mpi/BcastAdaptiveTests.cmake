# Tree broadcasts (docs/mst-bcast.md): every algorithm over the 8-rank
# emulated topology whose scheduled changes make the MST adapt (a cut, a
# swap, a recovery), the MST on the real network, the thesis's 24-rank
# network, and bad inputs. Every element of every broadcast is checked on
# every rank (test_bcast_adaptive.c).
set(FTCOLL_BCAST_ADAPTIVE_OK "tree bcast OK")
set(ftcoll_topologies ${FTCOLL_MPI_TEST_DIR}/topologies)
set(ftcoll_thesis ${PROJECT_SOURCE_DIR}/topologies/thesis-table-4.1.topo)

function(ftcoll_bcast_adaptive_tests label library)
  ftcoll_mpi_program(${label}_test_bcast_adaptive test_bcast_adaptive.c ${library} ${ARGN})
  set(prog ${label}_test_bcast_adaptive)
  set(eight ${ftcoll_topologies}/eight.topo)
  foreach(case "binomial;check=0" "two-level;check=0" "mst;check=0" "mst;check=1"
               "ecef;check=2" "tree;check=1" "mst;check=1,smooth=0.5")
    list(GET case 0 alg)
    list(GET case 1 settings)
    string(REGEX REPLACE "[=,.]" "" tag "${settings}")
    ftcoll_mpi_test(${label}.bcast_adaptive.${alg}.${tag}.p08 8 ${prog} LABEL ${label}
      EXPECT "${FTCOLL_BCAST_ADAPTIVE_OK}" ARGS ${alg} ${settings} ${eight} 1)
  endforeach()
  ftcoll_mpi_test(${label}.bcast_adaptive.mst.cliques.p08 8 ${prog} LABEL ${label}
    EXPECT "${FTCOLL_BCAST_ADAPTIVE_OK}" ARGS mst check=1,probe=cliques,threshold=50 ${eight} 1)
  # no topology: the real network's latencies, the hosts as sites
  foreach(alg mst two-level tree)
    ftcoll_mpi_test(${label}.bcast_adaptive.${alg}.real.p05 5 ${prog} LABEL ${label}
      EXPECT "${FTCOLL_BCAST_ADAPTIVE_OK}" ARGS ${alg} check=2 - 2)
  endforeach()
  foreach(what root settings disagree)
    ftcoll_mpi_test(${label}.bcast_adaptive.bad_${what} 4 ${prog} LABEL ${label}
      EXPECT "bad input OK" ARGS --bad ${what} -)
  endforeach()
  ftcoll_mpi_test(${label}.bcast_adaptive.bad_topology 3 ${prog} LABEL ${label}
    EXPECT "line 4: .*1O" ARGS --bad topology ${ftcoll_topologies}/bad.topo)
  ftcoll_mpi_test(${label}.bcast_adaptive.bad_topology_size 4 ${prog} LABEL ${label}
    EXPECT "bad input OK" ARGS --bad disagree ${eight})
endfunction()

ftcoll_bcast_adaptive_tests(mpi ftcoll_static)
# The thesis's network, 24 ranks, adapting at every broadcast.
ftcoll_mpi_test(mpi.bcast_adaptive.thesis.p24 24 mpi_test_bcast_adaptive
  EXPECT "${FTCOLL_BCAST_ADAPTIVE_OK}" ARGS tree check=1 ${ftcoll_thesis} 1)
if(FTCOLL_SANITIZERS)
  ftcoll_mpi_program(asan_test_bcast_adaptive test_bcast_adaptive.c ftcoll_asan SANITIZED)
  ftcoll_mpi_test(asan.bcast_adaptive.mst.check1.p08 8 asan_test_bcast_adaptive LABEL asan
    EXPECT "${FTCOLL_BCAST_ADAPTIVE_OK}" ENV ${FTCOLL_ASAN_ENV}
    ARGS mst check=1 ${ftcoll_topologies}/eight.topo 1)
endif()
# Every rank under memcheck: measuring, GHS, adapting to the real network's
# changes at every broadcast, the trees (as the valgrind runs of MpiTests).
if(FTCOLL_VALGRIND AND VALGRIND)
  ftcoll_mpi_test(valgrind.bcast_adaptive.mst.p03 3 mpi_test_bcast_adaptive LABEL valgrind
    EXPECT "${FTCOLL_BCAST_ADAPTIVE_OK}" LAUNCH_WRAPPER ${ftcoll_memcheck} ARGS mst check=1 - 1)
endif()

# What MPI we build against, and how to launch tests with it.
#
# Sets:
#   FTCOLL_MPI_FLAVOR      "openmpi" or "mpich"
#   FTCOLL_HAVE_ULFM       ON when MPI offers ULFM (MPIX_Comm_shrink)
#   FTCOLL_MPIEXEC         the launcher
#   FTCOLL_MPIEXEC_FLAGS   flags for every test launch (ULFM, oversubscription)
#   FTCOLL_MPI_DEFINITIONS compile definitions for the library
include(CheckSymbolExists)

set(CMAKE_REQUIRED_INCLUDES ${MPI_C_INCLUDE_DIRS})
set(CMAKE_REQUIRED_LIBRARIES MPI::MPI_C)
check_symbol_exists(OPEN_MPI "mpi.h" FTCOLL_IS_OPEN_MPI)
# Only Open MPI's ULFM extension is trusted to survive a killed rank: MPICH
# declares MPIX_Comm_shrink too, but Debian's build cannot recover.
if(FTCOLL_IS_OPEN_MPI)
  check_symbol_exists(OMPI_HAVE_MPI_EXT_FTMPI "mpi.h;mpi-ext.h" FTCOLL_HAVE_ULFM_EXT)
endif()
unset(CMAKE_REQUIRED_INCLUDES)
unset(CMAKE_REQUIRED_LIBRARIES)

if(FTCOLL_IS_OPEN_MPI)
  set(FTCOLL_MPI_FLAVOR openmpi)
else()
  set(FTCOLL_MPI_FLAVOR mpich)
endif()
if(FTCOLL_HAVE_ULFM_EXT)
  set(FTCOLL_HAVE_ULFM ON)
  list(APPEND FTCOLL_MPI_DEFINITIONS FTCOLL_HAVE_ULFM=1)
else()
  set(FTCOLL_HAVE_ULFM OFF)
endif()

set(FTCOLL_MPIEXEC ${MPIEXEC_EXECUTABLE})
set(FTCOLL_MPIEXEC_FLAGS "")
if(FTCOLL_MPI_FLAVOR STREQUAL "openmpi")
  list(APPEND FTCOLL_MPIEXEC_FLAGS --oversubscribe --bind-to none)
  if(FTCOLL_HAVE_ULFM)
    list(APPEND FTCOLL_MPIEXEC_FLAGS --with-ft ulfm)
  endif()
endif()
# A relocated Open MPI tree (such as the ULFM one scripts/install-mpi.sh
# unpacks) must be told where it lives; tests get this environment too.
set(FTCOLL_MPI_RUN_ENV "")
get_filename_component(FTCOLL_MPI_PREFIX_DIR "${MPIEXEC_EXECUTABLE}" DIRECTORY)
get_filename_component(FTCOLL_MPI_PREFIX_DIR "${FTCOLL_MPI_PREFIX_DIR}" DIRECTORY)
if(FTCOLL_MPI_FLAVOR STREQUAL "openmpi" AND NOT FTCOLL_MPI_PREFIX_DIR STREQUAL "/usr"
   AND EXISTS "${FTCOLL_MPI_PREFIX_DIR}/lib")
  set(library_path ${FTCOLL_MPI_PREFIX_DIR}/lib)
  if(DEFINED ENV{LD_LIBRARY_PATH} AND NOT "$ENV{LD_LIBRARY_PATH}" STREQUAL "")
    string(APPEND library_path ":$ENV{LD_LIBRARY_PATH}")
  endif()
  set(FTCOLL_MPI_RUN_ENV
      OPAL_PREFIX=${FTCOLL_MPI_PREFIX_DIR} PRTE_PREFIX=${FTCOLL_MPI_PREFIX_DIR}
      PMIX_PREFIX=${FTCOLL_MPI_PREFIX_DIR} LD_LIBRARY_PATH=${library_path})
endif()

message(STATUS "ftcoll: MPI ${FTCOLL_MPI_FLAVOR}, ULFM ${FTCOLL_HAVE_ULFM}, "
               "launcher ${FTCOLL_MPIEXEC} ${FTCOLL_MPIEXEC_FLAGS}")

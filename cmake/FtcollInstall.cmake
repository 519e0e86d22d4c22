# What `cmake --install` (make install PREFIX=...) puts where, and the Debian
# package `cpack` (make package) makes of it. Everything installed is
# relocatable: the CMake package, the pkg-config files and ftcrun find the rest
# of the tree from where they lie, so the tree may be moved after installing.
#
#   bin/       ftcrun, ftcrun-check
#   include/   ftcoll.h
#   LIBDIR/    libftcoll.so, libftcoll.a, libftcoll-pmpi.so
#   LIBDIR/cmake/ftcoll/   ftcollConfig.cmake (+ Version, Targets)
#   LIBDIR/pkgconfig/      ftcoll.pc, ftcoll-pmpi.pc
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

# The installed files find each other by relative paths, which an absolute
# directory would break.
foreach(dir LIBDIR BINDIR INCLUDEDIR)
  if(IS_ABSOLUTE "${CMAKE_INSTALL_${dir}}")
    message(FATAL_ERROR "CMAKE_INSTALL_${dir}=${CMAKE_INSTALL_${dir}}: ftcoll's installed tree "
                        "is relocatable and needs it relative to the prefix (e.g. lib, lib64)")
  endif()
endforeach()

# The C++ wrapper of the same MPI, for projects that also use MPI::MPI_CXX.
string(REGEX REPLACE "mpicc([^/]*)$" "mpicxx\\1" FTCOLL_MPI_CXX_COMPILER "${MPI_C_COMPILER}")
if(FTCOLL_MPI_CXX_COMPILER STREQUAL MPI_C_COMPILER OR NOT EXISTS "${FTCOLL_MPI_CXX_COMPILER}")
  set(FTCOLL_MPI_CXX_COMPILER "")
endif()

set(FTCOLL_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/ftcoll)
set(FTCOLL_PKGCONFIG_DIR ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

set_target_properties(ftcoll_shared PROPERTIES EXPORT_NAME ftcoll)
set_target_properties(ftcoll_static PROPERTIES EXPORT_NAME ftcoll_static)
set_target_properties(ftcoll_pmpi PROPERTIES EXPORT_NAME pmpi)
install(TARGETS ftcoll_shared ftcoll_static ftcoll_pmpi EXPORT ftcollTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(TARGETS ftcrun-check RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(PROGRAMS ${CMAKE_CURRENT_BINARY_DIR}/ftcrun DESTINATION ${CMAKE_INSTALL_BINDIR})
install(FILES include/ftcoll.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})

# --- the CMake package -------------------------------------------------------
install(EXPORT ftcollTargets NAMESPACE ftcoll:: DESTINATION ${FTCOLL_CMAKE_DIR})
configure_package_config_file(cmake/ftcollConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/ftcollConfig.cmake
  INSTALL_DESTINATION ${FTCOLL_CMAKE_DIR})
# 0.x: a minor version may change the interface, so only the same minor matches.
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/ftcollConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/ftcollConfig.cmake
              ${CMAKE_CURRENT_BINARY_DIR}/ftcollConfigVersion.cmake
  DESTINATION ${FTCOLL_CMAKE_DIR})

# --- pkg-config: the prefix is found from the .pc file's own directory -------
file(RELATIVE_PATH FTCOLL_PC_PREFIX_FROM_PCDIR /prefix/${FTCOLL_PKGCONFIG_DIR} /prefix)
if(FTCOLL_HAVE_ULFM)
  set(FTCOLL_PC_ULFM yes)
else()
  set(FTCOLL_PC_ULFM no)
endif()
foreach(pc ftcoll ftcoll-pmpi)
  configure_file(cmake/${pc}.pc.in ${CMAKE_CURRENT_BINARY_DIR}/${pc}.pc @ONLY)
  install(FILES ${CMAKE_CURRENT_BINARY_DIR}/${pc}.pc DESTINATION ${FTCOLL_PKGCONFIG_DIR})
endforeach()

# --- the Debian package (make package) -----------------------------------------
# Depends is written here, not found by dpkg-shlibdeps: the ULFM Open MPI that
# ftcoll is built with usually lives outside dpkg's knowledge.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME ftcoll)
set(CPACK_PACKAGE_VENDOR ftcoll)
set(CPACK_PACKAGE_CONTACT "ftcoll maintainers <ftcoll@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "Resilient, adaptive MPI collectives")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION libdevel)
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS ON)   # shlibs + the ldconfig trigger
set(CPACK_STRIP_FILES ON)
set(FTCOLL_DEB_DEPENDS "libc6 (>= 2.34)")
if(FTCOLL_MPI_FLAVOR STREQUAL "mpich" AND FTCOLL_MPI_PREFIX_DIR STREQUAL "/usr")
  string(APPEND FTCOLL_DEB_DEPENDS ", libmpich12, libmpich-dev, mpich")
  set(FTCOLL_DEB_MPI "Debian's MPICH (no failure survival)")
elseif(FTCOLL_MPI_PREFIX_DIR STREQUAL "/usr")
  string(APPEND FTCOLL_DEB_DEPENDS ", libopenmpi3, libopenmpi-dev, openmpi-bin")
  set(FTCOLL_DEB_MPI "Debian's Open MPI")
else()
  set(FTCOLL_DEB_MPI "the ${FTCOLL_MPI_FLAVOR} (ULFM ${FTCOLL_HAVE_ULFM}) in\n${FTCOLL_MPI_PREFIX_DIR}; put its lib/ on LD_LIBRARY_PATH")
endif()
set(CPACK_DEBIAN_PACKAGE_DEPENDS "${FTCOLL_DEB_DEPENDS}")
set(CPACK_PACKAGE_DESCRIPTION
  "ftcoll: MPI collectives that survive process failures (ULFM), choose their
algorithm, never hang on errors and adapt their trees to the network, with a
PMPI layer and the ftcrun launcher for unmodified programs.
Built for ${FTCOLL_DEB_MPI}.")
include(CPack)

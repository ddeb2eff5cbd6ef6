#===- cmake/Install.cmake - cmake --install and the Debian package -------===#
#
# `cmake --install build --prefix PREFIX` lays out (GNUInstallDirs):
#   bin/                      tacclc, taccl-bench, taccl-profile
#   lib/                      libtaccl-nccl.so, the NCCL drop-in (CUDA
#                             builds only: without CUDA it can only forward)
#   lib/tacclc/               tacclc-simgrid.so, the SimGrid engines, loaded
#                             by the binaries from their own path when used
#   share/tacclc/stdlib/      the standard library (stdlib-sketches/); the
#                             binaries find it from their own path
#                             (support/Stdlib.h), so PREFIX can be anywhere
#   share/tacclc/editors/vscode/  the VS Code extension's files
#   share/doc/tacclc/         README.md and docs/*.md
# `cpack -G DEB` in the build directory packages the same tree under /usr;
# dpkg-shlibdeps, where present, fills in the Debian libraries the binaries
# link (CBC, ANTLR runtime, fmt, pugixml, ...). CUDA and NCCL are not
# Debian packages: their libraries are not named in the dependencies, and
# the installed files that link them keep the CUDA library directory as
# their RPATH.
#
#===----------------------------------------------------------------------===#
set(_tacclc_programs tacclc taccl-bench taccl-profile)
install(TARGETS ${_tacclc_programs}
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
if(TARGET tacclc_simgrid)
  install(TARGETS tacclc_simgrid
          LIBRARY DESTINATION ${TACCLC_INSTALL_MODULEDIR})
endif()
if(TACCLC_HAVE_CUDA)
  install(TARGETS taccl-nccl LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
  set_target_properties(${_tacclc_programs} taccl-nccl PROPERTIES
    INSTALL_RPATH "${CUDAToolkit_LIBRARY_DIR}")
endif()

install(DIRECTORY ${PROJECT_SOURCE_DIR}/stdlib-sketches/
        DESTINATION ${TACCLC_INSTALL_STDLIBDIR}
        FILES_MATCHING PATTERN "*.sketch")
install(DIRECTORY ${PROJECT_SOURCE_DIR}/editors/vscode/
        DESTINATION ${CMAKE_INSTALL_DATADIR}/tacclc/editors/vscode
        PATTERN node_modules EXCLUDE
        PATTERN test EXCLUDE
        PATTERN "*.vsix" EXCLUDE)
install(FILES ${PROJECT_SOURCE_DIR}/README.md
        DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/
        DESTINATION ${CMAKE_INSTALL_DOCDIR}/docs
        FILES_MATCHING PATTERN "*.md")

# The Debian package.
set(TACCLC_DEB_MAINTAINER "tacclc <dev@tacclc>" CACHE STRING
    "Maintainer field of the Debian package")
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME tacclc)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT ${TACCLC_DEB_MAINTAINER})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "Compiler from communication sketches to MSCCL XML collective algorithms")
set(CPACK_PACKAGE_DESCRIPTION
    "tacclc synthesises collective communication algorithms (TACCL-style) \
from communication sketches with a MILP, proves them and writes TACCL-EF \
(MSCCL XML); with a checker, a CPU executor, a simulator, a benchmark \
harness, a topology profiler, its standard library of machines and an NCCL \
drop-in library where built with CUDA.")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON) # debug info stays in the build tree
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_MAINTAINER ${TACCLC_DEB_MAINTAINER})
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
find_program(TACCLC_DPKG_SHLIBDEPS dpkg-shlibdeps)
if(TACCLC_DPKG_SHLIBDEPS)
  set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
else()
  # Debian 12's packages of the shared libraries the binaries link (LLVM
  # Support is linked statically).
  set(CPACK_DEBIAN_PACKAGE_DEPENDS "libc6, libstdc++6, libgcc-s1, \
libtinfo6, coinor-libcbc3, coinor-libclp1, coinor-libcoinutils3v5, \
libantlr4-runtime4.9, libfmt9, libpugixml1v5")
  if(SIMGRID_FOUND)
    string(APPEND CPACK_DEBIAN_PACKAGE_DEPENDS
           ", libsimgrid${SIMGRID_VERSION}")
  endif()
endif()
include(CPack)

#===- cmake/Dependencies.cmake - third-party packages --------------------===#
#
# Finds every dependency from Debian packages (see scripts/bootstrap) and wraps
# the ones whose imported targets lack include directories. LLVM and ANTLR
# headers are SYSTEM so that -Wextra stays quiet about them.
#
#===----------------------------------------------------------------------===#
find_package(PkgConfig REQUIRED)
pkg_check_modules(CBC REQUIRED IMPORTED_TARGET cbc)
# bliss: graph automorphisms (`symmetry auto`, ir/Automorphisms.h).
pkg_check_modules(BLISS REQUIRED IMPORTED_TARGET libbliss-cxx)
find_package(fmt 9 REQUIRED CONFIG)
find_package(doctest 2.4 REQUIRED CONFIG)
find_package(pugixml REQUIRED CONFIG)
find_package(Threads REQUIRED)

find_package(LLVM 14 REQUIRED CONFIG)
llvm_map_components_to_libnames(TACCLC_LLVM_LIBS support)
add_library(tacclc_llvm INTERFACE)
target_link_libraries(tacclc_llvm INTERFACE ${TACCLC_LLVM_LIBS})
target_include_directories(tacclc_llvm SYSTEM INTERFACE ${LLVM_INCLUDE_DIRS})
separate_arguments(_tacclc_llvm_defs NATIVE_COMMAND "${LLVM_DEFINITIONS}")
target_compile_definitions(tacclc_llvm INTERFACE ${_tacclc_llvm_defs})

find_package(antlr4-runtime 4.9 REQUIRED CONFIG)
add_library(tacclc_antlr4 INTERFACE)
target_link_libraries(tacclc_antlr4 INTERFACE antlr4_shared) # needs uuid-dev
target_include_directories(tacclc_antlr4 SYSTEM INTERFACE ${ANTLR4_INCLUDE_DIR})
find_package(Java 11 REQUIRED COMPONENTS Runtime)
find_program(ANTLR4_TOOL antlr4 REQUIRED) # /usr/bin/antlr4 wrapper, not java -jar

# CUDA and NCCL are optional: off when nvcc is absent.
set(TACCLC_HAVE_CUDA OFF)
if(TACCLC_ENABLE_CUDA)
  include(CheckLanguage)
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
      set(CMAKE_CUDA_ARCHITECTURES 90) # H100/H200
    endif()
    set(CMAKE_CUDA_RUNTIME_LIBRARY Shared) # avoid linking cudart twice
    enable_language(CUDA)
    find_package(CUDAToolkit REQUIRED)
    find_path(NCCL_INCLUDE_DIR nccl.h HINTS ${CUDAToolkit_INCLUDE_DIRS}
              ENV NCCL_HOME PATH_SUFFIXES include)
    find_library(NCCL_LIBRARY nccl HINTS ${CUDAToolkit_LIBRARY_DIR}
                 ENV NCCL_HOME PATH_SUFFIXES lib lib64)
    # The NCCL runtime and libtaccl-nccl use NCCL 2.28's device API
    # (symmetric windows, ncclTeamLsa, ncclGetPeerPointer).
    set(TACCLC_NCCL_VERSION 0)
    if(NCCL_INCLUDE_DIR)
      file(STRINGS ${NCCL_INCLUDE_DIR}/nccl.h _nccl_defs
           REGEX "^#define NCCL_(MAJOR|MINOR|PATCH) +[0-9]+")
      string(REGEX REPLACE ".*NCCL_MAJOR +([0-9]+).*NCCL_MINOR +([0-9]+).*NCCL_PATCH +([0-9]+).*"
             "\\1.\\2.\\3" TACCLC_NCCL_VERSION "${_nccl_defs}")
    endif()
    if(NCCL_INCLUDE_DIR AND NCCL_LIBRARY
       AND TACCLC_NCCL_VERSION VERSION_LESS 2.28)
      message(STATUS "tacclc: nccl.h is NCCL ${TACCLC_NCCL_VERSION}, older "
                     "than 2.28; CUDA runtime off")
    elseif(NCCL_INCLUDE_DIR AND NCCL_LIBRARY)
      add_library(tacclc_nccl UNKNOWN IMPORTED)
      set_target_properties(tacclc_nccl PROPERTIES
        IMPORTED_LOCATION ${NCCL_LIBRARY}
        INTERFACE_INCLUDE_DIRECTORIES ${NCCL_INCLUDE_DIR})
      set(TACCLC_HAVE_CUDA ON)
      message(STATUS "tacclc: CUDA ${CUDAToolkit_VERSION} and NCCL "
                     "${TACCLC_NCCL_VERSION} found; building the CUDA runtime")
    else()
      message(STATUS "tacclc: nvcc found but NCCL missing; CUDA runtime off")
    endif()
  else()
    message(STATUS "tacclc: nvcc not found; building without CUDA")
  endif()
endif()

# Shared build settings and helpers for every hashlab module.

# Warnings for host code; device code gets nvcc's defaults plus line info for compute-sanitizer.
set(HASHLAB_CXX_FLAGS -Wall -Wextra)
set(HASHLAB_CUDA_FLAGS --extended-lambda --expt-relaxed-constexpr -lineinfo
    -Xcompiler=-Wall --Werror=cross-execution-space-call)

function(hashlab_compile_options target)
  target_compile_options(${target} PRIVATE
    $<$<COMPILE_LANGUAGE:CXX>:${HASHLAB_CXX_FLAGS}>
    $<$<COMPILE_LANGUAGE:CUDA>:${HASHLAB_CUDA_FLAGS}>)
endfunction()

# hashlab_add_experiments(<paper> <sources...>): the paper's registered experiments and demo, an
# object library that the `hashlab` CLI links (static registration needs the objects, not an
# archive the linker may drop).
set_property(GLOBAL PROPERTY HASHLAB_EXPERIMENT_TARGETS "")
function(hashlab_add_experiments name)
  set(target hashlab_${name}_experiments)
  add_library(${target} OBJECT ${ARGN})
  hashlab_compile_options(${target})
  target_link_libraries(${target} PUBLIC hashlab_harness)
  set_property(GLOBAL APPEND PROPERTY HASHLAB_EXPERIMENT_TARGETS ${target})
endfunction()

# hashlab_add_tests(<name> <sources...> LIBS <libs...>): one GoogleTest binary per module, each
# test its own CTest entry. GPU tests call GTEST_SKIP() without a device; CTest shows them as
# skipped (not passed) through the skip pattern.
#
# Tests run in parallel (`make test`: ctest -j), all on the one GPU. Two kinds of suite must not
# share it, and carry ctest's RUN_SERIAL, so that each runs alone whatever -j says
# (docs/design.md, "Tests"):
#   *Large       GBs of device memory each (parallel ones would run each other out of memory);
#   *Exclusive   reads or changes what the whole device shares: cudaMemGetInfo's free memory, the
#                pool's blocks against it, the rates `hashlab probe` measures.
set(HASHLAB_SERIAL_SUITES "*Large.*:*Exclusive.*")
function(hashlab_add_tests name)
  cmake_parse_arguments(ARG "" "" "LIBS" ${ARGN})
  set(target ${name}_tests)
  add_executable(${target} ${ARG_UNPARSED_ARGUMENTS})
  hashlab_compile_options(${target})
  target_link_libraries(${target} PRIVATE ${ARG_LIBS} hashlab_testing GTest::gtest_main)
  # gtest prints "[  SKIPPED ]"; the pattern avoids brackets, which newer CMake versions mangle
  # inside the generated discovery script.
  gtest_discover_tests(${target}
    DISCOVERY_MODE PRE_TEST
    DISCOVERY_TIMEOUT 60
    TEST_FILTER "*-${HASHLAB_SERIAL_SUITES}"
    PROPERTIES SKIP_REGULAR_EXPRESSION "  SKIPPED "
               LABELS ${name}
               ENVIRONMENT "HASHLAB_BINARY_DIR=${CMAKE_BINARY_DIR}")
  gtest_discover_tests(${target}
    DISCOVERY_MODE PRE_TEST
    DISCOVERY_TIMEOUT 60
    TEST_FILTER "${HASHLAB_SERIAL_SUITES}"
    PROPERTIES SKIP_REGULAR_EXPRESSION "  SKIPPED "
               LABELS ${name}
               RUN_SERIAL TRUE
               ENVIRONMENT "HASHLAB_BINARY_DIR=${CMAKE_BINARY_DIR}")
endfunction()

# hashlab_add_paper(<name> [SOURCES <files...>] [EXPERIMENTS <files...>] [TESTS <files...>]
#                   [LIBS <libs...>]): a module from the calling folder (papers/<name>/), each part
# by default from its place in the layout (docs/design.md):
#   hashlab_<name>               static library of SOURCES (src/*.cu, src/*.cpp) with the public
#                                include/, linking hashlab_common and LIBS
#   hashlab_<name>_experiments   the registered experiments and demo, EXPERIMENTS (experiments/*.cu,
#                                experiments/*.cpp), linked into `hashlab`
#   <name>_tests                 one GoogleTest binary of TESTS (tests/*.cu, tests/*.cpp)
function(hashlab_add_paper name)
  cmake_parse_arguments(ARG "" "" "SOURCES;EXPERIMENTS;TESTS;LIBS" ${ARGN})
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "hashlab_add_paper(${name}): unexpected '${ARG_UNPARSED_ARGUMENTS}' "
                        "(takes SOURCES, EXPERIMENTS, TESTS and LIBS lists)")
  endif()
  set(dir ${CMAKE_CURRENT_SOURCE_DIR})
  if(NOT ARG_SOURCES)
    file(GLOB ARG_SOURCES CONFIGURE_DEPENDS ${dir}/src/*.cu ${dir}/src/*.cpp)
  endif()
  if(NOT ARG_EXPERIMENTS)
    file(GLOB ARG_EXPERIMENTS CONFIGURE_DEPENDS ${dir}/experiments/*.cu ${dir}/experiments/*.cpp)
  endif()
  if(NOT ARG_TESTS)
    file(GLOB ARG_TESTS CONFIGURE_DEPENDS ${dir}/tests/*.cu ${dir}/tests/*.cpp)
  endif()
  if(NOT ARG_SOURCES)
    message(FATAL_ERROR "hashlab_add_paper(${name}): no sources in ${dir}/src (*.cu, *.cpp) and no SOURCES given")
  endif()

  set(library hashlab_${name})
  add_library(${library} STATIC ${ARG_SOURCES})
  target_include_directories(${library} PUBLIC ${dir}/include)
  target_link_libraries(${library} PUBLIC hashlab_common ${ARG_LIBS})
  hashlab_compile_options(${library})

  if(ARG_EXPERIMENTS)
    hashlab_add_experiments(${name} ${ARG_EXPERIMENTS})
    target_link_libraries(hashlab_${name}_experiments PUBLIC ${library})
  endif()
  if(ARG_TESTS)
    hashlab_add_tests(${name} ${ARG_TESTS} LIBS ${library})
  endif()
endfunction()

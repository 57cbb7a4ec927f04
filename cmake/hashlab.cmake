# Shared build settings and one function per kind of folder (docs/design.md, "Layout"):
#
#   hashlab_add_library(<name>)   a layer of the suite: common/, harness/, catalogue/, owndata/
#   hashlab_add_module(<name>)    a module shaped like a paper: baselines/, papers/<paper>/, compare/
#   hashlab_add_program(<name>)   the `hashlab` command (cli/)
#
# Each takes its sources from its place in the layout (src/, experiments/, tests/) unless told
# otherwise, and names its library hashlab_<name>, exported and aliased as hashlab::<name>.

# Warnings for host code; device code gets nvcc's defaults plus line info for compute-sanitizer.
set(HASHLAB_CXX_FLAGS -Wall -Wextra)
set(HASHLAB_CUDA_FLAGS --extended-lambda --expt-relaxed-constexpr -lineinfo
    -Xcompiler=-Wall --Werror=cross-execution-space-call)

function(hashlab_compile_options target)
  target_compile_options(${target} PRIVATE
    $<$<COMPILE_LANGUAGE:CXX>:${HASHLAB_CXX_FLAGS}>
    $<$<COMPILE_LANGUAGE:CUDA>:${HASHLAB_CUDA_FLAGS}>)
endfunction()

# The experiment object libraries the program links (static registration needs the objects, not an
# archive the linker may drop), in the order the modules were added.
set_property(GLOBAL PROPERTY HASHLAB_EXPERIMENT_TARGETS "")
# Every library, for the install and export rules (top CMakeLists.txt).
set_property(GLOBAL PROPERTY HASHLAB_LIBRARY_TARGETS "")

# hashlab_add_tests(<name> <sources...> LIBS <libs...> [WORKING_DIRECTORY <dir>]): one GoogleTest
# binary <name>_tests, built only with HASHLAB_BUILD_TESTS, and one CTest entry per suite of it
# (cmake/discover_suites.cmake). GPU tests call GTEST_SKIP() without a device; a suite whose every
# test skipped exits with 77 (common/testing/main.cpp), which CTest shows as skipped, not passed.
#
# Tests run in parallel (`make test`: ctest -j), all on the one GPU. Two kinds of suite must not
# share it, and carry ctest's RUN_SERIAL, so that each runs alone whatever -j says
# (docs/design.md, "Tests"):
#   *Large       GBs of device memory each (parallel ones would run each other out of memory);
#   *Exclusive   reads or changes what the whole device shares: cudaMemGetInfo's free memory, the
#                pool's blocks against it, the rates `hashlab probe` measures.
set(HASHLAB_CMAKE_DIR ${CMAKE_CURRENT_LIST_DIR})
function(hashlab_add_tests name)
  cmake_parse_arguments(ARG "" "WORKING_DIRECTORY" "LIBS" ${ARGN})
  if(NOT HASHLAB_BUILD_TESTS OR NOT ARG_UNPARSED_ARGUMENTS)
    return()
  endif()
  set(target ${name}_tests)
  add_executable(${target} ${ARG_UNPARSED_ARGUMENTS})
  hashlab_compile_options(${target})
  target_link_libraries(${target} PRIVATE ${ARG_LIBS} hashlab_testing hashlab_test_main)
  if(NOT ARG_WORKING_DIRECTORY)
    set(ARG_WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
  endif()
  # One ctest entry per suite, found when ctest runs (cmake/discover_suites.cmake says why).
  set(include_file "${CMAKE_CURRENT_BINARY_DIR}/${target}_suites.cmake")
  file(GENERATE OUTPUT "${include_file}" CONTENT
"set(binary \"$<TARGET_FILE:${target}>\")
set(target \"${target}\")
set(workdir \"${ARG_WORKING_DIRECTORY}\")
set(label \"${name}\")
set(environment \"HASHLAB_BINARY_DIR=${PROJECT_BINARY_DIR}\")
include(\"${HASHLAB_CMAKE_DIR}/discover_suites.cmake\")
")
  set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES "${include_file}")
endfunction()

# hashlab_add_library(<name> [SOURCES <files...>] [TESTS <files...>] [LIBS <libs...>]
#                     [PRIVATE_LIBS <libs...>] [TEST_WORKING_DIRECTORY <dir>]): from the calling
# folder, the static library hashlab_<name> of SOURCES (src/*.cu, src/*.cpp) with the public
# include/, linking LIBS (public) and PRIVATE_LIBS, and the test binary <name>_tests of TESTS
# (tests/*.cu, tests/*.cpp).
function(hashlab_add_library name)
  cmake_parse_arguments(ARG "" "TEST_WORKING_DIRECTORY" "SOURCES;TESTS;LIBS;PRIVATE_LIBS" ${ARGN})
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "hashlab_add_library(${name}): unexpected '${ARG_UNPARSED_ARGUMENTS}' "
                        "(takes SOURCES, TESTS, LIBS, PRIVATE_LIBS and TEST_WORKING_DIRECTORY)")
  endif()
  set(dir ${CMAKE_CURRENT_SOURCE_DIR})
  if(NOT ARG_SOURCES)
    file(GLOB ARG_SOURCES CONFIGURE_DEPENDS ${dir}/src/*.cu ${dir}/src/*.cpp)
  endif()
  if(NOT ARG_TESTS)
    file(GLOB ARG_TESTS CONFIGURE_DEPENDS ${dir}/tests/*.cu ${dir}/tests/*.cpp)
  endif()
  if(NOT ARG_SOURCES)
    message(FATAL_ERROR "hashlab_add_library(${name}): no sources in ${dir}/src (*.cu, *.cpp) and no SOURCES given")
  endif()

  set(library hashlab_${name})
  add_library(${library} STATIC ${ARG_SOURCES})
  add_library(hashlab::${name} ALIAS ${library})
  set_target_properties(${library} PROPERTIES EXPORT_NAME ${name} POSITION_INDEPENDENT_CODE ON)
  target_include_directories(${library} PUBLIC $<BUILD_INTERFACE:${dir}/include> $<INSTALL_INTERFACE:include>)
  target_link_libraries(${library} PUBLIC ${ARG_LIBS} PRIVATE ${ARG_PRIVATE_LIBS})
  hashlab_compile_options(${library})
  set_property(GLOBAL APPEND PROPERTY HASHLAB_LIBRARY_TARGETS ${library})
  set_property(TARGET ${library} PROPERTY HASHLAB_INCLUDE_DIR ${dir}/include)

  hashlab_add_tests(${name} ${ARG_TESTS} LIBS ${library} WORKING_DIRECTORY ${ARG_TEST_WORKING_DIRECTORY})
endfunction()

# hashlab_add_module(<name> [SOURCES <files...>] [EXPERIMENTS <files...>] [TESTS <files...>]
#                    [LIBS <libs...>]): a module shaped like a paper, from the calling folder
# (baselines/, papers/<name>/, compare/), each part by default from its place in the layout:
#   hashlab_<name>               static library of SOURCES (src/*.cu, src/*.cpp) with the public
#                                include/, linking hashlab_common, hashlab_baselines (but for
#                                baselines itself) and LIBS
#   hashlab_<name>_experiments   the registered experiments and demo, EXPERIMENTS (experiments/*.cu,
#                                experiments/*.cpp), linked into `hashlab`
#   <name>_tests                 one GoogleTest binary of TESTS (tests/*.cu, tests/*.cpp)
function(hashlab_add_module name)
  cmake_parse_arguments(ARG "" "" "SOURCES;EXPERIMENTS;TESTS;LIBS" ${ARGN})
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "hashlab_add_module(${name}): unexpected '${ARG_UNPARSED_ARGUMENTS}' "
                        "(takes SOURCES, EXPERIMENTS, TESTS and LIBS lists)")
  endif()
  set(dir ${CMAKE_CURRENT_SOURCE_DIR})
  if(NOT ARG_EXPERIMENTS)
    file(GLOB ARG_EXPERIMENTS CONFIGURE_DEPENDS ${dir}/experiments/*.cu ${dir}/experiments/*.cpp)
  endif()
  set(below hashlab::common)
  if(NOT name STREQUAL "baselines")
    list(APPEND below hashlab::baselines)
  endif()
  hashlab_add_library(${name} SOURCES ${ARG_SOURCES} TESTS ${ARG_TESTS} LIBS ${below} ${ARG_LIBS})

  if(ARG_EXPERIMENTS)
    set(target hashlab_${name}_experiments)
    add_library(${target} OBJECT ${ARG_EXPERIMENTS})
    hashlab_compile_options(${target})
    target_link_libraries(${target} PUBLIC hashlab_${name} hashlab::harness)
    set_property(GLOBAL APPEND PROPERTY HASHLAB_EXPERIMENT_TARGETS ${target})
  endif()
endfunction()

# hashlab_add_program(<name> [SOURCES <files...>] [LIBS <libs...>] [TESTS <files...>]
#                     [TEST_WORKING_DIRECTORY <dir>]): the executable <name> of SOURCES (src/*.cpp)
# linking LIBS and every module's experiment objects, written to the top of the build folder; its
# tests (tests/*.cpp, the binary <folder>_tests) run the built program.
function(hashlab_add_program name)
  cmake_parse_arguments(ARG "" "TEST_WORKING_DIRECTORY" "SOURCES;LIBS;TESTS" ${ARGN})
  set(dir ${CMAKE_CURRENT_SOURCE_DIR})
  if(NOT ARG_SOURCES)
    file(GLOB ARG_SOURCES CONFIGURE_DEPENDS ${dir}/src/*.cpp)
  endif()
  if(NOT ARG_TESTS)
    file(GLOB ARG_TESTS CONFIGURE_DEPENDS ${dir}/tests/*.cu ${dir}/tests/*.cpp)
  endif()
  add_executable(${name} ${ARG_SOURCES})
  hashlab_compile_options(${name})
  get_property(experiment_targets GLOBAL PROPERTY HASHLAB_EXPERIMENT_TARGETS)
  target_link_libraries(${name} PRIVATE ${ARG_LIBS} ${experiment_targets})
  set_target_properties(${name} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR})
  get_filename_component(folder ${dir} NAME)
  hashlab_add_tests(${folder} ${ARG_TESTS} LIBS hashlab::common WORKING_DIRECTORY ${ARG_TEST_WORKING_DIRECTORY})
  if(TARGET ${folder}_tests)
    add_dependencies(${folder}_tests ${name})  # the tests run the program
  endif()
endfunction()

# hashlab_install(): the install and export rules, after every folder is added. `cmake --install`
# (component dev) puts the libraries, their headers and the package files for find_package(hashlab)
# under the prefix; with the program, `bin/hashlab` and the committed reference results
# (share/hashlab/reference, where an installed hashlab looks for them) come too (component program).
function(hashlab_install)
  include(GNUInstallDirs)
  include(CMakePackageConfigHelpers)
  get_property(libraries GLOBAL PROPERTY HASHLAB_LIBRARY_TARGETS)
  install(TARGETS ${libraries} EXPORT hashlabTargets COMPONENT dev
          ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
          INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
  foreach(library IN LISTS libraries)
    get_target_property(include_dir ${library} HASHLAB_INCLUDE_DIR)
    if(EXISTS ${include_dir})
      install(DIRECTORY ${include_dir}/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} COMPONENT dev)
    endif()
  endforeach()
  set(package_dir ${CMAKE_INSTALL_LIBDIR}/cmake/hashlab)
  install(EXPORT hashlabTargets NAMESPACE hashlab:: DESTINATION ${package_dir} COMPONENT dev)
  configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/hashlabConfig.cmake.in
                                ${PROJECT_BINARY_DIR}/hashlabConfig.cmake INSTALL_DESTINATION ${package_dir})
  write_basic_package_version_file(${PROJECT_BINARY_DIR}/hashlabConfigVersion.cmake COMPATIBILITY SameMinorVersion)
  install(FILES ${PROJECT_BINARY_DIR}/hashlabConfig.cmake ${PROJECT_BINARY_DIR}/hashlabConfigVersion.cmake
          DESTINATION ${package_dir} COMPONENT dev)
  if(TARGET hashlab)
    install(TARGETS hashlab RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT program)
    install(DIRECTORY ${PROJECT_SOURCE_DIR}/results/reference DESTINATION ${CMAKE_INSTALL_DATADIR}/hashlab
            COMPONENT program)
  endif()
endfunction()

# Run by ctest (a TEST_INCLUDE_FILES script of hashlab_add_tests): one ctest entry per GoogleTest
# suite of a test binary, so that a binary starts once per suite rather than once per test (on a
# GPU each start creates a CUDA context: about 2 s when 16 start at once on an H200, most of a
# per-test run's time). Set by the caller: binary, target, workdir, label, environment.
#
# A suite's entry runs `binary --gtest_filter=<suite>.*`. It fails when any of its tests fails,
# passes when any passed and none failed, and is "Skipped" when every test it ran was skipped
# (exit status 77 from common/testing/main.cpp; GPU tests without a GPU). Suites named *Large
# (GBs of device memory) and *Exclusive (what the whole device shares) run alone (RUN_SERIAL).
if(NOT EXISTS "${binary}")
  add_test("${target}_NOT_BUILT" "${target}_NOT_BUILT")
  return()
endif()
execute_process(COMMAND "${binary}" --gtest_list_tests
                WORKING_DIRECTORY "${workdir}"
                OUTPUT_VARIABLE listing ERROR_VARIABLE errors RESULT_VARIABLE status TIMEOUT 60)
if(NOT status EQUAL 0)
  # Listing failed (the binary cannot start, say): an entry that runs it, so ctest shows why.
  add_test("${target}_LISTING_FAILED" "${binary}" --gtest_list_tests)
  return()
endif()
string(REPLACE "\n" ";" lines "${listing}")
foreach(line IN LISTS lines)
  # A suite's line is its name and a dot at the start of the line ("Sizes/LinearProbing.",
  # typed suites add "  # TypeParam = ..."); its tests follow, indented.
  if(line MATCHES "^([^ #][^ ]*)\\.")
    set(suite "${CMAKE_MATCH_1}")
    add_test("${suite}" "${binary}" "--gtest_filter=${suite}.*")
    set_tests_properties("${suite}" PROPERTIES
      WORKING_DIRECTORY "${workdir}"
      LABELS "${label}"
      ENVIRONMENT "${environment}"
      SKIP_RETURN_CODE 77)
    if(suite MATCHES "(Large|Exclusive)$")
      set_tests_properties("${suite}" PROPERTIES RUN_SERIAL TRUE)
    endif()
  endif()
endforeach()

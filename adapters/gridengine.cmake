# Integration tests of the Grid Engine adapter against a live one-host cell. ctest starts the
# cell first (scripts/gridengine/start.sh, a fixture set-up test) and stops it last (stop.sh,
# the fixture's clean-up), so a plain `ctest` runs them; `ctest -LE gridengine` leaves them out.
# They share one cell, so they run one at a time (RESOURCE_LOCK), beside the other suites.
if(ARB_BUILD_TESTS)
  add_executable(arb_gridengine_tests ${CMAKE_CURRENT_SOURCE_DIR}/tests/gridengine_integration.cpp)
  target_link_libraries(arb_gridengine_tests PRIVATE arb_adapters GTest::gtest GTest::gtest_main)
  target_compile_definitions(arb_gridengine_tests PRIVATE
    ARB_GRIDENGINE_SCRIPTS="${PROJECT_SOURCE_DIR}/scripts/gridengine")
  arb_set_warnings(arb_gridengine_tests)

  set(ge_scripts ${PROJECT_SOURCE_DIR}/scripts/gridengine)
  add_test(NAME gridengine.start COMMAND ${ge_scripts}/start.sh --slots 8)
  set_tests_properties(gridengine.start PROPERTIES
    FIXTURES_SETUP gridengine LABELS gridengine RESOURCE_LOCK gridengine TIMEOUT 180)
  add_test(NAME gridengine.stop COMMAND ${ge_scripts}/stop.sh)
  set_tests_properties(gridengine.stop PROPERTIES
    FIXTURES_CLEANUP gridengine LABELS gridengine RESOURCE_LOCK gridengine TIMEOUT 120)
  gtest_discover_tests(arb_gridengine_tests TEST_PREFIX "gridengine." DISCOVERY_TIMEOUT 60
    PROPERTIES LABELS gridengine FIXTURES_REQUIRED gridengine RESOURCE_LOCK gridengine
    TIMEOUT 120)
endif()

# Create+delete throughput against a live cell; not run by ctest.
if(ARB_BUILD_BENCH)
  add_executable(arb_bench_gridengine ${CMAKE_CURRENT_SOURCE_DIR}/bench/gridengine_bench.cpp)
  target_link_libraries(arb_bench_gridengine PRIVATE arb_adapters)
  arb_set_warnings(arb_bench_gridengine)
endif()

# The Slurm adapter (src/slurm_lrms.cpp, src/slurm_words.cpp) speaks the libslurm C API: Debian 12's
# libslurm-dev, Slurm 22.05, installed by scripts/slurm/install.sh (which scripts/setup.sh
# calls). Without libslurm (or with -DARB_WITH_SLURM=OFF) the adapter and its tests are
# left out of the build, and the batch-system registry (src/batch_systems.cpp) refuses a
# cluster of kind "slurm", saying what the build lacks.
option(ARB_WITH_SLURM "Build the Slurm adapter when libslurm is found" ON)
if(ARB_WITH_SLURM)
  find_path(SLURM_INCLUDE_DIR slurm/slurm.h)
  find_library(SLURM_LIBRARY slurm)
endif()
if(ARB_WITH_SLURM AND SLURM_INCLUDE_DIR AND SLURM_LIBRARY)
  set(ARB_HAVE_SLURM ON)
  message(STATUS "Slurm adapter: ${SLURM_LIBRARY}")
  target_include_directories(arb_adapters SYSTEM PRIVATE ${SLURM_INCLUDE_DIR})
  target_link_libraries(arb_adapters PRIVATE ${SLURM_LIBRARY})
  find_package(Threads REQUIRED)
  target_link_libraries(arb_adapters PUBLIC Threads::Threads)
  set_source_files_properties(${CMAKE_CURRENT_SOURCE_DIR}/src/batch_systems.cpp
    PROPERTIES COMPILE_DEFINITIONS ARB_HAVE_SLURM=1)
else()
  set(ARB_HAVE_SLURM OFF)
  message(STATUS "Slurm adapter: left out (libslurm not found or ARB_WITH_SLURM=OFF; "
    "scripts/slurm/install.sh installs it)")
  set_source_files_properties(${CMAKE_CURRENT_SOURCE_DIR}/src/slurm_lrms.cpp
    ${CMAKE_CURRENT_SOURCE_DIR}/src/slurm_words.cpp
    ${CMAKE_CURRENT_SOURCE_DIR}/tests/slurm_lrms_test.cpp PROPERTIES HEADER_FILE_ONLY ON)
  set_source_files_properties(${CMAKE_CURRENT_SOURCE_DIR}/src/batch_systems.cpp
    PROPERTIES COMPILE_DEFINITIONS ARB_HAVE_SLURM=0)
endif()
set(ARB_HAVE_SLURM ${ARB_HAVE_SLURM} PARENT_SCOPE)  # for bench/

# Integration tests against live Slurm daemons (label slurm). The fixture starts two
# test-only instances before the first of them and stops them after the last, so a plain
# ctest runs them (`ctest -LE slurm` leaves them out): arbtest (8 CPUs on 2 fake nodes,
# controller on 127.0.0.1:17917) for most tests, arbtest2 (4 CPUs on one node of 2000 MB with
# the features ib and ssd, 127.0.0.1:17927) to show two clusters served by one process and
# jobs that need node features and memory. They share those clusters and so run one at a time
# (RESOURCE_LOCK), beside the other suites.
if(ARB_BUILD_TESTS AND ARB_HAVE_SLURM)
  set(ARB_SLURM_RUN_DIR /tmp/arb-slurm CACHE INTERNAL "where the Slurm test instances live")
  set(slurm_scripts ${PROJECT_SOURCE_DIR}/scripts/slurm)
  add_executable(arb_slurm_tests ${CMAKE_CURRENT_SOURCE_DIR}/tests/slurm/slurm_live_test.cpp)
  target_link_libraries(arb_slurm_tests PRIVATE arb_adapters GTest::gtest GTest::gtest_main)
  target_compile_definitions(arb_slurm_tests PRIVATE
    ARB_SLURM_SCRIPTS="${slurm_scripts}"
    ARB_SLURM_RUN_DIR="${ARB_SLURM_RUN_DIR}")
  arb_set_warnings(arb_slurm_tests)
  add_test(NAME slurm.start_daemons COMMAND bash -c
    "${slurm_scripts}/start.sh arbtest --cpus 8 --nodes 2 --port 17917 --clean && ${slurm_scripts}/start.sh arbtest2 --cpus 4 --port 17927 --memory 2000 --features ib,ssd --clean")
  add_test(NAME slurm.stop_daemons COMMAND bash -c
    "${slurm_scripts}/stop.sh arbtest2 && ${slurm_scripts}/stop.sh arbtest")
  set_tests_properties(slurm.start_daemons PROPERTIES FIXTURES_SETUP slurm_daemons
    LABELS slurm RESOURCE_LOCK slurm_daemons ENVIRONMENT ARB_RUN_DIR=${ARB_SLURM_RUN_DIR}
    TIMEOUT 180)
  set_tests_properties(slurm.stop_daemons PROPERTIES FIXTURES_CLEANUP slurm_daemons
    LABELS slurm RESOURCE_LOCK slurm_daemons ENVIRONMENT ARB_RUN_DIR=${ARB_SLURM_RUN_DIR}
    TIMEOUT 120)
  gtest_discover_tests(arb_slurm_tests DISCOVERY_TIMEOUT 60 TEST_PREFIX slurm.
    PROPERTIES LABELS slurm FIXTURES_REQUIRED slurm_daemons RESOURCE_LOCK slurm_daemons
      TIMEOUT 90)
endif()

# One library per folder: sources in src/, public headers in include/, unit tests beside
# them in tests/*_test.cpp (one GoogleTest program, ctest label = the library's name).
#
#   arb_library(<name> [PUBLIC deps...] [PRIVATE deps...] [TEST_DEPS deps...])
#
# defines arb_<name> (alias arbroker::<name>) and, when there are tests, arb_<name>_tests.
# The library and its include/ folder are installed and exported as arbroker::<name> (see
# cmake/ArbPackage.cmake); its tests are not.
include(GNUInstallDirs)

function(arb_library name)
  cmake_parse_arguments(A "" "" "PUBLIC;PRIVATE;TEST_DEPS" ${ARGN})
  set(target arb_${name})
  file(GLOB sources CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/src/*.cpp)
  add_library(${target} ${sources})
  add_library(arbroker::${name} ALIAS ${target})
  target_include_directories(${target} PUBLIC
    $<BUILD_INTERFACE:${CMAKE_CURRENT_SOURCE_DIR}/include>
    $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
  target_compile_features(${target} PUBLIC cxx_std_20)
  if(A_PUBLIC)
    target_link_libraries(${target} PUBLIC ${A_PUBLIC})
  endif()
  if(A_PRIVATE)
    target_link_libraries(${target} PRIVATE ${A_PRIVATE})
  endif()
  set_target_properties(${target} PROPERTIES POSITION_INDEPENDENT_CODE ON EXPORT_NAME ${name})
  arb_set_warnings(${target})

  install(TARGETS ${target} EXPORT arbrokerTargets
    ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
    LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
    RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
  if(EXISTS ${CMAKE_CURRENT_SOURCE_DIR}/include)
    install(DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR}/include/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
  endif()
  set_property(GLOBAL APPEND PROPERTY ARB_EXPORTED_TARGETS ${target})

  if(ARB_BUILD_TESTS)
    file(GLOB tests CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/tests/*_test.cpp)
    if(tests)
      add_executable(${target}_tests ${tests})
      target_link_libraries(${target}_tests PRIVATE ${target} ${A_TEST_DEPS} GTest::gtest
        GTest::gtest_main)
      arb_set_warnings(${target}_tests)
      gtest_discover_tests(${target}_tests DISCOVERY_TIMEOUT 60
        PROPERTIES LABELS ${name} TIMEOUT 120)
    endif()
  endif()
endfunction()

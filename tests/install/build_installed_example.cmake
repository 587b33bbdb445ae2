# cmake -P script for the install test (see CMakeLists.txt beside it): install BUILD_DIR into
# WORK_DIR/prefix, build EXAMPLE_DIR against that prefix only, and run it.
function(run what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${what} failed (${rc}):\n${out}")
  endif()
  set(output "${out}" PARENT_SCOPE)
endfunction()

set(prefix ${WORK_DIR}/prefix)
set(build ${WORK_DIR}/build)
file(REMOVE_RECURSE ${WORK_DIR})

run("cmake --install (is the whole project built?)"
  ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix})
foreach(f include/arbroker/actors/broker.hpp include/arbroker/core/error.hpp
    ${LIBDIR}/cmake/arbroker/arbrokerConfig.cmake ${LIBDIR}/cmake/arbroker/FindCAF.cmake)
  if(NOT EXISTS ${prefix}/${f})
    message(FATAL_ERROR "not installed: ${prefix}/${f}")
  endif()
endforeach()
file(GLOB programs ${prefix}/bin/*)
if(NOT programs)
  message(FATAL_ERROR "no program of apps/ installed in ${prefix}/bin")
endif()
file(GLOB_RECURSE tests_installed ${prefix}/*_tests)
if(tests_installed)
  message(FATAL_ERROR "test programs installed: ${tests_installed}")
endif()

# Only the prefix: no package registry, so the build tree cannot stand in for the install.
set(launcher "")
if(LAUNCHER)
  set(launcher -DCMAKE_CXX_COMPILER_LAUNCHER=${LAUNCHER})
endif()
run("configuring the example" ${CMAKE_COMMAND} -S ${EXAMPLE_DIR} -B ${build} -G ${GENERATOR}
  -DCMAKE_BUILD_TYPE=${BUILD_TYPE} -DCMAKE_CXX_COMPILER=${CXX} ${launcher}
  -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF)
file(STRINGS ${build}/CMakeCache.txt found REGEX "^arbroker_DIR:")
string(FIND "${found}" "=${prefix}/" at)
if(at EQUAL -1)
  message(FATAL_ERROR "the example found arbroker elsewhere: ${found}")
endif()
run("building the example" ${CMAKE_COMMAND} --build ${build})
run("running the example" ${build}/arb-embed)
message("${output}")

# The installable CMake package: `cmake --install` puts the headers, the libraries of every
# arb_library() (see ArbLibrary.cmake) and this package under the prefix, so that another
# project can
#   find_package(arbroker REQUIRED)
#   target_link_libraries(app PRIVATE arbroker::actors)
# Call arb_install_package() once, after every add_subdirectory().
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(ARB_PACKAGE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/arbroker)

# Imported targets the libraries may link, and the find_package() arguments that make them
# in a consumer. The libraries are static, so private dependencies count too. A library that
# links an imported target missing here gets a configure warning: add the package here.
set(_arb_package_of_CAF "CAF 0.17")  # through the installed FindCAF.cmake
set(_arb_package_of_msgpackc-cxx "msgpack CONFIG")
set(_arb_package_of_spdlog "spdlog")
set(_arb_package_of_fmt "fmt")
set(_arb_package_of_tomlplusplus "tomlplusplus")
set(_arb_package_of_pugixml "pugixml")
set(_arb_package_of_ZLIB "ZLIB")
set(_arb_package_of_Threads "Threads")
set(_arb_package_of_Boost "Boost 1.74")
set(_arb_package_of_SQLite "SQLite3")
set(_arb_package_of_PostgreSQL "PostgreSQL")
set(_arb_package_of_OpenSSL "OpenSSL")
set(_arb_package_of_CLI11 "CLI11")
set(_arb_package_of_utf8cpp "utf8cpp CONFIG")
set(_arb_package_of_prometheus-cpp "prometheus-cpp CONFIG")
set(_arb_package_of_Sodium "Sodium")  # through the installed FindSodium.cmake
set(_arb_package_of_nlohmann_json "nlohmann_json 3")

# The find_dependency() lines for the imported targets that `targets` link (sorted, unique).
function(_arb_package_dependencies out targets)
  set(lines "")
  set(boost_components "")  # compiled Boost libraries are components of one find_package
  foreach(t IN LISTS targets)
    get_target_property(linked ${t} LINK_LIBRARIES)
    get_target_property(interface ${t} INTERFACE_LINK_LIBRARIES)
    foreach(item IN LISTS linked interface)
      string(REGEX REPLACE "^\\$<LINK_ONLY:(.*)>$" "\\1" item "${item}")
      # Imported targets found in a subfolder are not visible here: tell them by their "::".
      if(NOT item OR item IN_LIST targets OR item MATCHES "^arbroker::")
        continue()  # another arbroker library: in the same export set
      elseif(NOT item MATCHES "::" AND NOT TARGET "${item}")
        continue()  # a path or flag (e.g. libslurm): exported as it is
      elseif(NOT item MATCHES "::")
        get_target_property(imported ${item} IMPORTED)
        if(NOT imported)
          continue()  # not ours and not imported: install(EXPORT) will say so
        endif()
      endif()
      string(REGEX REPLACE "::.*$" "" prefix "${item}")
      string(REGEX REPLACE "^Boost::" "" boost_lib "${item}")
      if(prefix STREQUAL "Boost" AND NOT boost_lib MATCHES "^(headers|boost)$")
        list(APPEND boost_components ${boost_lib})
      elseif(DEFINED _arb_package_of_${prefix})
        list(APPEND lines "find_dependency(${_arb_package_of_${prefix}})")
      else()
        message(WARNING "arb_install_package: ${t} links ${item}, which comes from a package "
          "cmake/ArbPackage.cmake does not know; add it there, or find_package(arbroker) "
          "will fail in other projects")
      endif()
    endforeach()
  endforeach()
  if(boost_components)
    list(REMOVE_ITEM lines "find_dependency(${_arb_package_of_Boost})")
    list(REMOVE_DUPLICATES boost_components)
    list(JOIN boost_components " " components)
    list(APPEND lines "find_dependency(${_arb_package_of_Boost} COMPONENTS ${components})")
  endif()
  list(REMOVE_DUPLICATES lines)
  list(SORT lines)
  list(JOIN lines "\n" text)
  set(${out} "${text}" PARENT_SCOPE)
endfunction()

# Installs the executables defined in `dir` (and its subfolders) to bin/, except test programs
# (*_test, *_tests).
function(arb_install_executables dir)
  get_property(targets DIRECTORY ${dir} PROPERTY BUILDSYSTEM_TARGETS)
  foreach(t IN LISTS targets)
    get_target_property(type ${t} TYPE)
    if(type STREQUAL "EXECUTABLE" AND NOT t MATCHES "_tests?$")
      install(TARGETS ${t} RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
    endif()
  endforeach()
  get_property(subdirs DIRECTORY ${dir} PROPERTY SUBDIRECTORIES)
  foreach(sub IN LISTS subdirs)
    arb_install_executables(${sub})
  endforeach()
endfunction()

function(arb_install_package)
  get_property(targets GLOBAL PROPERTY ARB_EXPORTED_TARGETS)
  _arb_package_dependencies(ARB_PACKAGE_DEPENDENCIES "${targets}")
  install(EXPORT arbrokerTargets NAMESPACE arbroker:: DESTINATION ${ARB_PACKAGE_DIR})
  configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/arbrokerConfig.cmake.in
    ${PROJECT_BINARY_DIR}/arbrokerConfig.cmake INSTALL_DESTINATION ${ARB_PACKAGE_DIR})
  # 0.x: a new minor version may break the API.
  write_basic_package_version_file(${PROJECT_BINARY_DIR}/arbrokerConfigVersion.cmake
    COMPATIBILITY SameMinorVersion)
  install(FILES ${PROJECT_BINARY_DIR}/arbrokerConfig.cmake
    ${PROJECT_BINARY_DIR}/arbrokerConfigVersion.cmake
    ${PROJECT_SOURCE_DIR}/cmake/FindCAF.cmake
    ${PROJECT_SOURCE_DIR}/cmake/FindSodium.cmake
    DESTINATION ${ARB_PACKAGE_DIR})
endfunction()

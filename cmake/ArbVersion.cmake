# Writes OUT (a header defining ARB_VERSION) from the project version and `git describe` of
# SOURCE_DIR, run at every build (arb_version target) so that a binary names the commit it
# was built from; the file is only touched when the text changes, so nothing rebuilds
# needlessly. Outside a git checkout the commit is "unknown".
execute_process(COMMAND git -C "${SOURCE_DIR}" describe --always --dirty --abbrev=12
  OUTPUT_VARIABLE commit OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 OR commit STREQUAL "")
  set(commit "unknown")
endif()
set(text "#pragma once\n#define ARB_VERSION \"${VERSION} (${commit})\"\n")
if(EXISTS "${OUT}")
  file(READ "${OUT}" old)
endif()
if(NOT "${old}" STREQUAL "${text}")
  file(WRITE "${OUT}" "${text}")
endif()

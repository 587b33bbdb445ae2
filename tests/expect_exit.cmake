# Runs PROGRAM with ARGS and fails unless it exits with EXPECT_EXIT and its output (stdout
# and stderr) matches the regular expression EXPECT_OUTPUT. (ctest's own
# PASS_REGULAR_EXPRESSION would ignore the exit code.)
execute_process(COMMAND ${PROGRAM} ${ARGS} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}${err}")
if(NOT rc EQUAL EXPECT_EXIT)
  message(FATAL_ERROR "exit code ${rc}, expected ${EXPECT_EXIT}")
endif()
if(NOT "${out}${err}" MATCHES "${EXPECT_OUTPUT}")
  message(FATAL_ERROR "output does not match: ${EXPECT_OUTPUT}")
endif()

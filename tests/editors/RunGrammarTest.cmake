#===- tests/editors/RunGrammarTest.cmake - The VS Code grammar test ------===#
#
# cmake -DNODE=... -DDIR=editors/vscode -DSKETCHES=stdlib-sketches -P this:
# runs DIR/test/tokenize.mjs over SKETCHES when DIR's npm dependencies are
# installed, else says that it is skipping (`npm ci` in DIR installs them).
#
#===----------------------------------------------------------------------===#
if(NOT EXISTS "${DIR}/node_modules/vscode-textmate")
  message("npm dependencies missing in ${DIR} (run npm ci there): skipping")
  return()
endif()
execute_process(COMMAND "${NODE}" "${DIR}/test/tokenize.mjs" "${SKETCHES}"
                RESULT_VARIABLE Rc)
if(NOT Rc EQUAL 0)
  message(FATAL_ERROR "the grammar test failed (exit ${Rc})")
endif()

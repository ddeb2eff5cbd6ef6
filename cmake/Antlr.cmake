#===- cmake/Antlr.cmake - generate C++ from a grammar at build time ------===#
#
# tacclc_antlr_generate(<target> GRAMMAR <file.g4> PACKAGE <ns>) runs Debian's
# /usr/bin/antlr4 wrapper (4.7.2 tool; its output compiles against the 4.9
# runtime) into the build tree and makes a static library of the result.
# Generated code is never committed. The packaged antlr4_generate() is not
# used because it runs `java -jar`, which fails on Debian (no Class-Path).
#
#===----------------------------------------------------------------------===#
function(tacclc_antlr_generate target)
  cmake_parse_arguments(ARG "" "GRAMMAR;PACKAGE" "" ${ARGN})
  get_filename_component(_name ${ARG_GRAMMAR} NAME_WE)
  set(_gen ${CMAKE_CURRENT_BINARY_DIR}/antlr_gen)
  set(_srcs ${_gen}/${_name}Lexer.cpp ${_gen}/${_name}Parser.cpp
            ${_gen}/${_name}Visitor.cpp ${_gen}/${_name}BaseVisitor.cpp)
  set(_hdrs ${_gen}/${_name}Lexer.h ${_gen}/${_name}Parser.h
            ${_gen}/${_name}Visitor.h ${_gen}/${_name}BaseVisitor.h)
  add_custom_command(
    OUTPUT ${_srcs} ${_hdrs}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${_gen}
    COMMAND ${ANTLR4_TOOL} -Dlanguage=Cpp -visitor -no-listener -Werror
            -package ${ARG_PACKAGE} -Xexact-output-dir -o ${_gen} ${ARG_GRAMMAR}
    DEPENDS ${ARG_GRAMMAR}
    COMMENT "ANTLR: generating C++ parser from ${_name}.g4"
    VERBATIM)
  add_library(${target} STATIC ${_srcs})
  target_include_directories(${target} SYSTEM PUBLIC ${_gen})
  target_link_libraries(${target} PUBLIC tacclc_antlr4)
  target_compile_options(${target} PRIVATE -w)
  set_target_properties(${target} PROPERTIES POSITION_INDEPENDENT_CODE ON)
endfunction()

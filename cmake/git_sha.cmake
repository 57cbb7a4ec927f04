# Writes OUTPUT with the current git revision of SOURCE_DIR, only when it changed.
# $HASHLAB_GIT_SHA names the revision when the sources carry no git history of their own (a source
# archive, `git archive`): the result files then record it instead of "unknown".
if(DEFINED ENV{HASHLAB_GIT_SHA} AND NOT "$ENV{HASHLAB_GIT_SHA}" STREQUAL "")
  set(sha "$ENV{HASHLAB_GIT_SHA}")
else()
  execute_process(COMMAND git -C ${SOURCE_DIR} rev-parse --short=12 HEAD
                  OUTPUT_VARIABLE sha OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0 OR sha STREQUAL "")
    set(sha "unknown")
  else()
    execute_process(COMMAND git -C ${SOURCE_DIR} status --porcelain --untracked-files=no
                    OUTPUT_VARIABLE dirty OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
    if(NOT dirty STREQUAL "")
      set(sha "${sha}-dirty")
    endif()
  endif()
endif()
set(content "#pragma once\n#define HASHLAB_GIT_SHA \"${sha}\"\n")
if(EXISTS ${OUTPUT})
  file(READ ${OUTPUT} old)
endif()
if(NOT "${old}" STREQUAL "${content}")
  file(WRITE ${OUTPUT} "${content}")
endif()

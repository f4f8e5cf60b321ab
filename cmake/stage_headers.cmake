# Stages the library's public headers for the build tree and the install:
# PUBLIC_DIR's headers (include/d2q9/*.hpp) as they are, and every header of
# HOST_DIR they reach (#include <d2q9/internal/X>, then X's own includes of
# host/ headers) under OUTPUT/internal/, its includes of host/ headers
# respelled <d2q9/internal/...>. Files are rewritten only when they change,
# so builds against them stay up to date without rebuilding.
#   cmake -DPUBLIC_DIR=... -DHOST_DIR=... -DOUTPUT=... -P stage_headers.cmake
cmake_minimum_required(VERSION 3.20)
function(stage path text)
  if(EXISTS "${path}")
    file(READ "${path}" old)
    if(old STREQUAL text)
      return()
    endif()
  endif()
  file(WRITE "${path}" "${text}")
endfunction()

set(queue "")
file(GLOB public RELATIVE ${PUBLIC_DIR} ${PUBLIC_DIR}/*.hpp)
foreach(name ${public})
  file(READ ${PUBLIC_DIR}/${name} text)
  stage(${OUTPUT}/${name} "${text}")
  string(REGEX MATCHALL "#include <d2q9/internal/[^>]+>" reached "${text}")
  foreach(inc ${reached})
    string(REGEX REPLACE "#include <d2q9/internal/([^>]+)>" "\\1" header "${inc}")
    list(APPEND queue ${header})
  endforeach()
endforeach()

set(done "")
while(queue)
  list(POP_FRONT queue header)
  if(header IN_LIST done)
    continue()
  endif()
  list(APPEND done ${header})
  if(NOT EXISTS ${HOST_DIR}/${header})
    message(FATAL_ERROR "stage_headers: ${header} is included but not in ${HOST_DIR}")
  endif()
  file(READ ${HOST_DIR}/${header} text)
  string(REGEX MATCHALL "#include \"[^\"]+\"" includes "${text}")
  foreach(inc ${includes})
    string(REGEX REPLACE "#include \"([^\"]+)\"" "\\1" target "${inc}")
    if(EXISTS ${HOST_DIR}/${target})
      string(REPLACE "${inc}" "#include <d2q9/internal/${target}>" text "${text}")
      list(APPEND queue ${target})
    endif()
  endforeach()
  stage(${OUTPUT}/internal/${header} "${text}")
endwhile()

# Headers staged by an earlier build that are reached no more (moved, or no longer included) go.
file(GLOB_RECURSE staged RELATIVE ${OUTPUT}/internal ${OUTPUT}/internal/*)
foreach(header ${staged})
  if(NOT header IN_LIST done)
    file(REMOVE ${OUTPUT}/internal/${header})
  endif()
endforeach()

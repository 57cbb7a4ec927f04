# HASHLAB_PYTHON: the Python package's compiled extension (python/, the module hashlab._core).
#
# It is part of this build when nanobind and the interpreter's headers are there, so that
# `make test` runs the package's tests against this build tree: the extension adds one compile
# of the binding sources, not a second build of the libraries. `pip install .` (scikit-build-core,
# pyproject.toml) configures this same project and builds the extension's target alone. It links
# the suite's static libraries, which are position-independent for that (hashlab_add_library).
set(hashlab_python_default OFF)
set(hashlab_python_why "")
if(SKBUILD)
  set(hashlab_python_default ON)  # pip's build: its interpreter is Python_EXECUTABLE
elseif(NOT PROJECT_IS_TOP_LEVEL)
  # Inside another project the extension is built only when asked (-DHASHLAB_PYTHON=ON).
  set(hashlab_python_why "hashlab is a subproject of ${CMAKE_PROJECT_NAME}")
elseif(NOT DEFINED Python_EXECUTABLE)
  find_package(Python3 COMPONENTS Interpreter)
  if(Python3_FOUND)
    set(Python_EXECUTABLE ${Python3_EXECUTABLE})
  endif()
endif()
if(DEFINED Python_EXECUTABLE AND NOT SKBUILD AND PROJECT_IS_TOP_LEVEL)
  execute_process(COMMAND ${Python_EXECUTABLE} -m nanobind --cmake_dir
                  OUTPUT_VARIABLE hashlab_nanobind_dir OUTPUT_STRIP_TRAILING_WHITESPACE
                  RESULT_VARIABLE hashlab_nanobind_rc ERROR_QUIET)
  if(hashlab_nanobind_rc EQUAL 0)
    find_package(Python COMPONENTS Interpreter Development.Module QUIET)
    if(Python_Development.Module_FOUND)
      set(hashlab_python_default ON)
    else()
      set(hashlab_python_why "the headers of ${Python_EXECUTABLE} are missing (Debian: python3-dev)")
    endif()
  else()
    set(hashlab_python_why "${Python_EXECUTABLE} cannot import nanobind (make deps, or pip install nanobind)")
  endif()
elseif(NOT SKBUILD AND PROJECT_IS_TOP_LEVEL)
  set(hashlab_python_why "no Python interpreter found")
endif()

option(HASHLAB_PYTHON "Build the Python package's extension (python/) and run its tests" ${hashlab_python_default})
if(NOT HASHLAB_PYTHON)
  if(hashlab_python_why)
    message(STATUS "hashlab: the Python package's extension is off: ${hashlab_python_why}")
  endif()
  return()
endif()

if(NOT hashlab_nanobind_dir)
  execute_process(COMMAND ${Python_EXECUTABLE} -m nanobind --cmake_dir
                  OUTPUT_VARIABLE hashlab_nanobind_dir OUTPUT_STRIP_TRAILING_WHITESPACE
                  RESULT_VARIABLE hashlab_nanobind_rc ERROR_QUIET)
  if(NOT hashlab_nanobind_rc EQUAL 0)
    message(FATAL_ERROR "HASHLAB_PYTHON is on but ${Python_EXECUTABLE} cannot import nanobind: "
                        "pip install nanobind (or make deps), or configure with -DHASHLAB_PYTHON=OFF")
  endif()
endif()
find_package(Python 3.8 COMPONENTS Interpreter Development.Module REQUIRED)
find_package(nanobind CONFIG REQUIRED PATHS ${hashlab_nanobind_dir} NO_DEFAULT_PATH)
message(STATUS "hashlab: the Python package's extension is on (${Python_EXECUTABLE}, nanobind in ${hashlab_nanobind_dir})")

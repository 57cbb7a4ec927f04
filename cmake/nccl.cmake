# NCCL for servers/: from the system (/usr/include, the CUDA toolkit, $NCCL_ROOT) or from the PyPI
# wheel nvidia-nccl-cu13 (`make deps` installs it when nothing else is found). Sets
# HASHLAB_HAVE_NCCL and the imported target hashlab::nccl.
set(HASHLAB_NCCL_HINTS $ENV{NCCL_ROOT} $ENV{NCCL_HOME})
if(CUDAToolkit_LIBRARY_ROOT)
  list(APPEND HASHLAB_NCCL_HINTS ${CUDAToolkit_LIBRARY_ROOT})
endif()
if(CUDAToolkit_INCLUDE_DIRS)
  foreach(dir IN LISTS CUDAToolkit_INCLUDE_DIRS)
    get_filename_component(parent ${dir} DIRECTORY)
    list(APPEND HASHLAB_NCCL_HINTS ${parent})
  endforeach()
endif()
# The wheel installs nvidia/nccl/{include,lib} into the interpreter's site-packages (a namespace
# package: its path, not its __file__).
find_package(Python3 COMPONENTS Interpreter QUIET)
if(Python3_FOUND)
  execute_process(
    COMMAND ${Python3_EXECUTABLE} -c "import nvidia.nccl as n; print(list(n.__path__)[0])"
    OUTPUT_VARIABLE HASHLAB_NCCL_WHEEL OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE wheel_status)
  if(wheel_status EQUAL 0 AND HASHLAB_NCCL_WHEEL)
    list(APPEND HASHLAB_NCCL_HINTS ${HASHLAB_NCCL_WHEEL})
  endif()
endif()

find_path(HASHLAB_NCCL_INCLUDE_DIR nccl.h HINTS ${HASHLAB_NCCL_HINTS} PATH_SUFFIXES include)
# The wheel has only the versioned name.
find_library(HASHLAB_NCCL_LIBRARY NAMES nccl libnccl.so.2 HINTS ${HASHLAB_NCCL_HINTS} PATH_SUFFIXES lib lib64)

if(HASHLAB_NCCL_INCLUDE_DIR AND HASHLAB_NCCL_LIBRARY)
  set(HASHLAB_HAVE_NCCL ON)
  add_library(hashlab::nccl UNKNOWN IMPORTED)
  set_target_properties(hashlab::nccl PROPERTIES IMPORTED_LOCATION ${HASHLAB_NCCL_LIBRARY}
                                                 INTERFACE_INCLUDE_DIRECTORIES ${HASHLAB_NCCL_INCLUDE_DIR})
  message(STATUS "servers: NCCL ${HASHLAB_NCCL_LIBRARY} (headers ${HASHLAB_NCCL_INCLUDE_DIR})")
else()
  set(HASHLAB_HAVE_NCCL OFF)
  message(WARNING "servers: NCCL not found (nccl.h, libnccl): the servers layer builds with its local backend "
                  "only. Install NCCL or `pip install nvidia-nccl-cu13` (make deps does), then configure again.")
endif()

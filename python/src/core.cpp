// hashlab._core: the compiled part of the Python package `hashlab` (python/hashlab/ is the
// rest, and the documented interface). Errors become Python exceptions, never a crash:
// std::invalid_argument (bad input, with the commands' messages) is ValueError, a device or pinned
// allocation that does not fit is MemoryError, a failed CUDA call is hashlab.CudaError.
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>

#include <cuda_runtime_api.h>

#include "columns.hpp"
#include "hashlab/common/cuda_check.hpp"
#include "hashlab/common/device.hpp"
#include "hashlab/common/memory.hpp"

namespace hashlab::python {

void bind_generator(nb::module_& m);
void bind_reference(nb::module_& m);
void bind_catalogue(nb::module_& m);

namespace {

nb::dict device_properties() {
  const DeviceInfo info = device_info();
  nb::dict d;
  d["name"] = info.name;
  d["compute_capability"] = nb::make_tuple(info.compute_major, info.compute_minor);
  d["multiprocessors"] = info.multiprocessors;
  d["global_memory_bytes"] = info.global_memory_bytes;
  d["l2_cache_bytes"] = info.l2_cache_bytes;
  d["memory_bus_width_bits"] = info.memory_bus_width_bits;
  d["memory_clock_khz"] = info.memory_clock_khz;
  d["clock_khz"] = info.clock_khz;
  d["driver_version"] = info.driver_version;
  d["runtime_version"] = info.runtime_version;
  return d;
}

}  // namespace
}  // namespace hashlab::python

NB_MODULE(_core, m) {
  using namespace hashlab;
  using namespace hashlab::python;
  m.doc() = "hashlab's compiled extension; use the package `hashlab`, which documents each call.";

  static nb::exception<CudaError> cuda_error(m, "CudaError", PyExc_RuntimeError);
  nb::register_exception_translator([](const std::exception_ptr& p, void*) {
    try {
      std::rethrow_exception(p);
    } catch (const OutOfDeviceMemory& e) {
      PyErr_SetString(PyExc_MemoryError, e.what());
    } catch (const OutOfHostMemory& e) {
      PyErr_SetString(PyExc_MemoryError, e.what());
    } catch (const CudaError& e) {
      // CUB and cuRAND allocate through the driver too: their out-of-memory is MemoryError as well.
      if (e.code() == cudaErrorMemoryAllocation) PyErr_SetString(PyExc_MemoryError, e.what());
      else PyErr_SetString(cuda_error.ptr(), e.what());
    }
  });

  m.def("gpu_available", [] {
    std::string why;
    const bool ok = gpu_available(&why);
    return nb::make_tuple(ok, why);
  }, "(True, '') with a usable CUDA GPU, else (False, why).");
  m.def("device_info", &device_properties, "The current GPU's properties (CudaError without one).");
  m.def("device_memory", [] {
    std::size_t free_bytes = 0, total_bytes = 0;
    device_memory(free_bytes, total_bytes);
    return nb::make_tuple(free_bytes, total_bytes);
  }, "(free, total) device memory in bytes.");
  m.def("trim_device_pool", &trim_device_pool, "Gives the cached blocks of hashlab's device pool back to the driver.");
  m.def("device_pool_used", &device_pool_used, "Bytes of hashlab's device pool in use now.");

  bind_columns(m);
  bind_generator(m);
  bind_reference(m);
  bind_catalogue(m);
}

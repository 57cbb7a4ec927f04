// The shared data generator (common/include/hashlab/common/generator.hpp) in Python: the same
// seeded columns on the host (NumPy) and on the device, bit for bit.
#include <nanobind/nanobind.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>

#include <cmath>
#include <optional>
#include <utility>

#include "columns.hpp"
#include "hashlab/common/cuda_check.hpp"
#include "hashlab/common/generator.hpp"
#include "hashlab/common/sentinels.hpp"

namespace hashlab::python {
namespace {

gen::KeySpec key_spec(const std::string& distribution, std::uint64_t distinct, double zipf_exponent,
                      std::uint64_t domain) {
  gen::KeySpec spec;
  spec.distribution = gen::parse_key_distribution(distribution);
  spec.distinct = distinct;
  spec.zipf_exponent = zipf_exponent;
  spec.domain = domain;
  return spec;
}

/// Key columns, column-major: one row of the result per key column, as generate_key_columns lays
/// them out. On the device into `out` when given (used in place), else into a new array.
nb::object keys(std::size_t n, const std::string& distribution, std::uint64_t distinct, double zipf_exponent,
                std::uint64_t domain, int columns, std::uint64_t seed, bool device, const Column* out) {
  const gen::KeySpec spec = key_spec(distribution, distinct, zipf_exponent, domain);
  gen::validate(spec, n, columns);
  const std::size_t total = n * static_cast<std::size_t>(columns);
  if (!device) {
    std::vector<std::uint32_t> host;
    {
      nb::gil_scoped_release release;
      host = gen::generate_key_columns_host(spec, seed, columns, n);
    }
    return columns == 1 ? numpy_array(std::move(host)) : numpy_matrix(std::move(host), columns, n);
  }
  const cudaStream_t stream = work_stream();
  if (out != nullptr) {
    std::uint32_t* target = device_output<std::uint32_t>(*out, total);
    out->wait(stream);
    nb::gil_scoped_release release;
    gen::generate_key_columns(spec, seed, columns, target, n, stream);
    HASHLAB_CUDA_CHECK(cudaStreamSynchronize(stream));
    return nb::none();
  }
  DeviceBuffer<std::uint32_t> buffer(total, stream);
  {
    nb::gil_scoped_release release;
    gen::generate_key_columns(spec, seed, columns, buffer.data(), n, stream);
    HASHLAB_CUDA_CHECK(cudaStreamSynchronize(stream));
  }
  std::vector<std::size_t> shape = columns == 1 ? std::vector<std::size_t>{n}
                                                : std::vector<std::size_t>{static_cast<std::size_t>(columns), n};
  return nb::cast(DeviceArray(std::move(buffer), std::move(shape)));
}

template <class T>
nb::object values_of(std::size_t n, T lo, T hi, std::uint64_t seed, bool device, const Column* out) {
  if (!device) {
    std::vector<T> host;
    {
      nb::gil_scoped_release release;
      host = gen::generate_values_host<T>(seed, lo, hi, n);
    }
    return numpy_array(std::move(host));
  }
  const cudaStream_t stream = work_stream();
  if (out != nullptr) {
    T* target = device_output<T>(*out, n);
    out->wait(stream);
    nb::gil_scoped_release release;
    gen::generate_values<T>(seed, lo, hi, target, n, stream);
    HASHLAB_CUDA_CHECK(cudaStreamSynchronize(stream));
    return nb::none();
  }
  DeviceBuffer<T> buffer(n, stream);
  {
    nb::gil_scoped_release release;
    gen::generate_values<T>(seed, lo, hi, buffer.data(), n, stream);
    HASHLAB_CUDA_CHECK(cudaStreamSynchronize(stream));
  }
  return nb::cast(DeviceArray(std::move(buffer), {n}));
}

nb::object values(std::size_t n, double lo, double hi, const std::string& dtype, std::uint64_t seed, bool device,
                  const Column* out) {
  // Integer bounds must be integers the type holds: a silent rounding would draw another range.
  const auto integral = [&](double lo_min, double hi_max) {
    if (std::floor(lo) != lo || std::floor(hi) != hi || lo < lo_min || hi > hi_max)
      throw std::invalid_argument("values(dtype='" + dtype + "'): lo and hi must be integers from " +
                                  std::to_string(static_cast<long long>(lo_min)) + " to " +
                                  std::to_string(static_cast<long long>(hi_max)));
  };
  if (dtype == "uint32") {
    integral(0, 4294967295.0);
    return values_of<std::uint32_t>(n, static_cast<std::uint32_t>(lo), static_cast<std::uint32_t>(hi), seed, device, out);
  }
  if (dtype == "int32") {
    integral(-2147483648.0, 2147483647.0);
    return values_of<std::int32_t>(n, static_cast<std::int32_t>(lo), static_cast<std::int32_t>(hi), seed, device, out);
  }
  if (dtype == "int64") {
    integral(-9007199254740992.0, 9007199254740992.0);  // exactly representable bounds
    return values_of<std::int64_t>(n, static_cast<std::int64_t>(lo), static_cast<std::int64_t>(hi), seed, device, out);
  }
  if (dtype == "float32") return values_of<float>(n, static_cast<float>(lo), static_cast<float>(hi), seed, device, out);
  if (dtype == "float64") return values_of<double>(n, lo, hi, seed, device, out);
  throw std::invalid_argument("values: dtype '" + dtype + "' is not drawn here (uint32, int32, int64, float32, float64)");
}

std::pair<nb::object, nb::object> pkpk(std::uint64_t r_rows, std::uint64_t s_rows, double match_rate,
                                       std::uint64_t key_domain, std::uint64_t seed, bool device) {
  gen::PkPkSpec spec;
  spec.r_rows = r_rows;
  spec.s_rows = s_rows;
  spec.match_rate = match_rate;
  spec.key_domain = key_domain;
  gen::validate(spec);
  if (!device) {
    std::vector<std::uint32_t> r, s;
    {
      nb::gil_scoped_release release;
      gen::generate_pkpk_host(spec, seed, r, s);
    }
    return {numpy_array(std::move(r)), numpy_array(std::move(s))};
  }
  const cudaStream_t stream = work_stream();
  DeviceBuffer<std::uint32_t> r(r_rows, stream), s(s_rows, stream);
  {
    nb::gil_scoped_release release;
    gen::generate_pkpk(spec, seed, r.data(), s.data(), stream);
    HASHLAB_CUDA_CHECK(cudaStreamSynchronize(stream));
  }
  return {nb::cast(DeviceArray(std::move(r), {r_rows})), nb::cast(DeviceArray(std::move(s), {s_rows}))};
}

}  // namespace

void bind_generator(nb::module_& m) {
  m.attr("MAX_KEY_DOMAIN") = gen::kMaxKeyDomain;
  m.attr("RESERVED_KEY") = kEmptyKey;
  m.attr("MAX_KEY_COLUMNS") = gen::kMaxKeyColumns;
  m.def("generate_keys", &keys, nb::arg("n"), nb::arg("distribution"), nb::arg("distinct"), nb::arg("zipf_exponent"),
        nb::arg("domain"), nb::arg("columns"), nb::arg("seed"), nb::arg("device"), nb::arg("out").none());
  m.def("generate_values", &values, nb::arg("n"), nb::arg("lo"), nb::arg("hi"), nb::arg("dtype"), nb::arg("seed"),
        nb::arg("device"), nb::arg("out").none());
  m.def("generate_pkpk", &pkpk, nb::arg("r_rows"), nb::arg("s_rows"), nb::arg("match_rate"), nb::arg("key_domain"),
        nb::arg("seed"), nb::arg("device"));
  m.def("describe_keys",
        [](const std::string& distribution, std::uint64_t distinct, double zipf_exponent, std::uint64_t domain,
           std::uint64_t n) {
          const gen::KeySpec spec = key_spec(distribution, distinct, zipf_exponent, domain);
          return std::make_pair(spec.describe(), spec.distinct_keys(n));
        },
        nb::arg("distribution"), nb::arg("distinct"), nb::arg("zipf_exponent"), nb::arg("domain"), nb::arg("n"),
        "(the generator's description of the key spec, the distinct keys n rows hold: exact but for Zipf, an upper bound)");
}

}  // namespace hashlab::python

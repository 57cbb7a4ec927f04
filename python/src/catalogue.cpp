// The catalogue (catalogue/include/hashlab/catalogue/catalogue.hpp) in Python: every group-by,
// join and table of the suite by name, made on the caller's columns (device columns in place,
// host ones uploaded by the entry), run, timed with the harness's one timing routine, and their
// statistics as named numbers and arrays. No algorithm is bound by hand: a new entry of the
// catalogue is in Python without a line here.
#include <nanobind/nanobind.h>
#include <nanobind/stl/map.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <cstdint>
#include <list>
#include <map>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include "columns.hpp"
#include "hashlab/catalogue/catalogue.hpp"
#include "hashlab/common/cuda_check.hpp"
#include "hashlab/common/device.hpp"
#include "hashlab/harness/timing.hpp"

namespace hashlab::python {
namespace {

namespace cat = hashlab::catalogue;

/// The columns of one call as the catalogue reads them, and what keeps their memory alive: the
/// caller's arrays (Column owners) and the host conversions of dtypes the catalogue does not take.
class CallColumns {
 public:
  /// A key column: uint32 in place (host or device); other host integers checked and converted
  /// (key_vector: the commands' messages).
  cat::Column key(const Column& c) {
    keep_.push_back(c);
    if (c.dtype() == DType::kUint32) return view(c, cat::DType::kUint32);
    if (c.on_device()) refuse_device(c, "uint32 keys");
    u32_.push_back(key_vector(c));
    return cat::Column::on_host(u32_.back(), c.name());
  }
  /// A value column: uint32, int32, int64 and float64 in place; host uint64 (checked) and float32
  /// converted to int64 and float64. The catalogue refuses a NaN, on the host or the device.
  cat::Column value(const Column& c) {
    keep_.push_back(c);
    switch (c.dtype()) {
      case DType::kUint32: return view(c, cat::DType::kUint32);
      case DType::kInt32: return view(c, cat::DType::kInt32);
      case DType::kInt64: return view(c, cat::DType::kInt64);
      case DType::kFloat64: return view(c, cat::DType::kFloat64);
      default: break;
    }
    if (c.on_device()) refuse_device(c, "uint32, int32, int64 or float64 values");
    Values v = value_vector(c);
    if (v.real) {
      f64_.push_back(std::move(v.reals));
      return cat::Column::on_host(f64_.back(), c.name());
    }
    i64_.push_back(std::move(v.ints));
    return cat::Column::on_host(i64_.back(), c.name());
  }
  /// Row numbers 0..rows-1 (a join's or table's values when the caller gives none).
  cat::Column row_numbers(std::size_t rows, const std::string& name) {
    u32_.emplace_back(rows);
    std::iota(u32_.back().begin(), u32_.back().end(), 0u);
    return cat::Column::on_host(u32_.back(), name);
  }
  /// Makes `stream` wait for every device column's producer.
  void wait(cudaStream_t stream) const {
    for (const Column& c : keep_) c.wait(stream);
  }
  bool any_on_device() const {
    for (const Column& c : keep_)
      if (c.on_device()) return true;
    return false;
  }

 private:
  static cat::Column view(const Column& c, cat::DType dtype) {
    cat::Column out;
    out.name = c.name();
    out.dtype = dtype;
    out.rows = c.rows();
    (c.on_device() ? out.device : out.host) = c.data();
    return out;
  }
  [[noreturn]] static void refuse_device(const Column& c, const std::string& takes) {
    throw std::invalid_argument(c.name() + ": a device column of " + typestr(c.dtype()) + " where the catalogue takes " +
                                takes + "; convert it on the device first (cupy: x.astype('int64'))");
  }
  std::vector<Column> keep_;
  std::list<std::vector<std::uint32_t>> u32_;  // lists: the views point into them, so they never move
  std::list<std::vector<std::int64_t>> i64_;
  std::list<std::vector<double>> f64_;
};

cat::Options options_of(const std::map<std::string, std::string>& given) { return {given.begin(), given.end()}; }

nb::dict statistics_dict(const cat::Statistics& s) {
  nb::dict numbers, arrays, units;
  for (const auto& n : s.numbers) {
    numbers[n.name.c_str()] = n.value;
    units[n.name.c_str()] = n.unit;
  }
  for (const auto& a : s.arrays) {
    arrays[a.name.c_str()] = numpy_array(std::vector<double>(a.values));
    units[a.name.c_str()] = a.unit;
  }
  nb::dict out;
  out["numbers"] = numbers;
  out["arrays"] = arrays;
  out["units"] = units;
  return out;
}

nb::dict timing_dict(const harness::Timing& t, harness::Clock clock) {
  nb::dict d;
  d["median_ms"] = t.median_ms;
  d["min_ms"] = t.min_ms;
  d["max_ms"] = t.max_ms;
  d["repetitions"] = t.repetitions;
  d["clock"] = harness::to_string(clock);
  return d;
}

/// Device memory handed to Python without a copy (the DeviceArray takes the buffer over).
template <class T>
nb::object device_array(DeviceBuffer<T>&& buffer) {
  const std::size_t n = buffer.size();
  return nb::cast(DeviceArray(std::move(buffer), {n}));
}

/// The addresses an algorithm reads its columns at, as integers (Python compares them with its
/// arrays' own: equal means used in place).
std::vector<std::uintptr_t> addresses(const std::vector<const void*>& pointers) {
  std::vector<std::uintptr_t> out;
  for (const void* p : pointers) out.push_back(reinterpret_cast<std::uintptr_t>(p));
  return out;
}

harness::TimingPlan plan_of(int warmups, int repetitions) {
  harness::TimingPlan plan;
  plan.warmups = warmups;
  plan.repetitions = repetitions;
  plan.validate();
  return plan;
}

/// Waits for the work stream; nothing on a machine without a GPU (where only the CPU entries run).
void synchronize() {
  static const bool gpu = gpu_available();
  if (gpu) HASHLAB_CUDA_CHECK(cudaStreamSynchronize(work_stream()));
}

/// Runs fn without the GIL, then waits for the stream (a call returns finished work).
template <class Fn>
auto finished(Fn&& fn) {
  nb::gil_scoped_release release;
  if constexpr (std::is_void_v<decltype(fn())>) {
    fn();
    synchronize();
  } else {
    auto out = fn();
    synchronize();
    return out;
  }
}

// ---- group-by --------------------------------------------------------------------------------------

class GroupByCall {
 public:
  GroupByCall(const std::string& algo, const std::vector<Column>& keys, const std::vector<Column>& values,
              const std::vector<std::string>& aggregations, const std::map<std::string, std::string>& options)
      : entry_(cat::groupby_entry(algo)), options_(options_of(options)) {
    for (const Column& k : keys) input_.keys.push_back(columns_.key(k));
    for (const Column& v : values) input_.values.push_back(columns_.value(v));
    input_.aggregations.clear();
    for (const auto& a : aggregations) input_.aggregations.push_back(reference::parse_aggregation(a));
    entry_.check(input_, options_);
    columns_.wait(work_stream());
    groupby_ = finished([&] { return entry_.make(input_, options_, work_stream()); });
  }
  void run() {
    finished([&] {
      groupby_->prepare(work_stream());
      groupby_->run(work_stream());
    });
  }
  std::pair<std::vector<nb::object>, std::vector<nb::object>> result() {
    reference::GroupByResult r = finished([&] { return groupby_->result(work_stream()); });
    std::pair<std::vector<nb::object>, std::vector<nb::object>> out;
    for (auto& k : r.keys) out.first.push_back(numpy_array(std::move(k)));
    for (auto& a : r.aggregates)
      out.second.push_back(a.is_exact() ? numpy_array(std::move(a.exact)) : numpy_array(std::move(a.real)));
    return out;
  }
  /// The same groups left on the device, as (key arrays, aggregate arrays) of the answer's own
  /// device memory; None for a group-by whose groups are on the host.
  nb::object device_result() {
    auto r = finished([&] { return groupby_->device_result(work_stream()); });
    if (!r) return nb::none();
    nb::list keys, aggregates;
    for (auto& k : r->keys) keys.append(device_array(std::move(k)));
    for (auto& a : r->aggregates)
      aggregates.append(a.exact ? device_array(std::move(a.exact_values)) : device_array(std::move(a.real_values)));
    return nb::make_tuple(keys, aggregates);
  }
  std::vector<std::uintptr_t> device_inputs() const { return addresses(groupby_->device_inputs()); }
  nb::dict statistics(bool arrays) {
    return statistics_dict(finished([&] { return groupby_->statistics(work_stream(), arrays); }));
  }
  std::vector<std::string> warnings() const { return groupby_->warnings(); }
  std::vector<std::string> output_names() const { return cat::output_names(input_); }
  nb::dict time(int warmups, int repetitions) {
    const harness::TimingPlan plan = plan_of(warmups, repetitions);
    const harness::Timing t = finished([&] {
      return harness::time_on(entry_.clock, plan, work_stream(), [&](cudaStream_t s) { groupby_->run(s); },
                              [&](cudaStream_t s) { groupby_->prepare(s); });
    });
    return timing_dict(t, entry_.clock);
  }
  std::size_t bytes() const { return groupby_->bytes(); }

 private:
  const cat::GroupByEntry& entry_;
  cat::Options options_;
  CallColumns columns_;
  cat::GroupByInput input_;
  std::unique_ptr<cat::GroupBy> groupby_;
};

// ---- join ------------------------------------------------------------------------------------------

class JoinCall {
 public:
  JoinCall(const std::string& algo, const Column& r_keys, const Column* r_values, const Column& s_keys,
           const Column* s_values, const std::map<std::string, std::string>& options)
      : entry_(cat::join_entry(algo)), options_(options_of(options)) {
    input_.r_keys = columns_.key(r_keys);
    input_.s_keys = columns_.key(s_keys);
    input_.r_values = r_values ? columns_.key(*r_values) : columns_.row_numbers(r_keys.rows(), "r_row");
    input_.s_values = s_values ? columns_.key(*s_values) : columns_.row_numbers(s_keys.rows(), "s_row");
    entry_.check(input_, options_);
    columns_.wait(work_stream());
    join_ = finished([&] { return entry_.make(input_, options_, work_stream()); });
  }
  void run() {
    finished([&] {
      join_->prepare(work_stream());
      join_->run(work_stream());
    });
  }
  /// (key, R's value, S's value) sorted by key, on the host.
  std::tuple<nb::object, nb::object, nb::object> result() {
    const auto rows = finished([&] { return join_->result(work_stream()); });
    std::vector<std::uint32_t> key(rows.size()), r(rows.size()), s(rows.size());
    for (std::size_t i = 0; i < rows.size(); ++i) {
      key[i] = rows[i].key;
      r[i] = rows[i].value1;
      s[i] = rows[i].value2;
    }
    return {numpy_array(std::move(key)), numpy_array(std::move(r)), numpy_array(std::move(s))};
  }
  /// The same rows where the GPU join left them, copied into arrays of their own (device to
  /// device), in the algorithm's order; None for a CPU join.
  nb::object device_result() {
    const pkpk::JoinedRows* rows = join_->device_rows();
    if (rows == nullptr) return nb::none();
    const std::size_t n = rows->size;
    std::vector<DeviceBuffer<std::uint32_t>> out;
    finished([&] {
      for (const auto* from : {&rows->key, &rows->value1, &rows->value2}) {
        out.emplace_back(n, work_stream());
        if (n > 0)
          HASHLAB_CUDA_CHECK(cudaMemcpyAsync(out.back().data(), from->data(), n * sizeof(std::uint32_t),
                                             cudaMemcpyDeviceToDevice, work_stream()));
      }
    });
    return nb::make_tuple(DeviceArray(std::move(out[0]), {n}), DeviceArray(std::move(out[1]), {n}),
                          DeviceArray(std::move(out[2]), {n}));
  }
  std::vector<std::uintptr_t> device_inputs() const { return addresses(join_->device_inputs()); }
  bool sorted_output() const { return entry_.sorted_output; }
  nb::dict statistics(bool arrays) {
    return statistics_dict(finished([&] { return join_->statistics(work_stream(), arrays); }));
  }
  std::vector<std::string> warnings() const { return join_->warnings(); }
  nb::dict time(int warmups, int repetitions) {
    const harness::TimingPlan plan = plan_of(warmups, repetitions);
    const harness::Timing t = finished([&] {
      return harness::time_on(entry_.clock, plan, work_stream(), [&](cudaStream_t s) { join_->run(s); },
                              [&](cudaStream_t s) { join_->prepare(s); });
    });
    return timing_dict(t, entry_.clock);
  }

 private:
  const cat::JoinEntry& entry_;
  cat::Options options_;
  CallColumns columns_;
  cat::JoinInput input_;
  std::unique_ptr<cat::Join> join_;
};

// ---- tables ----------------------------------------------------------------------------------------

class TableCall {
 public:
  TableCall(const std::string& algo, const Column& keys, const Column* values, const Column& queries,
            const std::map<std::string, std::string>& options)
      : entry_(cat::table_entry(algo)), options_(options_of(options)) {
    input_.keys = columns_.key(keys);
    input_.values = values ? columns_.key(*values) : columns_.row_numbers(keys.rows(), "row");
    input_.queries = columns_.key(queries);
    entry_.check(input_, options_);
    columns_.wait(work_stream());
    table_ = finished([&] { return entry_.make(input_, options_, work_stream()); });
  }
  void build() {
    finished([&] {
      table_->reset(work_stream());
      table_->build(work_stream());
    });
  }
  void probe() {
    finished([&] { table_->probe(work_stream()); });
  }
  /// (count per query or None, value per query or None, total matches), as the probe answers.
  std::tuple<nb::object, nb::object, std::uint64_t> result() {
    cat::Lookup r = finished([&] { return table_->result(work_stream()); });
    nb::object count = r.count.empty() ? nb::none() : numpy_array(std::move(r.count));
    nb::object value = r.value.empty() ? nb::none() : numpy_array(std::move(r.value));
    return {count, value, r.total};
  }
  /// The same answers left on the device: (count or None, value or None, total), the arrays the
  /// answer's own device memory; None for a table whose answers are on the host.
  nb::object device_result() {
    auto r = finished([&] { return table_->device_result(work_stream()); });
    if (!r) return nb::none();
    nb::object count = r->count.empty() ? nb::none() : device_array(std::move(r->count));
    nb::object value = r->value.empty() ? nb::none() : device_array(std::move(r->value));
    return nb::make_tuple(count, value, r->total);
  }
  std::vector<std::uintptr_t> device_inputs() const { return addresses(table_->device_inputs()); }
  std::string answers() const { return cat::to_string(entry_.answers(options_)); }
  /// What the probe answers, as a word: value, count_and_value, count or total.
  std::string answers_kind() const {
    switch (entry_.answers(options_)) {
      case cat::Answers::kValue: return "value";
      case cat::Answers::kCountAndValue: return "count_and_value";
      case cat::Answers::kCount: return "count";
      case cat::Answers::kTotal: return "total";
    }
    return "unknown";
  }
  /// The last build and probe against the CPU reference: "" when right, else the first difference.
  std::string check() {
    return finished([&] {
      const cat::LookupReference reference = cat::make_lookup_reference(input_);
      return table_->check(reference, work_stream());
    });
  }
  nb::dict statistics(bool arrays) {
    return statistics_dict(finished([&] { return table_->statistics(work_stream(), arrays); }));
  }
  std::vector<std::string> warnings() const { return table_->warnings(); }
  std::size_t bytes() const { return table_->bytes(); }
  nb::dict time_build(int warmups, int repetitions) {
    const harness::TimingPlan plan = plan_of(warmups, repetitions);
    const auto t = finished([&] {
      return harness::time_gpu(plan, work_stream(), [&](cudaStream_t s) { table_->build(s); },
                               [&](cudaStream_t s) { table_->reset(s); });
    });
    return timing_dict(t, harness::Clock::kDevice);
  }
  nb::dict time_probe(int warmups, int repetitions) {
    const harness::TimingPlan plan = plan_of(warmups, repetitions);
    const auto t = finished([&] {
      return harness::time_gpu(plan, work_stream(), [&](cudaStream_t s) { table_->probe(s); });
    });
    return timing_dict(t, harness::Clock::kDevice);
  }

 private:
  const cat::TableEntry& entry_;
  cat::Options options_;
  CallColumns columns_;
  cat::TableInput input_;
  std::unique_ptr<cat::Table> table_;
};

// ---- the entries -----------------------------------------------------------------------------------

nb::list option_list(const std::vector<cat::OptionSpec>& specs) {
  nb::list out;
  for (const auto& o : specs) {
    nb::dict d;
    d["name"] = o.name;
    d["help"] = o.help;
    d["default"] = o.default_value;
    out.append(d);
  }
  return out;
}

nb::list statistic_list(const std::vector<cat::StatisticSpec>& specs) {
  nb::list out;
  for (const auto& s : specs) {
    nb::dict d;
    d["name"] = s.name;
    d["unit"] = s.unit;
    d["description"] = s.description;
    d["array"] = s.array;
    out.append(d);
  }
  return out;
}

template <class Entry>
nb::dict entry_dict(const char* operation, const Entry& e) {
  nb::dict d;
  d["operation"] = operation;
  d["name"] = e.name;
  d["description"] = e.description;
  d["needs_gpu"] = e.needs_gpu;
  d["options"] = option_list(e.options);
  d["statistics"] = statistic_list(e.statistics);
  return d;
}

nb::list entries() {
  nb::list out;
  for (const auto& e : cat::groupby_entries()) {
    nb::dict d = entry_dict("groupby", e);
    d["clock"] = harness::to_string(e.clock);
    d["max_key_columns"] = e.max_key_columns;
    d["across_servers"] = e.across_servers;
    out.append(d);
  }
  for (const auto& e : cat::join_entries()) {
    nb::dict d = entry_dict("join", e);
    d["clock"] = harness::to_string(e.clock);
    d["sorted_output"] = e.sorted_output;
    d["across_servers"] = e.across_servers;
    out.append(d);
  }
  for (const auto& e : cat::table_entries()) {
    nb::dict d = entry_dict("table", e);
    d["clock"] = harness::to_string(harness::Clock::kDevice);
    d["max_load"] = e.max_load;
    d["across_servers"] = false;  // a table is built and probed on one GPU
    out.append(d);
  }
  return out;
}

}  // namespace

void bind_catalogue(nb::module_& m) {
  m.def("catalogue_entries", &entries, "Every entry of the catalogue as a dict (operation, name, description, "
                                       "needs_gpu, clock, across_servers, options, statistics, ...).");

  nb::class_<GroupByCall>(m, "GroupByCall")
      .def(nb::init<const std::string&, const std::vector<Column>&, const std::vector<Column>&,
                    const std::vector<std::string>&, const std::map<std::string, std::string>&>(),
           nb::arg("algo"), nb::arg("keys"), nb::arg("values"), nb::arg("aggregations"), nb::arg("options"))
      .def("run", &GroupByCall::run)
      .def("result", &GroupByCall::result)
      .def("device_result", &GroupByCall::device_result)
      .def("device_inputs", &GroupByCall::device_inputs)
      .def("statistics", &GroupByCall::statistics, nb::arg("arrays") = true)
      .def("warnings", &GroupByCall::warnings)
      .def("output_names", &GroupByCall::output_names)
      .def("time", &GroupByCall::time, nb::arg("warmups"), nb::arg("repetitions"))
      .def_prop_ro("bytes", &GroupByCall::bytes);

  nb::class_<JoinCall>(m, "JoinCall")
      .def(nb::init<const std::string&, const Column&, const Column*, const Column&, const Column*,
                    const std::map<std::string, std::string>&>(),
           nb::arg("algo"), nb::arg("r_keys"), nb::arg("r_values").none(), nb::arg("s_keys"),
           nb::arg("s_values").none(), nb::arg("options"))
      .def("run", &JoinCall::run)
      .def("result", &JoinCall::result)
      .def("device_result", &JoinCall::device_result)
      .def("device_inputs", &JoinCall::device_inputs)
      .def_prop_ro("sorted_output", &JoinCall::sorted_output)
      .def("statistics", &JoinCall::statistics, nb::arg("arrays") = true)
      .def("warnings", &JoinCall::warnings)
      .def("time", &JoinCall::time, nb::arg("warmups"), nb::arg("repetitions"));

  nb::class_<TableCall>(m, "TableCall")
      .def(nb::init<const std::string&, const Column&, const Column*, const Column&,
                    const std::map<std::string, std::string>&>(),
           nb::arg("algo"), nb::arg("keys"), nb::arg("values").none(), nb::arg("queries"), nb::arg("options"))
      .def("build", &TableCall::build)
      .def("probe", &TableCall::probe)
      .def("result", &TableCall::result)
      .def("device_result", &TableCall::device_result)
      .def("device_inputs", &TableCall::device_inputs)
      .def("answers", &TableCall::answers)
      .def("answers_kind", &TableCall::answers_kind)
      .def("check", &TableCall::check)
      .def("statistics", &TableCall::statistics, nb::arg("arrays") = true)
      .def("warnings", &TableCall::warnings)
      .def_prop_ro("bytes", &TableCall::bytes)
      .def("time_build", &TableCall::time_build, nb::arg("warmups"), nb::arg("repetitions"))
      .def("time_probe", &TableCall::time_probe, nb::arg("warmups"), nb::arg("repetitions"));
}

}  // namespace hashlab::python

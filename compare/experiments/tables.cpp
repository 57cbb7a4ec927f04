// compare/tables: build and lookup rate vs load factor and vs multiplicity, and bytes per key, of
// every table of the catalogue on identical inputs (HashGraph Fig. 2 + cuckoo Fig. 4.4 side by
// side). The lookups are the build keys in input order: every query hits.
#include <stdexcept>
#include <string>
#include <vector>

#include "experiments.hpp"
#include "hashlab/catalogue/checks.hpp"
#include "hashlab/catalogue/table.hpp"
#include "hashlab/common/generator.hpp"
#include "hashlab/common/memory.hpp"
#include "hashlab/compare/plan.hpp"

namespace hashlab::compare::experiments {
namespace {

using harness::Point;
using harness::PointContext;
using harness::RunOptions;

constexpr std::uint32_t kMaxTableValue = 0xfffffffeu;  // below kNotFound: a miss is never a value

struct TableInput {
  DeviceBuffer<std::uint32_t> keys, values;
  std::vector<std::uint32_t> host_keys, host_values;
  catalogue::LookupReference reference;  // of the keys probed with themselves
};

TableInput& table_input(PointContext& ctx, const gen::KeySpec& spec) {
  const std::uint64_t n = ctx.point().n;
  const std::string key = "tables:" + spec.describe() + ":" + std::to_string(n) + ":" + std::to_string(ctx.seed());
  return ctx.cached<TableInput>(key, [&] {
    ctx.drop_cached("tables:");
    gen::validate(spec, n);
    TableInput in;
    in.keys = DeviceBuffer<std::uint32_t>(n, ctx.stream());
    in.values = DeviceBuffer<std::uint32_t>(n, ctx.stream());
    gen::generate_keys(spec, ctx.seed(), in.keys.data(), n, ctx.stream());
    gen::generate_values<std::uint32_t>(ctx.seed() + 1, 0, kMaxTableValue, in.values.data(), n, ctx.stream());
    in.host_keys = in.keys.to_host(ctx.stream());
    in.host_values = in.values.to_host(ctx.stream());
    in.reference = catalogue::make_lookup_reference(in.host_keys, in.host_values, in.host_keys);
    return in;
  });
}

void run_tables(PointContext& ctx) {
  const Point& p = ctx.point();
  const TableVariant& variant = table_variant(p.variant);
  const bool multi = p.param_name == kMultiplicity;
  if (!multi && p.param_name != kLoadFactor)
    throw std::invalid_argument("compare tables: unknown parameter '" + p.param_name + "'");
  const gen::KeySpec spec =
      multi ? multiplicity_keys(p.n, p.param_value) : parse_table_keys(ctx.options().option(kKeysOption));
  TableInput& in = table_input(ctx, spec);
  if (!multi && !in.reference.keys_unique)
    throw std::runtime_error("compare tables: the load sweep's keys (" + spec.describe() + ") repeat");

  // The load sweep: the table at the point's load (the sorted array has none); the multiplicity
  // sweep: each table's multivalue form at its default load.
  const catalogue::TableEntry& entry = catalogue::table_entry(variant.entry);
  catalogue::Options options = variant.options;
  if (multi && entry.name != "hashgraph") options["multivalue"] = "true";
  if (!multi && !runs_at_load(variant, p.param_value))
    throw std::invalid_argument("compare tables: " + variant.name + " does not run at load factor " +
                                std::to_string(p.param_value));
  if (!multi && entry.max_load > 0) options["load"] = std::to_string(p.param_value);
  const catalogue::TableInput input{catalogue::Column::in_both(in.host_keys, in.keys.data(), "keys"),
                                    catalogue::Column::in_both(in.host_values, in.values.data(), "values"),
                                    catalogue::Column::in_both(in.host_keys, in.keys.data(), "queries")};
  auto table = entry.make(input, options, ctx.stream());
  const auto build = ctx.time_gpu([&](cudaStream_t s) { table->build(s); }, [&](cudaStream_t s) { table->reset(s); });
  const catalogue::Statistics built = table->statistics(ctx.stream(), false);  // of the last timed build
  const auto lookup = ctx.time_gpu([&](cudaStream_t s) { table->probe(s); });
  const double n = static_cast<double>(p.n);
  ctx.report_time("build", build, n, "keys");
  ctx.report_time("lookup", lookup, n, "queries");
  ctx.report_value("bytes_per_key", static_cast<double>(table->bytes()) / n, "B");
  ctx.report_value("distinct_keys", static_cast<double>(in.reference.unique_keys.size()), "keys");
  report_statistics(ctx, built, table->warnings(), {});
  ctx.note(entry.name + " probe: " + catalogue::to_string(entry.answers(options)));
  const std::string problem = table->check(in.reference, ctx.stream());
  ctx.verify(problem.empty(), problem);
}

}  // namespace

harness::Experiment tables() {
  std::vector<std::string> names;
  for (const auto& v : table_variants()) names.push_back(v.name);
  return harness::make_experiment(
      kPaper, "tables", "HashGraph Fig. 2 + cuckoo Fig. 4.4",
      "every table side by side: build and lookup rate vs load factor and vs multiplicity, bytes per key; cuckoo (4 "
      "functions; multivalue table for repeats), HashGraph V1/V2 (probe-standard lookup), linear probing, sorted "
      "array",
      names, tables_plan, run_tables);
}

harness::ModuleOption tables_keys_option() {
  return {kPaper, kKeysOption,
          "compare/tables: the unique keys of the load sweep: unique (random), sequence (HashGraph Fig. 2's 0..N-1) "
          "or shuffled",
          "unique", [](const std::string& v) { parse_table_keys(v); }};
}

}  // namespace hashlab::compare::experiments

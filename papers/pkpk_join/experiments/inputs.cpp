// The pair of tables of a point, the oracle and the variant lists (inputs.cuh).
#include "inputs.cuh"

#include "hashlab/common/radix_sort.hpp"
#include "hashlab/common/threads.hpp"

namespace hashlab::pkpk::experiments {

/// Sorts joined rows by key (unique in a pk-pk join), on all cores.
void sort_by_key(std::vector<JoinedRow>& rows) {
  cpu::radix_sort(rows, [](const JoinedRow& row) { return row.key; });
}

/// The smallest key domain >= the report's 10^8 that holds the keys `spec` needs, with room.
std::uint64_t domain_for(std::uint64_t r_rows, std::uint64_t s_rows) {
  return std::min<std::uint64_t>(gen::kMaxKeyDomain, std::max<std::uint64_t>(kReportKeyDomain, 2 * (r_rows + s_rows)));
}

Input& input_for(PointContext& ctx, const gen::PkPkSpec& spec) {
  const std::string key = "input:" + spec.describe();
  return ctx.cached<Input>(key, [&] {
    ctx.drop_cached("input:");
    Input in;
    in.spec = spec;
    cudaStream_t st = ctx.stream();
    in.r_keys = DeviceBuffer<std::uint32_t>(spec.r_rows, st);
    in.s_keys = DeviceBuffer<std::uint32_t>(spec.s_rows, st);
    in.r_values = DeviceBuffer<std::uint32_t>(spec.r_rows, st);
    in.s_values = DeviceBuffer<std::uint32_t>(spec.s_rows, st);
    gen::generate_pkpk(spec, ctx.seed(), in.r_keys.data(), in.s_keys.data(), st);
    gen::generate_values<std::uint32_t>(ctx.seed() + 1, 0, 0xfffffffeu, in.r_values.data(), spec.r_rows, st);
    gen::generate_values<std::uint32_t>(ctx.seed() + 2, 0, 0xfffffffeu, in.s_values.data(), spec.s_rows, st);
    in.host_r_keys = in.r_keys.to_host(st);
    in.host_s_keys = in.s_keys.to_host(st);
    in.host_r_values = in.r_values.to_host(st);
    in.host_s_values = in.s_values.to_host(st);
    in.expected = oracle_join(in.host_r_keys, in.host_r_values, in.host_s_keys, in.host_s_values, &in.oracle);
    return in;
  });
}

/// Checks `got` (sorted by key unless `sort_first`) against the oracle.
void verify_rows(PointContext& ctx, const Input& in, std::vector<JoinedRow> got, bool sort_first) {
  if (sort_first) sort_by_key(got);
  if (!in.oracle.empty()) ctx.note(in.oracle);
  if (got.size() != in.expected.size()) {
    ctx.verify(false, std::to_string(got.size()) + " rows, expected " + std::to_string(in.expected.size()));
    return;
  }
  // The first row that differs, found on all cores (the scaling sweep checks 10^8 rows and more).
  const std::size_t diff =
      cpu::first_index_where(got.size(), [&](std::size_t i) { return !(got[i] == in.expected[i]); });
  ctx.verify(diff == got.size(), diff == got.size() ? "" : "row " + std::to_string(diff) + " differs (key " +
                                                               std::to_string(got[diff].key) + ")");
}

// The variant lists are read while the experiments register (static initialisation, register.cpp):
// function-local statics, so that they are built before that whatever the order of the files.
const Variants& gpu_variants() {
  static const Variants variants = {"bsp", "sort_join", "hash_join"};
  return variants;
}

// Measured where the report measures (1M, profile) and at scale (scaling): the values carried
// through the sort (sort_join) against the report's hmap1 / hmap2 lookups on bare keys
// (sort_join_hmap); the report's rejected atomic scatter (bsp_atomic) against its segmented prefix
// sum (bsp); the host-to-device copy of both tables (h2d_pinned) that the report's GPU time is 97%
// of; the CPU join the report says the GPU join beats; and Crystal's join (crystal), which the
// report compares with on its data.
const Variants& all_variants() {
  static const Variants variants = {"bsp",        "bsp_atomic", "sort_join", "sort_join_hmap", "hash_join",
                                    "h2d_pinned", "cpu",        "crystal"};
  return variants;
}

// The profile's: every variant, and Crystal's join on its own driver's data too (crystal_dense:
// dense keys, every row matching), beside the report's data.
const Variants& profile_variants() {
  static const Variants variants = [] {
    Variants v = all_variants();
    v.push_back("crystal_dense");
    return v;
  }();
  return variants;
}

// The key domain sweep's: the GPU joins and Crystal's, whose table grows with the domain until its
// premise fails (a range beyond 2^31 - 1 keys: skipped there, saying so).
const Variants& key_domain_variants() {
  static const Variants variants = [] {
    Variants v = gpu_variants();
    v.push_back("crystal");
    return v;
  }();
  return variants;
}

}  // namespace hashlab::pkpk::experiments

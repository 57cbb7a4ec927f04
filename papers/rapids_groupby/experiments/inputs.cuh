// What the rapids_groupby experiments share: the report's datasets with their CPU reference
// answers (built once per point's input and shared by its variants), the timing of a group-by
// with the copies the report included, and the comparison of the report's variants.
//
// The report's GPU times include the copies (its main_hash.cu times the whole call, from pinned
// host input to host output): the group-bys that are compared with the CPU also report
// `groupby_with_copies_time`. Every point is verified against the CPU reference on the same input.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "../src/dataset.hpp"
#include "hashlab/common/memory.hpp"
#include "hashlab/harness/experiment.hpp"
#include "hashlab/rapids_groupby/groupby.hpp"
#include "hashlab/reference/groupby.hpp"

namespace hashlab::rapids::experiments {

using harness::make_experiment;
using harness::PhaseTiming;
using harness::Point;
using harness::PointContext;
using harness::RunOptions;
using harness::sweep;
using harness::Variants;

// The report's configuration (sections 4 and 5): 2 key columns, 3 value columns, {sum, sum, min}.
constexpr int kKeyColumns = 2;
extern const std::vector<Aggregation> kReportOps;  // {sum, sum, min}
constexpr std::int32_t kValueMax = 99999;  // integer values in [0, 99999] (Fig. 2's sums are ~5e8)

/// The input in pinned host memory and a second device copy to copy it into, and pinned room for
/// the groups: what `time_with_copies` needs to time a group-by as the report did, from pinned
/// host input to host output. Built on first use (untimed) and kept with its dataset.
struct Staging {
  PinnedBuffer<std::uint32_t> keys;
  PinnedBuffer<std::int32_t> values;
  DeviceBuffer<std::uint32_t> device_keys;
  DeviceBuffer<std::int32_t> device_values;
  PinnedBuffer<std::uint32_t> out_keys;  // key_columns x groups, column-major
  PinnedBuffer<std::int64_t> out_exact;  // groups per exact output column
  PinnedBuffer<double> out_real;         // groups per real output column
};

/// A dataset of the experiments (int32 values in [0, kValueMax]) with its ops, its reference
/// result and, once a point needs it, its staging.
struct ReportDataset : Dataset<std::int32_t> {
  std::vector<Aggregation> ops;
  reference::GroupByResult expected;
  bool expected_is_reference = true;  // else reference::sorted_groupby's (above kOracleReferenceRows)
  std::shared_ptr<Staging> staging;  // see staged()

  reference::GroupByResult cpu_groupby() const { return Dataset::cpu_groupby(ops); }
};

/// The dataset of a point, built once per (rows, unique keys, columns) and shared by its variants.
ReportDataset& dataset(PointContext& ctx, std::size_t rows, std::uint64_t unique, int key_columns,
                 const std::vector<Aggregation>& ops);

void verify_against(PointContext& ctx, const ReportDataset& d, const reference::GroupByResult& got);
/// What verify_against checks, without the context: "" when `got` equals the reference, else the
/// first difference (safe on any thread).
std::string difference_from_reference(const ReportDataset& d, const reference::GroupByResult& got);

double mean_of(const std::vector<double>& x);

/// The sample standard deviation (0 for fewer than two values).
double sd_of(const std::vector<double>& x);

// ---- the copies the report's times include ---------------------------------------------------

/// The dataset's staging, built on first use.
Staging& staged(ReportDataset& d, cudaStream_t stream);

/// Copies the groups into the staging's pinned buffers (asynchronous on `stream`). false when
/// they do not fit: more groups than the reference has, a wrong result that verification reports.
bool copy_groups_to_host(const DeviceGroups& out, Staging& s, cudaStream_t stream);

/// The groups that reached the pinned buffers, in the reference's form (sorted by key), read
/// after the stream has passed the copies.
reference::GroupByResult host_groups(const DeviceGroups& out, const Staging& s);

/// Times `run(input, stream)` (a group-by returning DeviceGroups) as the report's GPU time: the
/// input copied from pinned host memory into a device buffer first, the groups copied back to
/// pinned host memory after (device buffers allocated beforehand, outside the timed region).
/// Reports `groupby_with_copies_time` and verifies the groups that reached the host.
template <class Run>
void time_with_copies(PointContext& ctx, ReportDataset& d, Run run) {
  Staging& s = staged(d, ctx.stream());
  GroupByInput<std::int32_t> in = d.input();
  in.keys = s.device_keys.data();
  in.values = s.device_values.data();
  DeviceGroups out;
  bool fits = true;
  const auto t = ctx.time_gpu([&](cudaStream_t stream) {
    s.device_keys.copy_from_host(s.keys.data(), s.keys.size(), stream);
    s.device_values.copy_from_host(s.values.data(), s.values.size(), stream);
    out = run(in, stream);
    fits = copy_groups_to_host(out, s, stream) && fits;
  });
  HASHLAB_CUDA_CHECK(cudaStreamSynchronize(ctx.stream()));
  ctx.report_time("groupby_with_copies", t, static_cast<double>(d.rows), "rows");
  if (!fits) {
    ctx.verify(false, "with copies: the groups do not fit the reference's group count");
    return;
  }
  verify_against(ctx, d, host_groups(out, s));
}

/// The phases of the group-by with `opt` (Fig. 4's sampling overhead, Fig. 5's breakdown), timed
/// by PointContext::time_phases apart from the whole group-by's timing: `predict_phase`,
/// `fill_phase` and `extract_phase` rows (median, minimum and maximum), every run verified.
void report_phases(PointContext& ctx, const ReportDataset& d, HashGroupBy& groupby, const GroupByOptions& opt);

void report_stats(PointContext& ctx, const GroupByStats& s, std::uint64_t true_cardinality);

/// Runs one variant of the report's comparison on `d`: times it, verifies it, reports it.
/// Variants: cpu_stl, sort_thrust, hash_cpu_sampling, hash_gpu_sampling, hash_<factor>x. With
/// `with_copies`, sort_thrust and the sampled hash group-bys are also timed with the copies.
void run_variant(PointContext& ctx, ReportDataset& d, const std::string& variant, double unique, bool with_copies);

}  // namespace hashlab::rapids::experiments

// Sections 4.5.1 and 4.5.4's query order: sorted queries help binary search, not hashing.
#include <string>
#include <vector>

#include "hashlab/baselines/sorted_array.hpp"
#include "hashlab/common/memory.hpp"
#include "hashlab/common/primitives.hpp"
#include "hashlab/cuckoo/cuckoo_table.hpp"

#include "experiments.hpp"
#include "inputs.cuh"

namespace hashlab::cuckoo::experiments {
namespace {

struct SortedQueries {
  DeviceBuffer<std::uint32_t> keys, values;  // the inserted pairs sorted by key
  std::vector<std::uint32_t> host_values;    // the reference answers, in that order
};

// Param "sorted_queries": 0 queries every inserted key in the generator's random order, 1 the same
// keys in ascending order. Each structure is built once (untimed); the retrieval is timed.
void run_query_order(PointContext& ctx) {
  const Point& pt = ctx.point();
  auto& p = pairs(ctx, pt.n);
  const bool sorted = pt.param_value > 0.5;
  const std::uint32_t* queries = p.keys.data();
  const std::vector<std::uint32_t>* expected = &p.host_values;
  if (sorted) {
    auto& q = ctx.cached<SortedQueries>("sorted_queries:" + std::to_string(pt.n), [&] {
      ctx.drop_cached("sorted_queries:");
      SortedQueries out;
      out.keys = DeviceBuffer<std::uint32_t>(pt.n, ctx.stream());
      out.values = DeviceBuffer<std::uint32_t>(pt.n, ctx.stream());
      HASHLAB_CUDA_CHECK(cudaMemcpyAsync(out.keys.data(), p.keys.data(), pt.n * 4, cudaMemcpyDeviceToDevice, ctx.stream()));
      HASHLAB_CUDA_CHECK(cudaMemcpyAsync(out.values.data(), p.values.data(), pt.n * 4, cudaMemcpyDeviceToDevice, ctx.stream()));
      prim::sort_pairs(out.keys.data(), out.values.data(), pt.n, ctx.stream());
      out.host_values = out.values.to_host(ctx.stream());
      return out;
    });
    queries = q.keys.data();
    expected = &q.host_values;
  }
  DeviceBuffer<std::uint32_t> found(pt.n, ctx.stream());
  found.fill_bytes(0xff, ctx.stream());
  harness::Timing find;
  if (pt.variant == "sorted_array") {
    baseline::SortedArray array;
    array.build(p.keys.data(), p.values.data(), pt.n, ctx.stream());
    find = ctx.time_gpu([&](cudaStream_t s) { array.find(queries, pt.n, found.data(), s); });
  } else {
    CuckooHashTable table(config_from(ctx.options(), 4, 1.25));
    table.build(p.keys.data(), p.values.data(), pt.n, ctx.stream());
    find = ctx.time_gpu([&](cudaStream_t s) { table.find(queries, pt.n, found.data(), s); });
  }
  ctx.report_time("retrieve", find, static_cast<double>(pt.n), "queries");
  const std::size_t wrong = count_wrong(ctx, found, *expected, p.readback);
  ctx.verify(wrong == 0, std::to_string(wrong) + " of " + std::to_string(pt.n) + " lookups returned a wrong value");
}

}  // namespace

harness::Experiment query_order_experiment() {
  return make_experiment(
      "cuckoo", "query_order", "Sections 4.5.1, 4.5.4 (sorted queries)",
      "sorted vs random query order: retrieval of every inserted key in random order (0) and in ascending order "
      "(1), cuckoo (1.25N, 4 functions) vs sorted array",
      {"cuckoo", "sorted_array"},
      [](const RunOptions& o, const Variants& v) {
        return sweep(v, o.pick_sizes({k1M, k32M}, {k1M, k32M, 1u << 27}), "sorted_queries", {0, 1});
      },
      run_query_order);
}

}  // namespace hashlab::cuckoo::experiments

// Section 4.5.1's failed queries: retrieval with a fraction of the queries absent.
#include <string>
#include <vector>

#include "hashlab/common/generator.hpp"
#include "hashlab/common/memory.hpp"
#include "hashlab/cuckoo/cuckoo_table.hpp"

#include "experiments.hpp"
#include "inputs.cuh"

namespace hashlab::cuckoo::experiments {
namespace {

struct Queries {
  DeviceBuffer<std::uint32_t> queries;
  std::vector<std::uint32_t> expected;
};

void run_failed_queries(PointContext& ctx) {
  const Point& pt = ctx.point();
  auto& p = pairs(ctx, pt.n, true);
  const double fraction = pt.param_value;
  auto& q = ctx.cached<Queries>("queries:" + std::to_string(pt.n) + ":" + std::to_string(fraction), [&] {
    ctx.drop_cached("queries:");
    // Query i asks for absent key i with probability `fraction`, else for inserted key i, so
    // present and absent queries are interleaved at random as in an application.
    const auto present = p.keys.to_host(ctx.stream());
    const auto absent = p.absent.to_host(ctx.stream());
    const auto coin = gen::generate_values_host<std::uint32_t>(ctx.seed() + 7, 0, 999999, pt.n);
    Queries out;
    std::vector<std::uint32_t> host(pt.n);
    out.expected.resize(pt.n);
    for (std::size_t i = 0; i < pt.n; ++i) {
      const bool miss = coin[i] < fraction * 1e6;
      host[i] = miss ? absent[i] : present[i];
      out.expected[i] = miss ? kNotFound : p.host_values[i];
    }
    out.queries = to_device(host, ctx.stream());
    HASHLAB_CUDA_CHECK(cudaStreamSynchronize(ctx.stream()));  // `host` dies with this scope
    return out;
  });
  const int functions = pt.variant == "cuckoo_3fn" ? 3 : 4;
  CuckooHashTable table(config_from(ctx.options(), functions, 1.25));
  table.build(p.keys.data(), p.values.data(), pt.n, ctx.stream());
  DeviceBuffer<std::uint32_t> found(pt.n, ctx.stream());
  found.fill_bytes(0, ctx.stream());
  const auto find = ctx.time_gpu([&](cudaStream_t s) { table.find(q.queries.data(), pt.n, found.data(), s); });
  ctx.report_time("retrieve", find, static_cast<double>(pt.n), "queries");
  const auto got = found.to_host(ctx.stream());
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < got.size(); ++i) wrong += got[i] != q.expected[i];
  ctx.verify(wrong == 0, std::to_string(wrong) + " queries answered wrongly");
}

}  // namespace

harness::Experiment failed_queries_experiment() {
  return make_experiment(
      "cuckoo", "failed_queries", "Section 4.5.1 (failed queries)",
      "retrieval time vs fraction of absent queries: 10M queries into a 10M-item table, 4 and 3 functions",
      {"cuckoo_4fn", "cuckoo_3fn"},
      [](const RunOptions& o, const Variants& v) {
        const std::vector<double> quick = {0, 0.25, 0.5, 0.75, 1.0};
        const std::vector<double> full = {0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0};
        return sweep(v, {o.pick_size(k10M, k10M)}, "absent_fraction", o.full() ? full : quick);
      },
      run_failed_queries);
}

}  // namespace hashlab::cuckoo::experiments

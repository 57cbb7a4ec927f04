// Section 4.3.1.1's hash families: "an XOR operation worked better than multiplication at
// distributing the items for some datasets".
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "hashlab/common/generator.hpp"
#include "hashlab/common/memory.hpp"
#include "hashlab/cuckoo/cuckoo_table.hpp"

#include "experiments.hpp"
#include "inputs.cuh"
#include "builds.cuh"

namespace hashlab::cuckoo::experiments {
namespace {

// The datasets of the `hash_family` experiment (its named axis "dataset"): random keys (the control,
// where neither family should matter), the sequence 0..N-1, and voxel keys of the chapter's
// application (Fig. 4.1: occupied voxels of a 1024^3 grid, key = x | y << 10 | z << 20): the
// surface of a sphere (a point cloud's shell) and a solid ball.
enum class Dataset { kRandom = 0, kSequential = 1, kVoxelSurface = 2, kVoxelBall = 3 };
constexpr int kDatasets = 4;

const char* dataset_name(Dataset d) {
  switch (d) {
    case Dataset::kRandom: return "random";
    case Dataset::kSequential: return "sequential";
    case Dataset::kVoxelSurface: return "voxel_surface";
    case Dataset::kVoxelBall: return "voxel_ball";
  }
  return "?";
}

// floor(sqrt(v)) for v >= 0, exact.
std::int64_t isqrt(std::int64_t v) {
  if (v <= 0) return 0;
  auto r = static_cast<std::int64_t>(std::sqrt(static_cast<double>(v)));
  while (r * r > v) --r;
  while ((r + 1) * (r + 1) <= v) ++r;
  return r;
}

// The first n voxels (x, then y, then z ascending) of the sphere surface (r-1)^2 < d^2 <= r^2, or
// of the ball d^2 <= r^2, centred in the 1024^3 grid, with the smallest radius r that holds n.
std::vector<std::uint32_t> voxel_keys(std::uint64_t n, bool surface) {
  constexpr std::int64_t kCentre = 512, kMaxRadius = 511;
  // For column (x, y) with q = x^2 + y^2: the z of the shape are |z| <= hi, and |z| > lo where
  // lo >= 0 (the surface's inner bound; -1: none).
  auto column = [&](std::int64_t r, std::int64_t q, std::int64_t& hi, std::int64_t& lo) {
    hi = isqrt(r * r - q);
    const std::int64_t inner = (r - 1) * (r - 1) - q;
    lo = surface && inner >= 0 ? isqrt(inner) : -1;
  };
  auto count = [&](std::int64_t r) {
    std::uint64_t c = 0;
    for (std::int64_t x = -r; x <= r; ++x)
      for (std::int64_t y = -r; y <= r; ++y) {
        const std::int64_t q = x * x + y * y;
        if (q > r * r) continue;
        std::int64_t hi, lo;
        column(r, q, hi, lo);
        c += lo < 0 ? static_cast<std::uint64_t>(2 * hi + 1) : static_cast<std::uint64_t>(2 * std::max<std::int64_t>(hi - lo, 0));
      }
    return c;
  };
  std::int64_t r = 1;
  while (count(r) < n) {
    if (++r > kMaxRadius)
      throw std::invalid_argument("hash_family: the 1024^3 voxel grid holds fewer than " + std::to_string(n) + " " +
                                  (surface ? "surface" : "ball") + " voxels; use a smaller --n");
  }
  std::vector<std::uint32_t> keys;
  keys.reserve(n);
  auto add = [&](std::int64_t x, std::int64_t y, std::int64_t z) {
    if (keys.size() < n)
      keys.push_back(static_cast<std::uint32_t>((x + kCentre) | ((y + kCentre) << 10) | ((z + kCentre) << 20)));
  };
  for (std::int64_t x = -r; x <= r && keys.size() < n; ++x)
    for (std::int64_t y = -r; y <= r && keys.size() < n; ++y) {
      const std::int64_t q = x * x + y * y;
      if (q > r * r) continue;
      std::int64_t hi, lo;
      column(r, q, hi, lo);
      for (std::int64_t z = -hi; z <= hi; ++z)
        if (lo < 0 || z > lo || z < -lo) add(x, y, z);
    }
  return keys;
}

struct DatasetPairs {
  DeviceBuffer<std::uint32_t> keys, values;
};

DatasetPairs& dataset_pairs(PointContext& ctx, Dataset d, std::uint64_t n) {
  return ctx.cached<DatasetPairs>("dataset:" + std::to_string(static_cast<int>(d)) + ":" + std::to_string(n), [&] {
    ctx.drop_cached("dataset:");
    DatasetPairs out;
    out.keys = DeviceBuffer<std::uint32_t>(n, ctx.stream());
    switch (d) {
      case Dataset::kRandom: gen::generate_keys(gen::KeySpec::unique(), ctx.seed(), out.keys.data(), n, ctx.stream()); break;
      case Dataset::kSequential: gen::generate_keys(gen::KeySpec::sequence(), ctx.seed(), out.keys.data(), n, ctx.stream()); break;
      case Dataset::kVoxelSurface:
      case Dataset::kVoxelBall: {
        const auto host = voxel_keys(n, d == Dataset::kVoxelSurface);
        out.keys.copy_from_host(host.data(), host.size(), ctx.stream());
        HASHLAB_CUDA_CHECK(cudaStreamSynchronize(ctx.stream()));  // `host` dies with this scope
        break;
      }
    }
    out.values = DeviceBuffer<std::uint32_t>(n, ctx.stream());
    gen::generate_values<std::uint32_t>(ctx.seed() + 1, 0, 0xfffffffeu, out.values.data(), n, ctx.stream());
    return out;
  });
}

// Single build attempts (max_attempts = 1, 4 functions, 1.25N, 7 lg N) with one hash family on
// one dataset: the failed attempts, and over the attempts that built, the exchanges per pair
// (evictions: how well the functions spread the items) and the chain statistics.
void run_hash_family(PointContext& ctx) {
  const Point& pt = ctx.point();
  int code = 0;
  while (code < kDatasets && pt.param_text != dataset_name(static_cast<Dataset>(code))) ++code;
  if (code == kDatasets) throw std::invalid_argument("hash_family: unknown dataset '" + pt.param_text + "'");
  const auto dataset = static_cast<Dataset>(code);
  auto& in = dataset_pairs(ctx, dataset, pt.n);
  CuckooConfig config = config_from(ctx.options(), 4, 1.25);
  config.hash = pt.variant == "xor" ? HashKind::kXor : HashKind::kMultiply;
  config.max_attempts = 1;
  config.count_evictions = true;
  CuckooHashTable table(config);
  DeviceCheck check;
  const int attempts = ctx.options().full() ? 400 : 100;
  int failed = 0, built = 0;
  std::size_t wrong = 0;
  std::vector<std::uint64_t> pooled;
  for (int a = 0; a < attempts; ++a) {
    if (attempt_and_check(table, in.keys.data(), in.values.data(), pt.n, check, ctx.stream(), wrong)) {
      ++built;
      pool_chains(pooled, table.stats().chain_lengths);
    } else {
      ++failed;
    }
  }
  ctx.note(std::string("dataset ") + dataset_name(dataset));
  ctx.report_value("attempts", attempts, "count");
  ctx.report_value("failed_attempts", failed, "count");
  ctx.report_value("failed_attempt_fraction", static_cast<double>(failed) / attempts, "fraction");
  if (built > 0) {
    const ChainSummary chains = summarize_chains(pooled);
    ctx.report_value("updates_per_pair", chains.mean, "count");
    report_chains(ctx, chains);
  } else {
    ctx.note("no attempt built a table: no chain statistics");
  }
  ctx.verify(wrong == 0, std::to_string(wrong) + " lookups wrong over " + std::to_string(built) + " built tables");
}

}  // namespace

harness::Experiment hash_family_experiment() {
  return make_experiment(
      "cuckoo", "hash_family", "Section 4.3.1.1 (XOR vs multiplication)",
      "multiply vs XOR hash by dataset: failed attempts and exchanges per pair of the two hash families on random, "
      "sequential, voxel-surface and voxel-ball keys, 1M pairs, 1.25N, 4 functions, 7 lg N, 100 attempts (400 full)",
      {"multiply", "xor"},
      [](const RunOptions& o, const Variants& v) {
        std::vector<std::string> datasets;  // a named axis: the CSVs name each dataset
        for (int d = 0; d < kDatasets; ++d) datasets.push_back(dataset_name(static_cast<Dataset>(d)));
        return harness::sweep_named(v, {o.pick_size(k1M, k1M)}, "dataset", datasets);
      },
      run_hash_family);
}

}  // namespace hashlab::cuckoo::experiments

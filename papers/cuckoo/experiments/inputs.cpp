// The inputs several experiments share, their CPU reference answers and the module's options
// (inputs.cuh).
#include "inputs.cuh"

#include <cstring>
#include <stdexcept>

#include "hashlab/common/generator.hpp"
#include "hashlab/common/radix_sort.hpp"
#include "hashlab/harness/probe.hpp"

namespace hashlab::cuckoo::experiments {

int max_attempts_option(const RunOptions& o) {
  const std::string& text = o.option("cuckoo-max-attempts");
  std::size_t used = 0;
  int value = 0;
  try {
    value = std::stoi(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != text.size() || value < 1)
    throw std::invalid_argument("--cuckoo-max-attempts must be a whole number >= 1, got '" + text + "'");
  return value;
}

HashKind hash_option(const RunOptions& o) {
  try {
    return parse_hash_kind(o.option("cuckoo-hash"));
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(std::string("--cuckoo-hash: ") + e.what());
  }
}

// The multiplicities of Figs. 4.5 and 4.6 (repeats of each key).
std::vector<double> multiplicities(const RunOptions& o) {
  if (o.full()) return {1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048};
  return {1, 4, 16, 64, 256, 1024};
}

CuckooConfig config_from(const RunOptions& o, int functions, double space) {
  CuckooConfig c;
  c.num_hash_functions = functions;
  c.space_factor = space;
  c.hash = hash_option(o);
  c.max_attempts = max_attempts_option(o);
  c.seed = o.seed;
  return c;
}

const harness::DeviceLimits& device_limits(PointContext& ctx) { return ctx.limits(); }

CostModel model_of(PointContext& ctx) {
  const auto& limits = device_limits(ctx);
  return CostModel{limits.t_uncoalesced_ns(), limits.t_coalesced_ns()};
}

// ---- inputs: n unique random keys with values, and n keys absent from them ---------------------

Pairs& pairs(PointContext& ctx, std::uint64_t n, bool with_absent) {
  return ctx.cached<Pairs>("pairs:" + std::to_string(n) + (with_absent ? "+absent" : ""), [&] {
    ctx.drop_cached("pairs:");
    Pairs p;
    DeviceBuffer<std::uint32_t> all(with_absent ? 2 * n : n, ctx.stream());
    gen::generate_keys(gen::KeySpec::unique(), ctx.seed(), all.data(), all.size(), ctx.stream());
    p.keys = DeviceBuffer<std::uint32_t>(n, ctx.stream());
    HASHLAB_CUDA_CHECK(cudaMemcpyAsync(p.keys.data(), all.data(), n * 4, cudaMemcpyDeviceToDevice, ctx.stream()));
    if (with_absent) {
      p.absent = DeviceBuffer<std::uint32_t>(n, ctx.stream());
      HASHLAB_CUDA_CHECK(cudaMemcpyAsync(p.absent.data(), all.data() + n, n * 4, cudaMemcpyDeviceToDevice, ctx.stream()));
    }
    p.values = DeviceBuffer<std::uint32_t>(n, ctx.stream());
    gen::generate_values<std::uint32_t>(ctx.seed() + 1, 0, 0xfffffffeu, p.values.data(), n, ctx.stream());
    p.host_values = p.values.to_host(ctx.stream());
    return p;
  });
}

// How many of the values a lookup of every inserted key returned differ from the values inserted
// with them (the CPU reference for unique keys: value i for key i). O(N) on the host: one copy
// into a reusable pinned buffer and a memcmp (~30 ms at 32M pairs, ~0.1 s at 128M); the
// mismatches are counted only when there are any.
std::size_t count_wrong(PointContext& ctx, const DeviceBuffer<std::uint32_t>& found,
                        const std::vector<std::uint32_t>& expected, PinnedBuffer<std::uint32_t>& readback) {
  const std::size_t n = expected.size();
  if (found.size() != n) throw std::logic_error("count_wrong: result and reference sizes differ");
  if (n == 0) return 0;
  if (readback.size() != n) readback = PinnedBuffer<std::uint32_t>(n);
  HASHLAB_CUDA_CHECK(cudaMemcpyAsync(readback.data(), found.data(), n * sizeof(std::uint32_t), cudaMemcpyDeviceToHost,
                                     ctx.stream()));
  HASHLAB_CUDA_CHECK(cudaStreamSynchronize(ctx.stream()));
  if (std::memcmp(readback.data(), expected.data(), n * sizeof(std::uint32_t)) == 0) return 0;
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < n; ++i) wrong += readback[i] != expected[i];
  return wrong;
}

std::size_t count_wrong_lookups(PointContext& ctx, const DeviceBuffer<std::uint32_t>& found, Pairs& p) {
  return count_wrong(ctx, found, p.host_values, p.readback);
}

void verify_all_found(PointContext& ctx, const DeviceBuffer<std::uint32_t>& found, Pairs& p) {
  const std::size_t wrong = count_wrong_lookups(ctx, found, p);
  ctx.verify(wrong == 0,
             std::to_string(wrong) + " of " + std::to_string(found.size()) + " lookups returned a wrong value");
}

// ---- Figs. 4.5 and 4.6: keys of rising multiplicity, and the multivalue structures' reference ---

MultiInput& multi_input(PointContext& ctx, bool with_reference) {
  const Point& pt = ctx.point();
  const std::string key = "multi:" + std::to_string(pt.n) + ":" + std::to_string(pt.param_value) +
                          (with_reference ? ":reference" : "");
  return ctx.cached<MultiInput>(key, [&] {
    ctx.drop_cached("multi:");
    const auto spec = gen::KeySpec::multiplicity(pt.n, pt.param_value);
    MultiInput in;
    in.keys = DeviceBuffer<std::uint32_t>(pt.n, ctx.stream());
    in.values = DeviceBuffer<std::uint32_t>(pt.n, ctx.stream());
    gen::generate_keys(spec, ctx.seed(), in.keys.data(), pt.n, ctx.stream());
    gen::generate_values<std::uint32_t>(ctx.seed() + 1, 0, 0xfffffffeu, in.values.data(), pt.n, ctx.stream());
    in.host_keys = in.keys.to_host(ctx.stream());
    in.distinct = spec.distinct_keys(pt.n);
    if (with_reference) {
      const auto host_values = in.values.to_host(ctx.stream());
      std::vector<std::uint64_t> order(pt.n);  // (key, input position), stably sorted by key on all cores
      for (std::size_t i = 0; i < pt.n; ++i) order[i] = (std::uint64_t{in.host_keys[i]} << 32) | i;
      cpu::radix_sort(order, [](std::uint64_t word) { return static_cast<std::uint32_t>(word >> 32); });
      in.sorted_values.resize(pt.n);
      in.expected.resize(pt.n);
      for (std::size_t run = 0; run < pt.n;) {  // each run of one key: [run, end)
        std::size_t end = run;
        while (end < pt.n && (order[end] >> 32) == (order[run] >> 32)) ++end;
        for (std::size_t j = run; j < end; ++j) {
          in.sorted_values[j] = host_values[order[j] & 0xffffffffu];
          in.expected[order[j] & 0xffffffffu] = KeyInfo{static_cast<std::uint32_t>(run), static_cast<std::uint32_t>(end - run)};
        }
        run = end;
      }
    }
    return in;
  });
}

}  // namespace hashlab::cuckoo::experiments

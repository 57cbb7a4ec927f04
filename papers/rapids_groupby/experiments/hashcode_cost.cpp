// Section 3's x * 31 as (x << 5) - x against a multiplication, with constants and at run time.
#include <stdexcept>

#include "experiments.hpp"
#include "hashlab/common/generator.hpp"
#include "hashlab/rapids_groupby/hashcode_cost.hpp"
#include "inputs.cuh"

namespace hashlab::rapids::experiments {
namespace {

/// The keys of `hashcode_cost` and the host's chained hashcodes of every row.
struct HashcodeInput {
  DeviceBuffer<std::uint32_t> keys;
  std::vector<std::uint32_t> expected;
};
constexpr int kHashcodeRounds = 32;  // 64 steps of Horner's rule per row (2 key columns)

Times31 times31_form(const std::string& variant) {
  for (Times31 f : {Times31::kShiftSubtract, Times31::kMultiply, Times31::kAsCompiled, Times31::kMultiplyConstant})
    if (variant == to_string(f)) return f;
  throw std::invalid_argument("hashcode_cost: unknown variant " + variant);
}

void run_hashcode_cost(PointContext& ctx) {
  const Point& p = ctx.point();
  const Times31 form = times31_form(p.variant);
  HashcodeInput& in = ctx.cached<HashcodeInput>("hashcode:" + std::to_string(p.n), [&] {
    HashcodeInput h;
    h.keys = DeviceBuffer<std::uint32_t>(p.n * kKeyColumns, ctx.stream());
    gen::generate_key_columns(gen::KeySpec::uniform(10000), ctx.seed(), kKeyColumns, h.keys.data(), p.n, ctx.stream());
    const std::vector<std::uint32_t> host = h.keys.to_host(ctx.stream());
    h.expected.resize(p.n);
    for (std::size_t row = 0; row < p.n; ++row) {
      std::uint32_t row_keys[kKeyColumns];
      for (int c = 0; c < kKeyColumns; ++c) row_keys[c] = host[c * p.n + row];
      h.expected[row] = chained_hashcode_host(row_keys, kKeyColumns, kHashcodeRounds);
    }
    return h;
  });
  DeviceBuffer<std::uint32_t> out(p.n, ctx.stream());
  const auto t = ctx.time_gpu(
      [&](cudaStream_t s) { chained_hashcodes(in.keys.data(), kKeyColumns, p.n, kHashcodeRounds, form, out.data(), s); });
  ctx.report_time("hashcode", t, static_cast<double>(p.n) * kHashcodeRounds * kKeyColumns, "steps");
  ctx.verify(out.to_host(ctx.stream()) == in.expected, "the chained hashcodes differ from the host's");
}

}  // namespace

harness::Experiment hashcode_cost() {
  return make_experiment(
      "rapids_groupby", "hashcode_cost", "Section 3 (x * 31)",
      "x * 31 as a shift and a subtraction or a multiplication: 16M rows, 2 key columns, 32 chained hashcodes per "
      "row, each form with the constants (the paper's two forms: as_compiled, multiply_constant) or with run-time "
      "operands (shift_subtract, multiply)",
      {"shift_subtract", "multiply", "as_compiled", "multiply_constant"},
      [](const RunOptions& o, const Variants& v) { return sweep(v, {o.pick_size(1u << 24, 1u << 24)}); }, run_hashcode_cost);
}

}  // namespace hashlab::rapids::experiments

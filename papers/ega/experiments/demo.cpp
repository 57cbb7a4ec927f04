// The demo (`hashlab demo ega`): 16 pairs through SP-EGA's five phases on the GPU, red, yellow and
// blue printed after each phase, checked against the CPU reference.
#include <iomanip>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "experiments.hpp"
#include "hashlab/common/memory.hpp"
#include "hashlab/ega/sp_ega.hpp"
#include "hashlab/reference/groupby.hpp"

namespace hashlab::ega::experiments {
namespace {

using harness::RunOptions;

std::string cell(std::uint32_t key, std::uint64_t value) {
  if (key == kEmptyKey) return "  .   ";
  std::ostringstream out;
  out << std::setw(2) << key << ":" << std::left << std::setw(3) << value;
  return out.str();
}

void print_pairs(const char* name, const std::vector<std::uint32_t>& keys, const std::vector<std::uint64_t>& values,
                 std::size_t part1 = 0) {
  std::cout << "  " << name;
  for (std::size_t i = 0; i < keys.size(); ++i) {
    if (part1 > 0 && (i == part1 || i == 2 * part1)) std::cout << "|";
    std::cout << cell(keys[i], values[i]) << " ";
  }
  std::cout << "\n";
}

int run_demo(const RunOptions&) {
  constexpr std::size_t n = 16;
  // Sixteen (key, value) pairs with 9 distinct keys; sum per key. L = 16, load factor 9/16.
  const std::vector<std::uint32_t> keys{3, 7, 12, 3, 25, 7, 40, 12, 3, 51, 66, 25, 8, 7, 90, 8};
  const std::vector<std::uint32_t> values{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
  Stream stream;
  auto d_keys = to_device(keys, stream);
  auto d_values = to_device(values, stream);
  SpEga ega(n, stream);
  const YellowParts parts = ega.parts();
  std::cout << "SP-EGA (EGA section 4.1): group-by sum of 16 pairs on three buffers of length L = " << n << ".\n"
            << "Pairs are key:value ('.' is an empty slot, key 0xffffffff). yellow's parts are split by '|':\n"
            << "part 1 = the partial hash table yellow[0, " << parts.part1 << "), part 2 = its indicator yellow["
            << parts.part2_begin << ", " << parts.part3_begin << ") (in the key column), part 3 = yellow["
            << parts.part3_begin << ", " << n << ").\n\n";
  const char* words[] = {
      "",
      "Phase 1, no-probe hash into the partial hash table: each pair computes its position "
      "murmur3(key) mod L; outside part 1 or on another key's slot it is left (blue = 1), on an "
      "empty slot or its own key's slot it is aggregated there (blue = 0, indicator = 1).",
      "Phase 2, collect key/value in hash table: in-place scan of the indicator (part 2), then the "
      "table's pairs go to part 3, flush with yellow's end.",
      "Phase 3, collect unhashed pairs: in-place scan of blue, then red's unhashed pairs go to the "
      "left of yellow.",
      "Phase 4, hash aggregate the remaining pairs by linear probing: red is the hash table now "
      "(cleared), blue its indicator.",
      "Phase 5, collect red's groups (in-place scan of blue) next to phase 2's results: yellow's "
      "right end holds every group.",
  };
  auto show = [&](int phase, cudaStream_t s) {
    const auto& b = ega.buffers();
    const auto rk = b.red_keys.to_host(s), yk = b.yellow_keys.to_host(s), blue = b.blue.to_host(s);
    const auto rv = b.red_values.to_host(s), yv = b.yellow_values.to_host(s);
    std::cout << words[phase] << "\n";
    print_pairs("red    ", rk, rv);
    // Part 2 holds indicators (integers) in the key column: show them as integers.
    std::cout << "  yellow ";
    for (std::size_t i = 0; i < n; ++i) {
      if (i == parts.part1 || i == parts.part3_begin) std::cout << "|";
      if (i >= parts.part2_begin && i < parts.part3_begin && phase <= 2)
        std::cout << " [" << std::setw(2) << yk[i] << "] ";
      else
        std::cout << cell(yk[i], yv[i]) << " ";
    }
    std::cout << "\n  blue   ";
    for (auto v : blue) std::cout << std::setw(4) << v << "   ";
    std::cout << "\n\n";
  };
  ega.load(d_keys.data(), d_values.data(), n, Aggregation::kSum, stream);
  // Only for a readable trace: yellow and blue start cleared (the algorithm initialises what it
  // reads, so this changes nothing but the printout of the unused parts).
  ega.buffers().yellow_keys.fill_bytes(0xff, stream);
  ega.buffers().yellow_values.fill_bytes(0, stream);
  ega.buffers().blue.fill_bytes(0, stream);
  stream.synchronize();
  {
    // Before phase 1: blue and yellow are not initialised yet; show red only.
    const auto rk = ega.buffers().red_keys.to_host(stream);
    const auto rv = ega.buffers().red_values.to_host(stream);
    std::cout << "Input: red holds the 16 pairs.\n";
    print_pairs("red    ", rk, rv);
    std::cout << "\n";
  }
  const Groups groups = ega.run(n, Aggregation::kSum, stream, show);
  const auto& c = ega.last_counts();
  std::cout << "Result: " << groups.count << " groups in yellow[" << n - groups.count << ", " << n << "): "
            << c.partial_table_groups << " from the partial table (phases 1-2), " << c.probe_table_groups
            << " from linear probing (phases 4-5) over " << c.unhashed_pairs << " unhashed pairs.\n";
  const auto got = groups.to_reference(Aggregation::kSum, stream);
  const std::string diff = reference::compare(reference::groupby(keys, values, Aggregation::kSum), got);
  std::cout << "Checked against the CPU reference: " << (diff.empty() ? "equal" : "DIFFERENT: " + diff) << "\n\n"
            << "Where to read the code:\n"
            << "  papers/ega/include/hashlab/ega/sp_ega.hpp   the three buffers, SpEga, Lphga\n"
            << "  papers/ega/src/sp_ega.cu                    one kernel per phase: phase1_no_probe_insert,\n"
            << "                                              phase2_collect_partial_table, phase3_collect_unhashed,\n"
            << "                                              phase4_linear_probe_aggregate, phase5_collect_probe_table\n"
            << "  papers/ega/src/lphga.cu                     the LPHGA comparator\n"
            << "  papers/ega/src/mp_ega.cpp                   MP-EGA (section 4.2): run() takes the phases in order:\n"
            << "                                              mp_generate.cpp (tiles), mp_partition_kernels.cu,\n"
            << "                                              mp_merge.cpp (Algorithm 1), mp_process.cpp (feedback load)\n"
            << "  papers/ega/src/partition_plan.cpp           Theorem 1 and Algorithm 1 (greedy merge)\n"
            << "  papers/ega/README.md                        paper -> code map and every choice the text leaves open\n";
  return diff.empty() ? 0 : 1;
}

}  // namespace

harness::Demo demo() {
  return {"ega", "16 pairs through SP-EGA's five phases: red, yellow and blue after each phase", /*needs_gpu=*/true,
          run_demo};
}

}  // namespace hashlab::ega::experiments

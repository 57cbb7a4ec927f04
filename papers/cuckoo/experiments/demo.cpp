// `hashlab demo cuckoo`: Listing 4.1 traced on a small table.
#include <algorithm>
#include <iomanip>
#include <iostream>
#include <random>
#include <string>
#include <vector>

#include "experiments.hpp"
#include "hashlab/cuckoo/cuckoo_table.hpp"

namespace hashlab::cuckoo::experiments {
namespace {

using harness::RunOptions;

int run_demo(const RunOptions& options) {
  const std::vector<std::uint32_t> keys = {12, 45, 7, 93, 28, 61, 34, 80, 17, 66, 51, 99};
  const std::size_t n = keys.size();
  CuckooConfig config;
  config.space_factor = 1.25;  // 15 slots for 12 keys
  const std::uint32_t size = table_size_for(n, config.space_factor);
  const std::uint32_t max_iterations = default_max_iterations(n);
  std::mt19937_64 rng(options.seed);
  std::cout << "Cuckoo hashing (Alcantara et al., section 4.3): " << n << " keys into a table of " << size
            << " slots with 4 hash functions h_i(k) = (a_i*k + b_i) mod p mod " << size << ", p = " << kPrime
            << ".\nEach thread inserts its item at h_1; an item it evicts moves to its next function's slot, round "
               "robin,\nfor at most max_iterations = 7 lg N = "
            << max_iterations << " steps. Threads run one after another here (one possible interleaving).\n\n";
  for (int attempt = 1; attempt <= 5; ++attempt) {
    const HashFunctions h = HashFunctions::draw(HashKind::kMultiply, 4, size, rng);
    std::cout << "Attempt " << attempt << ": fresh random constants";
    for (int i = 0; i < 4; ++i) std::cout << (i ? ", " : " ") << "h" << i + 1 << ": a=" << h.c[i].a << " b=" << h.c[i].b;
    std::cout << "\n  key  | h1 h2 h3 h4\n";
    for (auto k : keys) {
      std::cout << "  " << std::setw(4) << k << " |";
      for (int i = 0; i < 4; ++i) std::cout << " " << std::setw(2) << h(i, k);
      std::cout << "\n";
    }
    std::vector<std::uint32_t> table(size, kEmptyKey);
    bool ok = true;
    for (std::size_t t = 0; t < n && ok; ++t) {
      std::uint32_t key = keys[t];
      std::uint32_t location = h(0, key);
      std::cout << "thread " << t << " inserts " << key << " at h1(" << key << ") = slot " << location << "\n";
      bool placed = false;
      for (std::uint32_t its = 0; its < max_iterations && !placed; ++its) {
        const std::uint32_t evicted = table[location];  // atomicExch on the GPU
        table[location] = key;
        if (evicted == kEmptyKey) {
          std::cout << "    slot " << location << " was empty: " << key << " placed, thread done\n";
          placed = true;
          break;
        }
        std::uint32_t loc[4];
        for (int i = 0; i < 4; ++i) loc[i] = h(i, evicted);
        const std::uint32_t next = next_location<4>(loc, location);
        const int from = static_cast<int>(std::find(loc, loc + 4, location) - loc) + 1;
        const int to = static_cast<int>(std::find(loc, loc + 4, next) - loc) + 1;
        std::cout << "    slot " << location << " held " << evicted << ": " << key << " takes the slot and evicts "
                  << evicted << "; " << evicted << " was there by h" << from << ", so it moves to h" << to << "("
                  << evicted << ") = slot " << next << "\n";
        key = evicted;
        location = next;
      }
      if (!placed) {
        std::cout << "    the eviction chain reached max_iterations: failure flag set, the table is rebuilt from "
                     "scratch with new constants (a restart)\n\n";
        ok = false;
      }
    }
    if (!ok) continue;
    std::cout << "\nFinal table:";
    for (std::uint32_t s = 0; s < size; ++s)
      std::cout << " [" << s << ":" << (table[s] == kEmptyKey ? std::string("-") : std::to_string(table[s])) << "]";
    std::cout << "\n\nRetrieval (Listing 4.2) checks h1..h4 in order:\n";
    for (std::uint32_t q : {keys[3], 50u}) {
      std::cout << "  find " << q << ":";
      bool found = false;
      for (int i = 0; i < 4 && !found; ++i) {
        found = table[h(i, q)] == q;
        std::cout << " h" << i + 1 << " -> slot " << h(i, q) << (found ? " (found)" : " (no)") << ";";
      }
      std::cout << (found ? " found\n" : " NOT_FOUND after 4 probes\n");
    }
    std::cout << "\nWhere to read the code:\n"
                 "  papers/cuckoo/src/cuckoo_table.cu          cuckoo_insert (Listing 4.1), cuckoo_retrieve (Listing 4.2)\n"
                 "  papers/cuckoo/include/hashlab/cuckoo/hash_functions.hpp   h_i, next_location, 7 lg N\n"
                 "  papers/cuckoo/src/detail.cuh               build_with_restarts (rebuild with new constants)\n"
                 "  papers/cuckoo/src/set.cu, multivalue.cu    section 4.4's set, compacting and multivalue tables\n"
                 "  papers/cuckoo/experiments/                 the figures; try: hashlab run cuckoo fig4_7 --n 1M\n";
    return 0;
  }
  std::cout << "five attempts failed (unlikely); run again with another --seed\n";
  return 1;
}

}  // namespace

harness::Demo demo() {
  return {"cuckoo", "12 keys into a 15-slot cuckoo table, every insertion and eviction traced (Listing 4.1)",
              /*needs_gpu=*/false, run_demo};
}

}  // namespace hashlab::cuckoo::experiments

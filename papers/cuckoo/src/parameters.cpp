// The parameters of section 4.3.1.1: hash constants, table size, eviction limit, and checks.
#include <cmath>
#include <sstream>
#include <stdexcept>

#include "hashlab/cuckoo/cuckoo_table.hpp"
#include "hashlab/cuckoo/hash_functions.hpp"

namespace hashlab::cuckoo {

const char* to_string(HashKind kind) {
  switch (kind) {
    case HashKind::kMultiply: return "multiply";
    case HashKind::kXor: return "xor";
    case HashKind::kMultiplyExact: return "multiply_exact";
  }
  return "?";
}

const char* to_string(RoundRobin rule) {
  switch (rule) {
    case RoundRobin::kSkipRepeatedSlots: return "skip_repeated_slots";
    case RoundRobin::kShortCircuit: return "short_circuit";
  }
  return "?";
}

ChainSummary summarize_chains(const std::vector<std::uint64_t>& histogram) {
  ChainSummary s;
  for (std::size_t l = 0; l < histogram.size(); ++l) {
    s.chains += histogram[l];
    s.exchanges += histogram[l] * l;
    if (histogram[l] > 0) s.max = static_cast<std::uint32_t>(l);
  }
  if (s.chains == 0) return s;
  s.mean = static_cast<double>(s.exchanges) / static_cast<double>(s.chains);
  std::uint64_t seen = 0;
  for (std::size_t l = 0; l < histogram.size(); ++l) {
    seen += histogram[l];
    if (2 * seen >= s.chains) {
      s.median = static_cast<std::uint32_t>(l);
      break;
    }
  }
  return s;
}

HashKind parse_hash_kind(const std::string& name) {
  if (name == "multiply") return HashKind::kMultiply;
  if (name == "xor") return HashKind::kXor;
  if (name == "multiply_exact") return HashKind::kMultiplyExact;
  throw std::invalid_argument("cuckoo: unknown hash '" + name + "' (multiply, xor, multiply_exact)");
}

HashFunctions HashFunctions::draw(HashKind kind, int count, std::uint32_t table_size, std::mt19937_64& rng) {
  if (count < kMinHashFunctions || count > kMaxHashFunctions)
    throw std::invalid_argument("cuckoo: number of hash functions must be 2..5, got " + std::to_string(count));
  if (table_size == 0) throw std::invalid_argument("cuckoo: table size must be at least 1");
  HashFunctions f;
  f.kind = kind;
  f.count = count;
  f.table_size = table_size;
  std::uniform_int_distribution<std::uint32_t> a_dist(0, (kPrime - 1) / 2 - 1);  // a = 2j + 1 < p
  std::uniform_int_distribution<std::uint32_t> b_dist(0, kPrime - 1);
  for (int i = 0; i < count; ++i) f.c[i] = {2 * a_dist(rng) + 1, b_dist(rng)};
  return f;
}

std::uint32_t default_max_iterations(std::uint64_t n) {
  const double lg = std::ceil(std::log2(static_cast<double>(n < 2 ? 2 : n)));
  return kIterationsPerLgN * static_cast<std::uint32_t>(lg);
}

std::uint32_t table_size_for(std::uint64_t n, double space_factor) {
  if (!(space_factor >= 1.0) || !std::isfinite(space_factor)) {
    std::ostringstream msg;
    msg << "cuckoo: space factor must be >= 1 (tableSize = factor * N), got " << space_factor;
    throw std::invalid_argument(msg.str());
  }
  const double size = std::ceil(space_factor * static_cast<double>(n));
  if (size > static_cast<double>(kPrime)) {
    std::ostringstream msg;
    msg << "cuckoo: a table of " << space_factor << " * N = " << size << " slots (N = " << n
        << ") exceeds the hash range p = " << kPrime
        << " (section 4.3.1.1: slots beyond p would never be used); use fewer items or a smaller factor";
    throw std::invalid_argument(msg.str());
  }
  return size < 1 ? 1u : static_cast<std::uint32_t>(size);
}

void CuckooConfig::validate() const {
  auto bad = [](const std::string& what) { throw std::invalid_argument("cuckoo: " + what); };
  if (num_hash_functions < kMinHashFunctions || num_hash_functions > kMaxHashFunctions)
    bad("number of hash functions must be 2..5, got " + std::to_string(num_hash_functions));
  if (!(space_factor >= 1.0) || !std::isfinite(space_factor))
    bad("space factor must be >= 1 (tableSize = factor * N), got " + std::to_string(space_factor));
  if (max_attempts < 1) bad("max_attempts must be >= 1, got " + std::to_string(max_attempts));
  if (block_size < 32 || block_size > 1024 || block_size % 32 != 0)
    bad("block size must be a multiple of 32 in 32..1024, got " + std::to_string(block_size));
}

std::string CuckooConfig::describe() const {
  std::ostringstream s;
  s << num_hash_functions << " functions (" << to_string(hash) << ", " << to_string(round_robin) << "), "
    << space_factor << " N slots, max_iterations "
    << (max_iterations == 0 ? std::string("7 lg N") : std::to_string(max_iterations)) << ", " << max_attempts
    << " attempts, block " << block_size;
  return s.str();
}

}  // namespace hashlab::cuckoo

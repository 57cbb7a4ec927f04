// The shared data generator: seeded, reproducible key and value columns, on the device (cuRAND
// Philox4x32-10 through the host API, plus O(1) per-row transforms) and on the host (cuRAND's
// host generator of the same type and the same transforms), so that the host copy of a
// dataset equals the device one bit for bit and CPU-only tests can draw the same data.
//
// Every distribution avoids the key 0xffffffff (kEmptyKey, sentinels.hpp), the empty-slot
// sentinel of the papers' tables, by drawing keys from [0, domain) with domain <= 2^32 - 1.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "hashlab/common/sentinels.hpp"

namespace hashlab::gen {

constexpr std::uint64_t kMaxKeyDomain = kEmptyKey;  // keys lie in [0, 2^32 - 1): all but the empty key
constexpr std::uint64_t kMaxZipfKeys = std::uint64_t{1} << 26;  // Zipf CDF table: 512 MiB of doubles
constexpr int kMaxKeyColumns = 8;

enum class KeyDistribution {
  kSequence,          // 0, 1, ..., n-1 in order (HashGraph's build input)
  kShuffledSequence,  // a random permutation of 0..n-1
  kUniqueRandom,      // n distinct keys drawn at random from [0, domain)
  kUniform,           // exactly min(n, distinct) distinct keys, every row uniform among them
  kZipf,              // `distinct` candidate keys, rank r drawn with probability ~ 1 / r^s
};

const char* to_string(KeyDistribution d);
/// Parses "sequence", "shuffled", "unique", "uniform", "zipf"; throws std::invalid_argument.
KeyDistribution parse_key_distribution(const std::string& name);

struct KeySpec {
  KeyDistribution distribution = KeyDistribution::kUniqueRandom;
  std::uint64_t distinct = 0;             // kUniform, kZipf: number of distinct keys
  double zipf_exponent = 0.0;             // kZipf: s >= 0 (0 is uniform)
  std::uint64_t domain = kMaxKeyDomain;   // keys (each column's) lie in [0, domain)

  static KeySpec sequence();
  static KeySpec shuffled_sequence();
  static KeySpec unique(std::uint64_t domain = kMaxKeyDomain);
  static KeySpec uniform(std::uint64_t distinct, std::uint64_t domain = kMaxKeyDomain);
  /// Uniform keys with n / average_multiplicity distinct keys (rounded up, at least 1).
  static KeySpec multiplicity(std::uint64_t n, double average_multiplicity,
                              std::uint64_t domain = kMaxKeyDomain);
  static KeySpec zipf(std::uint64_t distinct, double exponent, std::uint64_t domain = kMaxKeyDomain);

  /// The number of distinct keys (or key tuples) n rows hold: exact for every distribution
  /// but Zipf, for which it is an upper bound.
  std::uint64_t distinct_keys(std::uint64_t n) const;
  std::string describe() const;
};

/// Throws std::invalid_argument, with the reason, when n rows of `columns` key columns cannot be
/// drawn as `spec` says (more distinct keys than the domain holds, Zipf table too large, ...).
void validate(const KeySpec& spec, std::uint64_t n, int columns = 1);

/// One key column of n rows into device memory (asynchronous on `stream`).
void generate_keys(const KeySpec& spec, std::uint64_t seed, std::uint32_t* d_keys, std::size_t n,
                   cudaStream_t stream);
/// The same column on the host.
std::vector<std::uint32_t> generate_keys_host(const KeySpec& spec, std::uint64_t seed, std::size_t n);

/// `columns` key columns of n rows, column-major (column c starts at d_keys + c * n). A row's
/// tuple is a function of its group id, drawn as `spec` says: distinct groups have distinct
/// tuples, while each single column repeats values across groups (so a group-by that compares
/// one column only is caught).
void generate_key_columns(const KeySpec& spec, std::uint64_t seed, int columns,
                          std::uint32_t* d_keys, std::size_t n, cudaStream_t stream);
std::vector<std::uint32_t> generate_key_columns_host(const KeySpec& spec, std::uint64_t seed,
                                                     int columns, std::size_t n);

/// A value column uniform in [lo, hi]. T: uint32_t, int32_t, int64_t, float, double. Integer
/// ranges span at most 2^32 values.
template <class T>
void generate_values(std::uint64_t seed, T lo, T hi, T* d_values, std::size_t n, cudaStream_t stream);
template <class T>
std::vector<T> generate_values_host(std::uint64_t seed, T lo, T hi, std::size_t n);

/// Two tables with unique keys each, for primary-key joins. R holds r_rows distinct keys of
/// [0, key_domain); `matches()` of S's rows carry a key of R (a random subset of R's keys), the
/// rest carry keys found nowhere in R; both tables are in random order.
struct PkPkSpec {
  std::uint64_t r_rows = 0;
  std::uint64_t s_rows = 0;
  std::uint64_t key_domain = 100000000;  // keys mod 10^8, as in Dash's report
  double match_rate = 1.0;               // fraction of S's rows whose key is in R

  std::uint64_t matches() const;  // round(match_rate * s_rows)
  std::string describe() const;
};

void validate(const PkPkSpec& spec);
void generate_pkpk(const PkPkSpec& spec, std::uint64_t seed, std::uint32_t* d_r_keys,
                   std::uint32_t* d_s_keys, cudaStream_t stream);
void generate_pkpk_host(const PkPkSpec& spec, std::uint64_t seed, std::vector<std::uint32_t>& r_keys,
                        std::vector<std::uint32_t>& s_keys);

}  // namespace hashlab::gen

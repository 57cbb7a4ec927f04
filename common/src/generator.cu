// The shared data generator (see hashlab/common/generator.hpp).
//
// Both sides follow the same two steps: (1) cuRAND Philox4x32-10 draws one 32-bit word per row
// (only for distributions that need randomness per row), through the host API on the device or
// on the host; (2) a __host__ __device__ model turns row index and word into the row's keys.
// Step (1) is identical on both sides by cuRAND's contract; step (2) is the same code.
#include "hashlab/common/generator.hpp"

#include <curand.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <type_traits>

#include "hashlab/common/cuda_check.hpp"
#include "hashlab/common/grid_stride.cuh"
#include "hashlab/common/hash.hpp"
#include "hashlab/common/launch.cuh"
#include "hashlab/common/memory.hpp"
#include "hashlab/common/permutation.hpp"

namespace hashlab::gen {
namespace {

// Independent seeds for the roles a dataset's randomness plays.
enum class Role : std::uint64_t {
  kRowWords = 1,
  kRowOrder = 2,
  kColumnMap = 16,  // + column index
  kValueWords = 3,
  kPkPkKeys = 4,
  kPkPkSubset = 5,
  kPkPkOrder = 6,
};

std::uint64_t role_seed(std::uint64_t seed, Role role, std::uint64_t index = 0) {
  return hash::splitmix64(seed ^ hash::splitmix64(static_cast<std::uint64_t>(role) + index));
}

std::size_t round_up4(std::size_t n) { return (n + 3) / 4 * 4; }

// ---- step (1): Philox words -------------------------------------------------------------------

class PhiloxGenerator {
 public:
  PhiloxGenerator(bool on_host, std::uint64_t seed) {
    if (on_host)
      HASHLAB_LIB_CHECK("cuRAND", curandCreateGeneratorHost(&gen_, CURAND_RNG_PSEUDO_PHILOX4_32_10));
    else
      HASHLAB_LIB_CHECK("cuRAND", curandCreateGenerator(&gen_, CURAND_RNG_PSEUDO_PHILOX4_32_10));
    HASHLAB_LIB_CHECK("cuRAND", curandSetPseudoRandomGeneratorSeed(gen_, seed));
  }
  ~PhiloxGenerator() { curandDestroyGenerator(gen_); }
  PhiloxGenerator(const PhiloxGenerator&) = delete;
  PhiloxGenerator& operator=(const PhiloxGenerator&) = delete;

  void set_stream(cudaStream_t stream) { HASHLAB_LIB_CHECK("cuRAND", curandSetStream(gen_, stream)); }
  // `n` must be a multiple of 4 (callers round up; the prefix of the sequence does not depend on n).
  void generate(std::uint32_t* out, std::size_t n) {
    if (n > 0) HASHLAB_LIB_CHECK("cuRAND", curandGenerate(gen_, out, n));
  }

 private:
  curandGenerator_t gen_ = nullptr;
};

std::vector<std::uint32_t> philox_words_host(std::uint64_t seed, std::size_t n) {
  std::vector<std::uint32_t> words(round_up4(n));
  PhiloxGenerator gen(/*on_host=*/true, seed);
  gen.generate(words.data(), words.size());
  return words;
}

DeviceBuffer<std::uint32_t> philox_words_device(std::uint64_t seed, std::size_t n, cudaStream_t stream) {
  DeviceBuffer<std::uint32_t> words(round_up4(n), stream);
  PhiloxGenerator gen(/*on_host=*/false, seed);
  gen.set_stream(stream);
  gen.generate(words.data(), words.size());
  return words;
}

// ---- step (2): the per-row models -------------------------------------------------------------

bool needs_row_words(KeyDistribution d) {
  return d == KeyDistribution::kUniform || d == KeyDistribution::kZipf;
}

std::uint64_t number_of_groups(const KeySpec& spec, std::uint64_t n) {
  switch (spec.distribution) {
    case KeyDistribution::kUniform:
    case KeyDistribution::kZipf:
      return spec.distinct;
    default:
      return n;
  }
}

// Smallest b with b^columns >= groups (b >= 1).
std::uint64_t digit_base(std::uint64_t groups, int columns) {
  if (columns == 1) return std::max<std::uint64_t>(groups, 1);
  auto covers = [&](std::uint64_t b) {  // b^columns >= groups, without overflow
    std::uint64_t power = 1;
    for (int c = 0; c < columns; ++c) {
      if (power > groups / b) return true;
      power *= b;
    }
    return power >= groups;
  };
  auto b = static_cast<std::uint64_t>(std::floor(std::pow(static_cast<double>(groups), 1.0 / columns)));
  b = std::max<std::uint64_t>(b, 1);
  while (b > 1 && covers(b - 1)) --b;
  while (!covers(b)) ++b;
  return b;
}

struct KeyModel {
  KeyDistribution distribution;
  std::uint64_t groups;   // uniform / zipf: number of distinct keys
  std::uint64_t base;     // digit base of the multi-column encoding
  int columns;
  bool map_columns;       // distinct random keys (true) or the digits themselves (sequences)
  const double* zipf_cdf; // zipf: cdf[r] = P(rank <= r), cdf[groups - 1] == 1
  RandomPermutation row_order;
  RandomPermutation column_map[kMaxKeyColumns];

  HASHLAB_HD std::uint64_t group(std::uint64_t row, std::uint32_t word) const {
    switch (distribution) {
      case KeyDistribution::kShuffledSequence:
        return row_order(row);
      case KeyDistribution::kUniform: {
        // The first `groups` rows of a random order cover every key once: exactly
        // min(n, groups) distinct keys; every other row is uniform among them.
        const std::uint64_t j = row_order(row);
        return j < groups ? j : hash::reduce_range(word, static_cast<std::uint32_t>(groups));
      }
      case KeyDistribution::kZipf: {
        const double u = static_cast<double>(word) * (1.0 / 4294967296.0);
        std::uint64_t lo = 0, hi = groups - 1;  // first r with u < cdf[r]
        while (lo < hi) {
          const std::uint64_t mid = (lo + hi) / 2;
          if (u < zipf_cdf[mid]) hi = mid; else lo = mid + 1;
        }
        return lo;
      }
      default:
        return row;
    }
  }

  HASHLAB_HD std::uint32_t key(std::uint64_t group, int column) const {
    std::uint64_t digit = group;
    if (columns > 1) {
      for (int c = 0; c < column; ++c) digit /= base;
      digit %= base;
    }
    return map_columns ? column_map[column](digit) : static_cast<std::uint32_t>(digit);
  }
};

std::vector<double> zipf_cdf(std::uint64_t groups, double exponent) {
  std::vector<double> cdf(groups);
  double sum = 0;
  for (std::uint64_t r = 0; r < groups; ++r) {
    sum += std::pow(static_cast<double>(r + 1), -exponent);
    cdf[r] = sum;
  }
  for (auto& c : cdf) c /= sum;
  cdf.back() = 1.0;
  return cdf;
}

KeyModel make_key_model(const KeySpec& spec, std::uint64_t seed, int columns, std::uint64_t n,
                        const double* cdf) {
  KeyModel m{};
  m.distribution = spec.distribution;
  m.groups = number_of_groups(spec, n);
  m.base = digit_base(m.groups, columns);
  m.columns = columns;
  m.map_columns = spec.distribution != KeyDistribution::kSequence &&
                  spec.distribution != KeyDistribution::kShuffledSequence;
  m.zipf_cdf = cdf;
  m.row_order = RandomPermutation(std::max<std::uint64_t>(n, 1), role_seed(seed, Role::kRowOrder));
  for (int c = 0; c < columns; ++c)
    m.column_map[c] = RandomPermutation(spec.domain, role_seed(seed, Role::kColumnMap, c));
  return m;
}

__global__ void generate_keys_kernel(KeyModel model, const std::uint32_t* words, std::uint32_t* keys,
                                     std::size_t n) {
  for (const std::size_t row : grid_stride(n)) {
    const std::uint64_t g = model.group(row, words != nullptr ? words[row] : 0u);
    for (int c = 0; c < model.columns; ++c) keys[c * n + row] = model.key(g, c);
  }
}

template <class T>
struct ValueModel {
  T lo;
  T hi;
  std::uint64_t span;  // integers: hi - lo + 1

  HASHLAB_HD T operator()(std::uint32_t word) const {
    if constexpr (std::is_integral_v<T>) {
      const std::uint64_t offset = span >= (std::uint64_t{1} << 32)
                                       ? word
                                       : hash::reduce_range(word, static_cast<std::uint32_t>(span));
      return static_cast<T>(static_cast<std::int64_t>(lo) + static_cast<std::int64_t>(offset));
    } else {
      const T u = static_cast<T>(word) * static_cast<T>(1.0 / 4294967296.0);  // exact power of two
#if defined(__CUDA_ARCH__)
      // Round each step like the host does (no fused multiply-add).
      if constexpr (std::is_same_v<T, float>) return __fadd_rn(lo, __fmul_rn(hi - lo, u));
      else return __dadd_rn(lo, __dmul_rn(hi - lo, u));
#else
      return lo + (hi - lo) * u;
#endif
    }
  }
};

template <class T>
__global__ void generate_values_kernel(ValueModel<T> model, const std::uint32_t* words, T* values,
                                       std::size_t n) {
  for (const std::size_t i : grid_stride(n)) values[i] = model(words[i]);
}

template <class T>
ValueModel<T> make_value_model(T lo, T hi) {
  if (!(lo <= hi)) throw std::invalid_argument("generate_values: lo must not exceed hi");
  ValueModel<T> m{lo, hi, 0};
  if constexpr (std::is_integral_v<T>) {
    m.span = static_cast<std::uint64_t>(static_cast<std::int64_t>(hi) - static_cast<std::int64_t>(lo)) + 1;
    if (m.span > (std::uint64_t{1} << 32))
      throw std::invalid_argument("generate_values: an integer range may span at most 2^32 values");
  }
  return m;
}

struct PkPkModel {
  RandomPermutation keys;      // over [0, key_domain): R's keys, then S's unmatched keys
  RandomPermutation r_subset;  // over [0, r_rows): which of R's keys S matches
  RandomPermutation s_order;   // over [0, s_rows)
  std::uint64_t r_rows;
  std::uint64_t matches;

  HASHLAB_HD std::uint32_t r_key(std::uint64_t i) const { return keys(i); }
  HASHLAB_HD std::uint32_t s_key(std::uint64_t j) const {
    const std::uint64_t t = s_order(j);
    return t < matches ? keys(r_subset(t)) : keys(r_rows + (t - matches));
  }
};

PkPkModel make_pkpk_model(const PkPkSpec& spec, std::uint64_t seed) {
  validate(spec);
  PkPkModel m;
  m.keys = RandomPermutation(spec.key_domain, role_seed(seed, Role::kPkPkKeys));
  m.r_subset = RandomPermutation(std::max<std::uint64_t>(spec.r_rows, 1), role_seed(seed, Role::kPkPkSubset));
  m.s_order = RandomPermutation(std::max<std::uint64_t>(spec.s_rows, 1), role_seed(seed, Role::kPkPkOrder));
  m.r_rows = spec.r_rows;
  m.matches = spec.matches();
  return m;
}

__global__ void generate_pkpk_kernel(PkPkModel model, std::uint32_t* r_keys, std::size_t r_rows,
                                     std::uint32_t* s_keys, std::size_t s_rows) {
  for (const std::size_t i : grid_stride(r_rows)) r_keys[i] = model.r_key(i);
  for (const std::size_t j : grid_stride(s_rows)) s_keys[j] = model.s_key(j);
}

}  // namespace

// ---- KeySpec ----------------------------------------------------------------------------------

const char* to_string(KeyDistribution d) {
  switch (d) {
    case KeyDistribution::kSequence: return "sequence";
    case KeyDistribution::kShuffledSequence: return "shuffled";
    case KeyDistribution::kUniqueRandom: return "unique";
    case KeyDistribution::kUniform: return "uniform";
    case KeyDistribution::kZipf: return "zipf";
  }
  return "?";
}

KeyDistribution parse_key_distribution(const std::string& name) {
  for (auto d : {KeyDistribution::kSequence, KeyDistribution::kShuffledSequence,
                 KeyDistribution::kUniqueRandom, KeyDistribution::kUniform, KeyDistribution::kZipf})
    if (name == to_string(d)) return d;
  throw std::invalid_argument("unknown key distribution '" + name +
                              "' (expected sequence, shuffled, unique, uniform or zipf)");
}

KeySpec KeySpec::sequence() { return {KeyDistribution::kSequence, 0, 0.0, kMaxKeyDomain}; }
KeySpec KeySpec::shuffled_sequence() { return {KeyDistribution::kShuffledSequence, 0, 0.0, kMaxKeyDomain}; }
KeySpec KeySpec::unique(std::uint64_t domain) { return {KeyDistribution::kUniqueRandom, 0, 0.0, domain}; }
KeySpec KeySpec::uniform(std::uint64_t distinct, std::uint64_t domain) {
  return {KeyDistribution::kUniform, distinct, 0.0, domain};
}
KeySpec KeySpec::multiplicity(std::uint64_t n, double average_multiplicity, std::uint64_t domain) {
  if (!(average_multiplicity >= 1.0))
    throw std::invalid_argument("average multiplicity must be at least 1");
  const auto distinct = static_cast<std::uint64_t>(std::ceil(static_cast<double>(n) / average_multiplicity));
  return uniform(std::max<std::uint64_t>(distinct, 1), domain);
}
KeySpec KeySpec::zipf(std::uint64_t distinct, double exponent, std::uint64_t domain) {
  return {KeyDistribution::kZipf, distinct, exponent, domain};
}

std::uint64_t KeySpec::distinct_keys(std::uint64_t n) const {
  switch (distribution) {
    case KeyDistribution::kUniform:
    case KeyDistribution::kZipf:
      return std::min(n, distinct);
    default:
      return n;
  }
}

std::string KeySpec::describe() const {
  std::ostringstream out;
  out << to_string(distribution);
  if (distribution == KeyDistribution::kUniform || distribution == KeyDistribution::kZipf)
    out << " distinct=" << distinct;
  if (distribution == KeyDistribution::kZipf) out << " s=" << zipf_exponent;
  if (domain != kMaxKeyDomain) out << " domain=" << domain;
  return out.str();
}

void validate(const KeySpec& spec, std::uint64_t n, int columns) {
  auto fail = [&](const std::string& why) {
    throw std::invalid_argument("cannot draw " + std::to_string(n) + " rows of " + spec.describe() +
                                " keys: " + why);
  };
  if (columns < 1 || columns > kMaxKeyColumns)
    fail("key columns must be between 1 and " + std::to_string(kMaxKeyColumns));
  if (spec.domain < 1 || spec.domain > kMaxKeyDomain)
    fail("the key domain must be between 1 and 2^32 - 1 (0xffffffff is the reserved empty key)");
  const bool grouped = spec.distribution == KeyDistribution::kUniform ||
                       spec.distribution == KeyDistribution::kZipf;
  if (grouped && spec.distinct < 1) fail("the number of distinct keys must be at least 1");
  if (spec.distribution == KeyDistribution::kZipf) {
    if (spec.distinct > kMaxZipfKeys)
      fail("Zipf keys are limited to " + std::to_string(kMaxZipfKeys) + " distinct values");
    if (!(spec.zipf_exponent >= 0.0) || !std::isfinite(spec.zipf_exponent))
      fail("the Zipf exponent must be a finite number >= 0");
  }
  const std::uint64_t groups = number_of_groups(spec, n);
  if (grouped && groups > kMaxKeyDomain) fail("more distinct keys than 32-bit keys can hold");
  const std::uint64_t base = digit_base(groups, columns);
  if (base > spec.domain)
    fail("needs " + std::to_string(groups) + " distinct keys but the domain holds only " +
         std::to_string(spec.domain) + (columns > 1 ? " values per column" : ""));
}

// ---- keys -------------------------------------------------------------------------------------

void generate_key_columns(const KeySpec& spec, std::uint64_t seed, int columns, std::uint32_t* d_keys,
                          std::size_t n, cudaStream_t stream) {
  validate(spec, n, columns);
  if (n == 0) return;
  // A copy from pageable memory returns once the source is staged, so host_cdf may go first.
  std::vector<double> host_cdf;
  DeviceBuffer<double> cdf;
  if (spec.distribution == KeyDistribution::kZipf) {
    host_cdf = zipf_cdf(spec.distinct, spec.zipf_exponent);
    cdf = to_device(host_cdf, stream);
  }
  DeviceBuffer<std::uint32_t> words;
  if (needs_row_words(spec.distribution)) words = philox_words_device(role_seed(seed, Role::kRowWords), n, stream);
  const KeyModel model = make_key_model(spec, seed, columns, n, cdf.data());
  generate_keys_kernel<<<grid_for(n), kDefaultBlock, 0, stream>>>(model, words.data(), d_keys, n);
  HASHLAB_CHECK_LAUNCH();
}

std::vector<std::uint32_t> generate_key_columns_host(const KeySpec& spec, std::uint64_t seed, int columns,
                                                     std::size_t n) {
  validate(spec, n, columns);
  std::vector<std::uint32_t> keys(n * static_cast<std::size_t>(columns));
  if (n == 0) return keys;
  std::vector<double> cdf;
  if (spec.distribution == KeyDistribution::kZipf) cdf = zipf_cdf(spec.distinct, spec.zipf_exponent);
  std::vector<std::uint32_t> words;
  if (needs_row_words(spec.distribution)) words = philox_words_host(role_seed(seed, Role::kRowWords), n);
  const KeyModel model = make_key_model(spec, seed, columns, n, cdf.data());
  for (std::size_t row = 0; row < n; ++row) {
    const std::uint64_t g = model.group(row, words.empty() ? 0u : words[row]);
    for (int c = 0; c < columns; ++c) keys[c * n + row] = model.key(g, c);
  }
  return keys;
}

void generate_keys(const KeySpec& spec, std::uint64_t seed, std::uint32_t* d_keys, std::size_t n,
                   cudaStream_t stream) {
  generate_key_columns(spec, seed, 1, d_keys, n, stream);
}

std::vector<std::uint32_t> generate_keys_host(const KeySpec& spec, std::uint64_t seed, std::size_t n) {
  return generate_key_columns_host(spec, seed, 1, n);
}

// ---- values -----------------------------------------------------------------------------------

template <class T>
void generate_values(std::uint64_t seed, T lo, T hi, T* d_values, std::size_t n, cudaStream_t stream) {
  const ValueModel<T> model = make_value_model(lo, hi);
  if (n == 0) return;
  auto words = philox_words_device(role_seed(seed, Role::kValueWords), n, stream);
  generate_values_kernel<<<grid_for(n), kDefaultBlock, 0, stream>>>(model, words.data(), d_values, n);
  HASHLAB_CHECK_LAUNCH();
}

template <class T>
std::vector<T> generate_values_host(std::uint64_t seed, T lo, T hi, std::size_t n) {
  const ValueModel<T> model = make_value_model(lo, hi);
  std::vector<T> values(n);
  if (n == 0) return values;
  const auto words = philox_words_host(role_seed(seed, Role::kValueWords), n);
  for (std::size_t i = 0; i < n; ++i) values[i] = model(words[i]);
  return values;
}

#define HASHLAB_INSTANTIATE_VALUES(T)                                                              \
  template void generate_values<T>(std::uint64_t, T, T, T*, std::size_t, cudaStream_t);            \
  template std::vector<T> generate_values_host<T>(std::uint64_t, T, T, std::size_t);
HASHLAB_INSTANTIATE_VALUES(std::uint32_t)
HASHLAB_INSTANTIATE_VALUES(std::int32_t)
HASHLAB_INSTANTIATE_VALUES(std::int64_t)
HASHLAB_INSTANTIATE_VALUES(float)
HASHLAB_INSTANTIATE_VALUES(double)
#undef HASHLAB_INSTANTIATE_VALUES

// ---- Pk-Pk tables ---------------------------------------------------------------------------

std::uint64_t PkPkSpec::matches() const {
  return static_cast<std::uint64_t>(std::llround(match_rate * static_cast<double>(s_rows)));
}

std::string PkPkSpec::describe() const {
  std::ostringstream out;
  out << "pk-pk R=" << r_rows << " S=" << s_rows << " domain=" << key_domain << " match=" << match_rate;
  return out.str();
}

void validate(const PkPkSpec& spec) {
  auto fail = [&](const std::string& why) {
    throw std::invalid_argument("cannot draw tables " + spec.describe() + ": " + why);
  };
  if (spec.key_domain < 1 || spec.key_domain > kMaxKeyDomain)
    fail("the key domain must be between 1 and 2^32 - 1");
  if (!(spec.match_rate >= 0.0 && spec.match_rate <= 1.0)) fail("the match rate must lie in [0, 1]");
  const std::uint64_t m = spec.matches();
  if (m > spec.r_rows)
    fail("a match rate of " + std::to_string(spec.match_rate) + " needs " + std::to_string(m) +
         " keys of R, which has " + std::to_string(spec.r_rows));
  const std::uint64_t keys_needed = spec.r_rows + (spec.s_rows - m);
  if (keys_needed > spec.key_domain)
    fail("needs " + std::to_string(keys_needed) + " distinct keys but the domain holds only " +
         std::to_string(spec.key_domain));
}

void generate_pkpk(const PkPkSpec& spec, std::uint64_t seed, std::uint32_t* d_r_keys, std::uint32_t* d_s_keys,
                   cudaStream_t stream) {
  const PkPkModel model = make_pkpk_model(spec, seed);
  const std::size_t rows = std::max(spec.r_rows, spec.s_rows);
  if (rows == 0) return;
  generate_pkpk_kernel<<<grid_for(rows), kDefaultBlock, 0, stream>>>(model, d_r_keys, spec.r_rows, d_s_keys,
                                                                     spec.s_rows);
  HASHLAB_CHECK_LAUNCH();
}

void generate_pkpk_host(const PkPkSpec& spec, std::uint64_t seed, std::vector<std::uint32_t>& r_keys,
                        std::vector<std::uint32_t>& s_keys) {
  const PkPkModel model = make_pkpk_model(spec, seed);
  r_keys.resize(spec.r_rows);
  s_keys.resize(spec.s_rows);
  for (std::size_t i = 0; i < spec.r_rows; ++i) r_keys[i] = model.r_key(i);
  for (std::size_t j = 0; j < spec.s_rows; ++j) s_keys[j] = model.s_key(j);
}

}  // namespace hashlab::gen

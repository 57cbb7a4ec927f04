// Multi-threaded CPU baselines (see hashlab/reference/cpu_baselines.hpp).
//
// Every operator has the same two phases:
//   1. radix partitioning: each thread takes a contiguous chunk of rows, counts how many fall
//      into each partition (the high bits of fmix32(key)), a prefix sum over (partition,
//      thread) gives every thread its own write cursor per partition, and the threads scatter
//      their rows. The scatter is stable: within a partition, rows keep their input order.
//   2. per-partition work: threads take partitions from an atomic counter and aggregate or join
//      each with a private open-addressing table (linear probing, power-of-two capacity,
//      indexed by the low bits of the same hash). Partitions are sized so that a table stays in
//      the core's L2 cache, which is what makes this faster than one big shared table.
// Stability is what lets the results equal the references bit for bit: a group's rows are
// aggregated in input order, so even floating sums round exactly as the reference's do.
//
// A group-by with few groups (estimated from a sample of the keys) skips phase 1: its tables
// stay in cache anyway, so each thread aggregates its own chunk of rows into a private table and
// the tables merge in chunk order. That is exact for every aggregation whose partial results
// merge without rounding: all but floating sums and means, for which each of a few threads
// instead scans all rows and aggregates the keys that hash to it (many threads partition). The
// groups are then radix-sorted by key, the order the result promises.
#include "hashlab/reference/cpu_baselines.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <exception>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <type_traits>

#include "hashlab/common/hash.hpp"
#include "hashlab/common/scatter.hpp"
#include "hashlab/common/sentinels.hpp"
#include "hashlab/common/threads.hpp"

namespace hashlab::cpu {
namespace {

using reference::AggregateColumn;
using reference::Aggregation;
using reference::GroupByResult;
using reference::JoinPair;

// The tables' empty-slot marker is kEmptyKey (sentinels.hpp). The key itself is legal input
// here: each table keeps the one group (or build row set) of key 0xffffffff in a slot of its own
// beside the array.

/// Below this many rows per thread, starting a thread costs more than it saves.
constexpr std::size_t kMinRowsPerThread = 4096;
/// Target rows per partition: a table of twice as many slots of 8-16 bytes (256-512 KiB) stays
/// in a 1-2 MiB L2 cache even when every row is its own group.
constexpr std::size_t kRowsPerPartition = 16384;
/// 4096 partitions: a single scatter pass to more write streams thrashes the TLB.
constexpr int kMaxPartitionBits = 12;
/// Partitions per thread wanted for load balance, as long as partitions keep enough rows.
constexpr std::size_t kPartitionsPerThread = 4;
constexpr std::size_t kMinRowsPerPartition = 1024;
/// Up to this many groups, threads aggregate into private tables of their own and merge them,
/// instead of partitioning the rows first. Measured on 10^7 rows (2 threads): private tables win
/// up to 10^5 groups (a 4 MiB table in L3 costs less than a partitioning pass), lose at 10^6.
constexpr std::size_t kLocalMaxGroups = 131072;
/// ... as long as the merge (threads x groups entries) stays small beside the rows.
constexpr std::size_t kRowsPerMergedGroup = 8;
/// Few groups of floating sums: up to this many threads each scan all rows (see
/// groupby_shared_scan); beyond, the scans cost more than partitioning.
constexpr unsigned kMaxSharedScanThreads = 4;

// ---- threads and buffers ----------------------------------------------------------------------

unsigned threads_for(std::size_t rows, unsigned requested) {
  const unsigned wanted = requested != 0 ? requested : default_threads();
  const std::size_t useful = std::max<std::size_t>(1, rows / kMinRowsPerThread);
  return static_cast<unsigned>(std::min<std::size_t>(wanted, useful));
}

/// Partition bits for `entries` table entries (groups, or build rows) over `rows` rows: enough
/// partitions that each one's table fits in cache, and enough for every thread to get several.
int partition_bits(std::size_t entries, std::size_t rows, unsigned threads) {
  int bits = 0;
  while (bits < kMaxPartitionBits && (entries >> bits) > kRowsPerPartition) ++bits;
  while (bits < kMaxPartitionBits && threads > 1 && (std::size_t{1} << bits) < kPartitionsPerThread * threads &&
         (rows >> (bits + 1)) >= kMinRowsPerPartition)
    ++bits;
  return bits;
}

std::uint32_t partition_of(std::uint32_t key, int bits) {
  return bits == 0 ? 0 : hash::fmix32(key) >> (32 - bits);
}

std::size_t next_pow2(std::size_t x) {
  std::size_t p = 1;
  while (p < x) p <<= 1;
  return p;
}

/// A buffer that is written before it is read: no zero-filling pass (std::vector would make one).
template <class T>
std::unique_ptr<T[]> uninitialized(std::size_t n) {
  return std::unique_ptr<T[]>(new T[n]);
}

// Phase 1, the stable parallel scatter, is common's scatter_by_bucket (scatter.hpp).

// ---- group-by ---------------------------------------------------------------------------------
// One policy per aggregation: the per-group accumulator, how a row updates it, how two partial
// accumulators merge, and the final value. They follow the reference's rules exactly (integer
// sums in wrapping int64, floating values in double, min/max skip NaNs and keep the earlier
// value on ties, mean = sum / count in double). kOrderFree: merging partial accumulators of
// consecutive row ranges gives the sequential result bit for bit (not so for floating sums,
// whose rounding depends on the order of the additions).

std::int64_t wrapping_add(std::int64_t a, std::int64_t b) {
  return static_cast<std::int64_t>(static_cast<std::uint64_t>(a) + static_cast<std::uint64_t>(b));
}

template <class T>
bool is_nan(T x) {
  if constexpr (std::is_floating_point_v<T>) return std::isnan(x);
  else return false;
}

template <class V>
using ExactOrReal = std::conditional_t<std::is_integral_v<V>, std::int64_t, double>;

template <class V>
struct SumOp {
  using Acc = ExactOrReal<V>;
  using Out = Acc;
  static constexpr bool kOrderFree = std::is_integral_v<V>;
  static void update(Acc& a, V v) { merge(a, static_cast<Acc>(v)); }
  static Acc init(V v) {  // 0 + v, like the reference (so -0.0 becomes +0.0 there and here)
    Acc a{0};
    update(a, v);
    return a;
  }
  static void merge(Acc& a, const Acc& b) {
    if constexpr (std::is_integral_v<V>) a = wrapping_add(a, b);
    else a += b;
  }
  static Out finish(const Acc& a) { return a; }
};

template <class V>
struct MinOp {
  using Acc = V;
  using Out = ExactOrReal<V>;
  static constexpr bool kOrderFree = true;
  static Acc init(V v) { return v; }
  static void update(Acc& a, V v) {
    if (v < a || is_nan(a)) a = v;
  }
  static void merge(Acc& a, const Acc& b) { update(a, b); }
  static Out finish(const Acc& a) { return static_cast<Out>(a); }
};

template <class V>
struct MaxOp {
  using Acc = V;
  using Out = ExactOrReal<V>;
  static constexpr bool kOrderFree = true;
  static Acc init(V v) { return v; }
  static void update(Acc& a, V v) {
    if (a < v || is_nan(a)) a = v;
  }
  static void merge(Acc& a, const Acc& b) { update(a, b); }
  static Out finish(const Acc& a) { return static_cast<Out>(a); }
};

template <class V>
struct CountOp {
  using Acc = std::int64_t;
  using Out = std::int64_t;
  static constexpr bool kOrderFree = true;
  static Acc init(V) { return 1; }
  static void update(Acc& a, V) { ++a; }
  static void merge(Acc& a, const Acc& b) { a += b; }
  static Out finish(const Acc& a) { return a; }
};

template <class V>
struct MeanOp {
  struct Acc {
    typename SumOp<V>::Acc sum;
    std::int64_t count;
  };
  using Out = double;
  static constexpr bool kOrderFree = SumOp<V>::kOrderFree;
  static Acc init(V v) { return {SumOp<V>::init(v), 1}; }
  static void update(Acc& a, V v) {
    SumOp<V>::update(a.sum, v);
    ++a.count;
  }
  static void merge(Acc& a, const Acc& b) {
    SumOp<V>::merge(a.sum, b.sum);
    a.count += b.count;
  }
  static Out finish(const Acc& a) { return static_cast<double>(a.sum) / static_cast<double>(a.count); }
};

/// One thread's private group table (key -> accumulator), reused from partition to partition.
template <class V, class Op>
class GroupTable {
 public:
  using Acc = typename Op::Acc;
  using Out = typename Op::Out;

  /// Empties the table, sized for `expected_groups` (it doubles when they are more).
  void reset(std::size_t expected_groups) {
    const std::size_t capacity = next_pow2(std::max<std::size_t>(2 * expected_groups, 16));
    slots_.assign(capacity, Slot{kEmptyKey, Acc{}});
    mask_ = capacity - 1;
    size_ = 0;
    has_reserved_ = false;
  }

  std::size_t groups() const { return size_ + (has_reserved_ ? 1 : 0); }

  void add(std::uint32_t key, V v) {
    bool inserted = false;
    Acc& acc = acc_of(key, inserted);
    if (!inserted) {
      Op::update(acc, v);
      return;
    }
    acc = Op::init(v);
    if (2 * size_ > slots_.size()) grow();
  }

  /// Merges another table's accumulator of `key`, holding rows that come after this table's.
  void merge(std::uint32_t key, const Acc& other) {
    bool inserted = false;
    Acc& acc = acc_of(key, inserted);
    if (!inserted) {
      Op::merge(acc, other);
      return;
    }
    acc = other;
    if (2 * size_ > slots_.size()) grow();
  }

  /// fn(key, accumulator) for every group, in slot order.
  template <class Fn>
  void for_each(Fn fn) const {
    for (const Slot& slot : slots_)
      if (slot.key != kEmptyKey) fn(slot.key, slot.acc);
    if (has_reserved_) fn(kEmptyKey, reserved_);
  }

  /// Writes the groups' keys and final values; returns how many there are.
  std::size_t emit(std::uint32_t* keys, Out* out) const {
    std::size_t g = 0;
    for_each([&](std::uint32_t key, const Acc& acc) {
      keys[g] = key;
      out[g++] = Op::finish(acc);
    });
    return g;
  }

 private:
  struct Slot {
    std::uint32_t key;
    Acc acc;
  };

  /// The accumulator of `key`, claiming an empty slot if the key is new (inserted = true; the
  /// caller initialises it and then checks the load).
  Acc& acc_of(std::uint32_t key, bool& inserted) {
    if (key == kEmptyKey) {
      inserted = !has_reserved_;
      has_reserved_ = true;
      return reserved_;
    }
    for (std::size_t i = hash::fmix32(key) & mask_;; i = (i + 1) & mask_) {
      Slot& slot = slots_[i];
      if (slot.key == key) {
        inserted = false;
        return slot.acc;
      }
      if (slot.key == kEmptyKey) {
        slot.key = key;
        ++size_;
        inserted = true;
        return slot.acc;
      }
    }
  }

  void grow() {
    std::vector<Slot> old(2 * slots_.size(), Slot{kEmptyKey, Acc{}});
    old.swap(slots_);
    mask_ = slots_.size() - 1;
    for (const Slot& slot : old) {
      if (slot.key == kEmptyKey) continue;
      std::size_t i = hash::fmix32(slot.key) & mask_;
      while (slots_[i].key != kEmptyKey) i = (i + 1) & mask_;
      slots_[i] = slot;
    }
  }

  std::vector<Slot> slots_;
  std::size_t mask_ = 0;
  std::size_t size_ = 0;
  bool has_reserved_ = false;
  Acc reserved_{};
};

/// Sorts (key, value) rows by key: an LSD radix sort, 8 bits per pass, each pass a stable
/// parallel scatter; a pass over a byte that all keys share is skipped. The sorted rows end up
/// in (keys, values), which may be swapped with (tmp_keys, tmp_values).
template <class Out>
void radix_sort_by_key(std::unique_ptr<std::uint32_t[]>& keys, std::unique_ptr<Out[]>& values,
                       std::unique_ptr<std::uint32_t[]>& tmp_keys, std::unique_ptr<Out[]>& tmp_values,
                       std::size_t n, unsigned threads) {
  for (int shift = 0; shift < 32; shift += 8) {
    const std::uint32_t* k = keys.get();
    const Out* v = values.get();
    std::uint32_t* tk = tmp_keys.get();
    Out* tv = tmp_values.get();
    const Scatter pass = scatter_by_bucket(
        n, threads, 256, [&](std::size_t i) { return (k[i] >> shift) & 0xffu; },
        [&](std::size_t i, std::size_t dst) {
          tk[dst] = k[i];
          tv[dst] = v[i];
        },
        /*skip_single_bucket=*/true);
    if (pass.moved) {
      keys.swap(tmp_keys);
      values.swap(tmp_values);
    }
  }
}

/// Groups found by either strategy, dense: keys[g], out[g] for g < groups.
template <class Out>
struct Groups {
  std::unique_ptr<std::uint32_t[]> keys;
  std::unique_ptr<Out[]> out;
  std::size_t groups = 0;
};

/// The result in the references' form, sorted by key.
template <class Out>
GroupByResult sorted_result(Groups<Out> g, Aggregation op, unsigned requested_threads) {
  auto tmp_keys = uninitialized<std::uint32_t>(g.groups);
  auto tmp_out = uninitialized<Out>(g.groups);
  radix_sort_by_key(g.keys, g.out, tmp_keys, tmp_out, g.groups, threads_for(g.groups, requested_threads));
  GroupByResult result;
  result.keys.emplace_back(g.keys.get(), g.keys.get() + g.groups);
  AggregateColumn column;
  column.op = op;
  if constexpr (std::is_same_v<Out, std::int64_t>) column.exact.assign(g.out.get(), g.out.get() + g.groups);
  else column.real.assign(g.out.get(), g.out.get() + g.groups);
  result.aggregates.push_back(std::move(column));
  return result;
}

}  // namespace

/// The distinct keys among s sampled rows give G through d = G (1 - exp(-s / G)), the mean for s
/// rows drawn uniformly from G groups. The sample is one row at a random offset in each of s equal
/// windows of the input: rows in key order (a table sorted by its key, as TPC-H's lineitem by
/// orderkey) or keys repeating with a period show the sample as many groups as a random draw would.
/// (Runs of consecutive rows, the sample before, saw a sorted table's 1.5M groups as 18K, and the
/// strategy chosen for few groups then took 4x the partitioned one's time.)
std::size_t estimate_groups(const std::uint32_t* keys, std::size_t n) {
  constexpr std::size_t kSampleRows = 65536;
  GroupTable<std::uint32_t, CountOp<std::uint32_t>> seen;
  seen.reset(std::min(n, kSampleRows));
  if (n <= kSampleRows) {
    for (std::size_t i = 0; i < n; ++i) seen.add(keys[i], 0);
    return seen.groups();
  }
  for (std::size_t w = 0; w < kSampleRows; ++w) {
    const std::size_t begin = n * w / kSampleRows, width = n * (w + 1) / kSampleRows - begin;
    seen.add(keys[begin + hash::fmix32(static_cast<std::uint32_t>(w) + 1) % width], 0);
  }
  const auto d = static_cast<double>(seen.groups());
  const auto s = static_cast<double>(kSampleRows);
  if (d >= 0.9 * s) return n;  // nearly every sampled key distinct: 10^6 groups look like 10^9
  double lo = d, hi = static_cast<double>(n);  // distinct(G) = G (1 - exp(-s / G)) grows with G
  for (int step = 0; step < 60; ++step) {
    const double mid = (lo + hi) / 2;
    if (mid * -std::expm1(-s / mid) < d) lo = mid;
    else hi = mid;
  }
  return static_cast<std::size_t>(std::ceil(hi));
}

namespace {

/// Strategy for few groups: every thread aggregates its chunk of rows into a private table that
/// stays in cache, then the tables merge in thread (= row) order. No partitioning pass. Gives up
/// (returns false) as soon as a table outgrows `max_groups`.
template <class V, class Op>
bool groupby_local(const std::vector<std::uint32_t>& keys, const std::vector<V>& values, unsigned threads,
                   std::size_t expected_groups, std::size_t max_groups, Groups<typename Op::Out>& result) {
  constexpr std::size_t kCheckEvery = 4096;  // rows between looks at the table's size
  const std::size_t n = keys.size();
  const std::uint32_t* k = keys.data();
  const V* v = values.data();
  std::vector<GroupTable<V, Op>> tables(threads);
  std::atomic<bool> too_many{false};
  run_threads(threads, [&](unsigned t) {
    GroupTable<V, Op>& table = tables[t];
    const std::size_t begin = chunk_begin(t, threads, n), end = chunk_begin(t + 1, threads, n);
    table.reset(std::min(end - begin, expected_groups));
    for (std::size_t block = begin; block < end; block += kCheckEvery) {
      for (std::size_t i = block, stop = std::min(end, block + kCheckEvery); i < stop; ++i)
        table.add(k[i], v[i]);
      if (table.groups() > max_groups) too_many.store(true, std::memory_order_relaxed);
      if (too_many.load(std::memory_order_relaxed)) return;
    }
  });
  if (too_many.load()) return false;
  for (unsigned t = 1; t < threads; ++t)
    tables[t].for_each([&](std::uint32_t key, const auto& acc) { tables[0].merge(key, acc); });
  result.groups = tables[0].groups();
  result.keys = uninitialized<std::uint32_t>(result.groups);
  result.out = uninitialized<typename Op::Out>(result.groups);
  tables[0].emit(result.keys.get(), result.out.get());
  return true;
}

/// Strategy for few groups whose partial aggregates may not merge (floating sums and means), on
/// a few threads: every thread scans all rows and aggregates those whose key hashes to it, so
/// each group is aggregated by one thread, in row order, and no rows are copied. Reading every key
/// once per thread costs less than a partitioning pass up to kMaxSharedScanThreads threads.
template <class V, class Op>
Groups<typename Op::Out> groupby_shared_scan(const std::vector<std::uint32_t>& keys, const std::vector<V>& values,
                                             unsigned threads, std::size_t expected_groups) {
  const std::size_t n = keys.size();
  const std::uint32_t* k = keys.data();
  const V* v = values.data();
  std::vector<GroupTable<V, Op>> tables(threads);
  run_threads(threads, [&](unsigned t) {
    GroupTable<V, Op>& table = tables[t];
    table.reset(expected_groups / threads + 1);
    // Select this thread's rows of a block without branching (a branch on a random hash would
    // mispredict on every other row), then aggregate them.
    constexpr std::size_t kBlock = 2048;
    std::uint32_t mine[kBlock];
    for (std::size_t block = 0; block < n; block += kBlock) {
      const auto rows = static_cast<std::uint32_t>(std::min(kBlock, n - block));
      std::uint32_t count = 0;
      for (std::uint32_t i = 0; i < rows; ++i) {
        mine[count] = i;
        count += hash::reduce_range(hash::fmix32(k[block + i]), threads) == t;
      }
      for (std::uint32_t j = 0; j < count; ++j) table.add(k[block + mine[j]], v[block + mine[j]]);
    }
  });
  Groups<typename Op::Out> result;
  for (const auto& table : tables) result.groups += table.groups();
  result.keys = uninitialized<std::uint32_t>(result.groups);
  result.out = uninitialized<typename Op::Out>(result.groups);
  std::size_t at = 0;
  for (const auto& table : tables) at += table.emit(result.keys.get() + at, result.out.get() + at);
  return result;
}

/// Strategy for many groups: radix-partition the rows by hash, then aggregate each partition
/// (whose groups are all its own) with a table that fits in cache.
template <class V, class Op>
Groups<typename Op::Out> groupby_partitioned(const std::vector<std::uint32_t>& keys, const std::vector<V>& values,
                                             unsigned threads, std::size_t expected_groups) {
  using Out = typename Op::Out;
  const std::size_t n = keys.size();
  const int bits = partition_bits(expected_groups, n, threads);
  const std::size_t partitions = std::size_t{1} << bits;

  // Phase 1: partition (key, value) rows by hash. One partition needs no copy.
  std::unique_ptr<std::uint32_t[]> part_keys;
  std::unique_ptr<V[]> part_values;
  const std::uint32_t* pk = keys.data();
  const V* pv = values.data();
  std::vector<std::size_t> offsets{0, n};
  if (partitions > 1) {
    part_keys = uninitialized<std::uint32_t>(n);
    part_values = uninitialized<V>(n);
    std::uint32_t* dk = part_keys.get();
    V* dv = part_values.get();
    offsets = scatter_by_bucket(
                  n, threads, partitions, [&](std::size_t i) { return partition_of(pk[i], bits); },
                  [&](std::size_t i, std::size_t dst) {
                    dk[dst] = pk[i];
                    dv[dst] = pv[i];
                  })
                  .offsets;
    pk = dk;
    pv = dv;
  }

  // Phase 2: aggregate each partition; its groups go to the partition's own rows of the staging
  // arrays (a partition of r rows has at most r groups; pages that no group reaches are never
  // touched, so few groups cost little memory).
  auto staged_keys = uninitialized<std::uint32_t>(n);
  auto staged_out = uninitialized<Out>(n);
  std::vector<std::size_t> groups_in(partitions);
  std::atomic<std::size_t> next_partition{0};
  const auto workers = static_cast<unsigned>(std::min<std::size_t>(threads, partitions));
  const std::size_t expected_per_partition = expected_groups / partitions + 1;
  run_threads(workers, [&](unsigned) {
    GroupTable<V, Op> table;
    for (std::size_t p; (p = next_partition.fetch_add(1, std::memory_order_relaxed)) < partitions;) {
      const std::size_t begin = offsets[p], end = offsets[p + 1];
      if (begin == end) continue;
      table.reset(std::min(end - begin, expected_per_partition));
      for (std::size_t i = begin; i < end; ++i) table.add(pk[i], pv[i]);
      groups_in[p] = table.emit(staged_keys.get() + begin, staged_out.get() + begin);
    }
  });

  // Gather the groups densely, in partition order.
  std::vector<std::size_t> group_offset(partitions + 1, 0);
  for (std::size_t p = 0; p < partitions; ++p) group_offset[p + 1] = group_offset[p] + groups_in[p];
  Groups<Out> result;
  result.groups = group_offset[partitions];
  result.keys = uninitialized<std::uint32_t>(result.groups);
  result.out = uninitialized<Out>(result.groups);
  run_threads(workers, [&](unsigned t) {
    for (std::size_t p = t; p < partitions; p += workers) {
      std::copy_n(staged_keys.get() + offsets[p], groups_in[p], result.keys.get() + group_offset[p]);
      std::copy_n(staged_out.get() + offsets[p], groups_in[p], result.out.get() + group_offset[p]);
    }
  });
  return result;
}

template <class V, class Op>
GroupByResult groupby_with(const std::vector<std::uint32_t>& keys, const std::vector<V>& values, Aggregation op,
                           unsigned requested_threads) {
  const std::size_t n = keys.size();
  const unsigned threads = threads_for(n, requested_threads);
  const std::size_t estimate = estimate_groups(keys.data(), n);
  // Private tables merged at the end suit few groups: the tables stay in cache and merging them
  // (threads x groups entries, on one thread) costs little beside the rows. Floating sums and
  // means may not merge partial sums (they would round differently from the reference) unless
  // one thread does all rows. A wrong estimate (a long tail of rare keys) costs the rows
  // aggregated until a table outgrows twice the limit.
  const bool few = estimate <= kLocalMaxGroups && estimate * threads <= n / kRowsPerMergedGroup;
  if (few && (Op::kOrderFree || threads == 1)) {
    Groups<typename Op::Out> groups;
    if (groupby_local<V, Op>(keys, values, threads, estimate, 2 * kLocalMaxGroups, groups))
      return sorted_result(std::move(groups), op, requested_threads);
    return sorted_result(groupby_partitioned<V, Op>(keys, values, threads, n), op, requested_threads);
  }
  if (few && threads <= kMaxSharedScanThreads)
    return sorted_result(groupby_shared_scan<V, Op>(keys, values, threads, estimate), op, requested_threads);
  return sorted_result(groupby_partitioned<V, Op>(keys, values, threads, estimate), op, requested_threads);
}

// ---- joins ------------------------------------------------------------------------------------

/// A partition's build side for the join count: key -> number of build rows with the key.
/// Count is 32-bit unless a table may hold 2^32 rows (halving the slot keeps tables in L2).
template <class Count>
class CountTable {
 public:
  void build(const std::uint32_t* keys, std::size_t rows) {
    const std::size_t capacity = next_pow2(std::max<std::size_t>(2 * rows, 16));
    slots_.assign(capacity, Slot{kEmptyKey, 0});
    mask_ = capacity - 1;
    reserved_ = 0;
    for (std::size_t r = 0; r < rows; ++r) {
      const std::uint32_t key = keys[r];
      if (key == kEmptyKey) {
        ++reserved_;
        continue;
      }
      std::size_t i = hash::fmix32(key) & mask_;
      while (slots_[i].key != kEmptyKey && slots_[i].key != key) i = (i + 1) & mask_;
      slots_[i].key = key;
      ++slots_[i].count;
    }
  }

  std::uint64_t probe(const std::uint32_t* keys, std::size_t rows) const {
    std::uint64_t matches = 0;
    for (std::size_t r = 0; r < rows; ++r) {
      const std::uint32_t key = keys[r];
      if (key == kEmptyKey) {
        matches += reserved_;
        continue;
      }
      for (std::size_t i = hash::fmix32(key) & mask_; slots_[i].key != kEmptyKey; i = (i + 1) & mask_)
        if (slots_[i].key == key) {
          matches += slots_[i].count;
          break;
        }
    }
    return matches;
  }

 private:
  struct Slot {
    std::uint32_t key;
    Count count;
  };
  std::vector<Slot> slots_;
  std::size_t mask_ = 0;
  std::uint64_t reserved_ = 0;
};

template <class Count>
std::uint64_t join_count_with(const std::vector<std::uint32_t>& r, const std::vector<std::uint32_t>& s,
                              unsigned requested_threads) {
  const unsigned threads = threads_for(r.size() + s.size(), requested_threads);
  const int bits = partition_bits(r.size(), r.size(), threads);
  const std::size_t partitions = std::size_t{1} << bits;

  if (partitions == 1) {
    // R fits one cache-resident table: build it once and let every thread probe it (read-only
    // sharing), instead of copying S through a partitioning pass for nothing.
    CountTable<Count> table;
    table.build(r.data(), r.size());
    std::vector<std::uint64_t> matches(threads);
    run_threads(threads, [&](unsigned t) {
      const std::size_t begin = chunk_begin(t, threads, s.size()), end = chunk_begin(t + 1, threads, s.size());
      matches[t] = table.probe(s.data() + begin, end - begin);
    });
    std::uint64_t total = 0;
    for (auto m : matches) total += m;
    return total;
  }

  // Phase 1: partition both sides by the same hash bits, so matching keys meet in one partition.
  auto partition_keys = [&](const std::vector<std::uint32_t>& in, std::unique_ptr<std::uint32_t[]>& out) {
    out = uninitialized<std::uint32_t>(in.size());
    std::uint32_t* dst = out.get();
    const std::uint32_t* src = in.data();
    return scatter_by_bucket(
               in.size(), threads_for(in.size(), threads), partitions,
               [&](std::size_t i) { return partition_of(src[i], bits); },
               [&](std::size_t i, std::size_t d) { dst[d] = src[i]; })
        .offsets;
  };
  std::unique_ptr<std::uint32_t[]> r_part, s_part;
  const auto r_offsets = partition_keys(r, r_part);
  const auto s_offsets = partition_keys(s, s_part);

  // Phase 2: per partition, build on R's rows and probe with S's.
  std::atomic<std::size_t> next_partition{0};
  std::vector<std::uint64_t> matches(threads);
  run_threads(threads, [&](unsigned t) {
    CountTable<Count> table;
    for (std::size_t p; (p = next_partition.fetch_add(1, std::memory_order_relaxed)) < partitions;) {
      const std::size_t s_rows = s_offsets[p + 1] - s_offsets[p];
      if (s_rows == 0 || r_offsets[p + 1] == r_offsets[p]) continue;
      table.build(r_part.get() + r_offsets[p], r_offsets[p + 1] - r_offsets[p]);
      matches[t] += table.probe(s_part.get() + s_offsets[p], s_rows);
    }
  });
  std::uint64_t total = 0;
  for (auto m : matches) total += m;
  return total;
}

void check_indexable(const std::vector<std::uint32_t>& table, const char* name) {
  if (table.size() > std::numeric_limits<std::uint32_t>::max())
    throw std::invalid_argument(std::string("parallel_join: table ") + name + " has " +
                                std::to_string(table.size()) +
                                " rows; row indices are 32-bit, so at most 2^32 - 1 rows are supported");
}

/// A partition's build side for the join pairs: S's rows grouped by key. A slot holds the key,
/// its number of rows, and where its rows (ascending S indices) start in the grouped array.
class RowsTable {
 public:
  struct Slot {
    std::uint32_t key;
    std::uint32_t count;
    std::uint32_t begin;
  };

  /// keys/rows: the partition's S keys and S row indices (ascending); grouped: where the rows,
  /// grouped by key, are written; base: grouped's position in the global grouped array.
  void build(const std::uint32_t* keys, const std::uint32_t* rows, std::size_t n, std::uint32_t* grouped,
             std::uint32_t base) {
    const std::size_t capacity = next_pow2(std::max<std::size_t>(2 * n, 16));
    slots_.assign(capacity, Slot{kEmptyKey, 0, 0});
    mask_ = capacity - 1;
    reserved_ = Slot{kEmptyKey, 0, 0};
    for (std::size_t r = 0; r < n; ++r) ++find_or_insert(keys[r]).count;
    // Each key's run in `grouped`, in slot order; `begin` serves as the fill cursor meanwhile.
    std::uint32_t offset = base;
    for (Slot& slot : slots_)
      if (slot.count) {
        slot.begin = offset;
        offset += slot.count;
      }
    reserved_.begin = offset;
    for (std::size_t r = 0; r < n; ++r) grouped[find_or_insert(keys[r]).begin++ - base] = rows[r];
    for (Slot& slot : slots_) slot.begin -= slot.count;
    reserved_.begin -= reserved_.count;
  }

  /// The slot of `key`, or nullptr.
  const Slot* find(std::uint32_t key) const {
    if (key == kEmptyKey) return reserved_.count ? &reserved_ : nullptr;
    for (std::size_t i = hash::fmix32(key) & mask_; slots_[i].count != 0; i = (i + 1) & mask_)
      if (slots_[i].key == key) return &slots_[i];
    return nullptr;
  }

 private:
  // Occupied slots are those with a count (so the key 0xffffffff needs no special slot state).
  Slot& find_or_insert(std::uint32_t key) {
    if (key == kEmptyKey) return reserved_;
    std::size_t i = hash::fmix32(key) & mask_;
    while (slots_[i].count != 0 && slots_[i].key != key) i = (i + 1) & mask_;
    slots_[i].key = key;
    return slots_[i];
  }

  std::vector<Slot> slots_;
  std::size_t mask_ = 0;
  Slot reserved_{kEmptyKey, 0, 0};
};

}  // namespace

unsigned default_threads() { return std::max(1u, std::thread::hardware_concurrency()); }

template <class V>
GroupByResult parallel_groupby(const std::vector<std::uint32_t>& keys, const std::vector<V>& values,
                               Aggregation op, unsigned threads) {
  if (keys.size() != values.size())
    throw std::invalid_argument("parallel_groupby: " + std::to_string(keys.size()) + " keys but " +
                                std::to_string(values.size()) + " values");
  switch (op) {
    case Aggregation::kSum: return groupby_with<V, SumOp<V>>(keys, values, op, threads);
    case Aggregation::kMin: return groupby_with<V, MinOp<V>>(keys, values, op, threads);
    case Aggregation::kMax: return groupby_with<V, MaxOp<V>>(keys, values, op, threads);
    case Aggregation::kCount: return groupby_with<V, CountOp<V>>(keys, values, op, threads);
    case Aggregation::kMean: return groupby_with<V, MeanOp<V>>(keys, values, op, threads);
  }
  throw std::invalid_argument("parallel_groupby: unknown aggregation");
}

std::uint64_t parallel_join_count(const std::vector<std::uint32_t>& r, const std::vector<std::uint32_t>& s,
                                  unsigned threads) {
  if (r.size() <= std::numeric_limits<std::uint32_t>::max()) return join_count_with<std::uint32_t>(r, s, threads);
  return join_count_with<std::uint64_t>(r, s, threads);
}

std::vector<JoinPair> parallel_join(const std::vector<std::uint32_t>& r, const std::vector<std::uint32_t>& s,
                                    unsigned requested_threads) {
  check_indexable(r, "R");
  check_indexable(s, "S");
  const unsigned threads = threads_for(r.size() + s.size(), requested_threads);
  const int bits = partition_bits(s.size(), s.size(), threads);
  const std::size_t partitions = std::size_t{1} << bits;

  // Phase 1: partition (key, row index) of both sides; stability keeps indices ascending.
  auto partition_rows = [&](const std::vector<std::uint32_t>& in, std::unique_ptr<std::uint32_t[]>& keys,
                            std::unique_ptr<std::uint32_t[]>& rows) {
    keys = uninitialized<std::uint32_t>(in.size());
    rows = uninitialized<std::uint32_t>(in.size());
    std::uint32_t* dk = keys.get();
    std::uint32_t* dr = rows.get();
    const std::uint32_t* src = in.data();
    return scatter_by_bucket(
               in.size(), threads_for(in.size(), threads), partitions,
               [&](std::size_t i) { return partition_of(src[i], bits); },
               [&](std::size_t i, std::size_t d) {
                 dk[d] = src[i];
                 dr[d] = static_cast<std::uint32_t>(i);
               })
        .offsets;
  };
  std::unique_ptr<std::uint32_t[]> r_keys, r_rows, s_keys, s_rows;
  const auto r_offsets = partition_rows(r, r_keys, r_rows);
  const auto s_offsets = partition_rows(s, s_keys, s_rows);

  // Phase 2: per partition, group S's rows by key, then look up each R row. Per R row we keep
  // its number of matches and, for one match, the S index itself (the usual pk-fk case needs
  // no second look), for several, where their run starts in `grouped`.
  auto grouped = uninitialized<std::uint32_t>(s.size());
  auto match_count = uninitialized<std::uint32_t>(r.size());
  auto match_at = uninitialized<std::uint32_t>(r.size());
  std::atomic<std::size_t> next_partition{0};
  run_threads(threads, [&](unsigned) {
    RowsTable table;
    for (std::size_t p; (p = next_partition.fetch_add(1, std::memory_order_relaxed)) < partitions;) {
      const std::size_t s_begin = s_offsets[p], s_end = s_offsets[p + 1];
      table.build(s_keys.get() + s_begin, s_rows.get() + s_begin, s_end - s_begin, grouped.get() + s_begin,
                  static_cast<std::uint32_t>(s_begin));
      for (std::size_t i = r_offsets[p]; i < r_offsets[p + 1]; ++i) {
        const RowsTable::Slot* slot = table.find(r_keys[i]);
        const std::uint32_t row = r_rows[i];
        match_count[row] = slot ? slot->count : 0;
        match_at[row] = !slot ? 0 : slot->count == 1 ? grouped[slot->begin] : slot->begin;
      }
    }
  });

  // Phase 3: each thread writes the pairs of its chunk of R rows, in R order, at an offset
  // given by the match counts of the chunks before it: the output is sorted as it is written.
  const unsigned out_threads = threads_for(r.size(), threads);
  std::vector<std::uint64_t> chunk_offset(out_threads + 1, 0);
  run_threads(out_threads, [&](unsigned t) {
    std::uint64_t pairs = 0;
    for (std::size_t i = chunk_begin(t, out_threads, r.size()), end = chunk_begin(t + 1, out_threads, r.size());
         i < end; ++i)
      pairs += match_count[i];
    chunk_offset[t + 1] = pairs;
  });
  for (unsigned t = 0; t < out_threads; ++t) chunk_offset[t + 1] += chunk_offset[t];
  std::vector<JoinPair> pairs(chunk_offset[out_threads]);
  run_threads(out_threads, [&](unsigned t) {
    JoinPair* out = pairs.data() + chunk_offset[t];
    for (std::size_t i = chunk_begin(t, out_threads, r.size()), end = chunk_begin(t + 1, out_threads, r.size());
         i < end; ++i) {
      const auto row = static_cast<std::uint32_t>(i);
      if (match_count[i] == 1) {
        *out++ = JoinPair{row, match_at[i]};
      } else {
        for (std::uint32_t k = 0; k < match_count[i]; ++k) *out++ = JoinPair{row, grouped[match_at[i] + k]};
      }
    }
  });
  return pairs;
}

template GroupByResult parallel_groupby<std::int32_t>(const std::vector<std::uint32_t>&,
                                                      const std::vector<std::int32_t>&, Aggregation, unsigned);
template GroupByResult parallel_groupby<std::uint32_t>(const std::vector<std::uint32_t>&,
                                                       const std::vector<std::uint32_t>&, Aggregation, unsigned);
template GroupByResult parallel_groupby<std::int64_t>(const std::vector<std::uint32_t>&,
                                                      const std::vector<std::int64_t>&, Aggregation, unsigned);
template GroupByResult parallel_groupby<float>(const std::vector<std::uint32_t>&, const std::vector<float>&,
                                               Aggregation, unsigned);
template GroupByResult parallel_groupby<double>(const std::vector<std::uint32_t>&, const std::vector<double>&,
                                                Aggregation, unsigned);

}  // namespace hashlab::cpu

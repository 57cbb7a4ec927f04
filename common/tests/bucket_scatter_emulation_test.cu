// bucket_scatter.cuh's two kernels, emulated on the CPU line by line (a block's 256 threads in
// turn between its barriers, a warp's ballots from its 32 lanes' values), give the stable
// partition: every row once at cpu::scatter_by_bucket's place. The emulation uses the header's own
// constants and index arithmetic (scatter_row, same_bit, the warp-count word, scatter_tile), and
// checks the kernels' shared memory as a race checker would: no word written by one thread and
// read or written by another between the same two barriers. Runs without a GPU, so that CPU CI
// checks the kernels' steps; the GPU tests (bucket_scatter_gpu_test.cu) check the kernels
// themselves.
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "hashlab/common/bucket_scatter.cuh"
#include "hashlab/common/scatter.hpp"
#include "bucket_layouts.hpp"

namespace hashlab {
namespace {

using detail::kCountRowsPerThread;
using detail::kScatterBlock;
using detail::kScatterRowsPerThread;
using detail::kScatterStepRows;
using detail::kScatterWarps;

constexpr unsigned kLanes = 32;
constexpr unsigned kNone = ~0u;
constexpr unsigned kManyThreads = kNone - 1, kAtomic = kNone - 2;  // SharedArray's readers and writers

/// A block's shared memory, with the accesses of each thread between two barriers recorded: a
/// word one thread wrote and another read or wrote in the same interval is a race (the kernels
/// rely on their barriers for every word they share).
template <class T>
class SharedArray {
 public:
  explicit SharedArray(std::size_t n) : value_(n), writer_(n, kNone), reader_(n, kNone), epoch_w_(n, 0), epoch_r_(n, 0) {}
  void barrier() { ++epoch_; }
  T read(std::size_t at, unsigned thread) {
    check(at);
    if (epoch_w_[at] == epoch_ && writer_[at] != thread) race("read", at, thread, writer_[at]);
    if (epoch_r_[at] != epoch_) epoch_r_[at] = epoch_, reader_[at] = thread;
    else if (reader_[at] != thread) reader_[at] = kManyThreads;
    return value_[at];
  }
  void write(std::size_t at, T v, unsigned thread) {
    check(at);
    if (epoch_w_[at] == epoch_ && writer_[at] != thread) race("write", at, thread, writer_[at]);
    if (epoch_r_[at] == epoch_ && reader_[at] != thread) race("write after a read", at, thread, reader_[at]);
    epoch_w_[at] = epoch_, writer_[at] = thread, value_[at] = v;
  }
  /// atomicAdd: with other atomics in the interval, but no plain read or write.
  void atomic_add(std::size_t at, T v) {
    check(at);
    if (epoch_w_[at] == epoch_ && writer_[at] != kAtomic) race("atomic add", at, kAtomic, writer_[at]);
    if (epoch_r_[at] == epoch_) race("atomic add after a read", at, kAtomic, reader_[at]);
    epoch_w_[at] = epoch_, writer_[at] = kAtomic, value_[at] += v;
  }

 private:
  void check(std::size_t at) const {
    if (at >= value_.size()) throw std::out_of_range("shared word " + std::to_string(at) + " of " + std::to_string(value_.size()));
  }
  [[noreturn]] void race(const char* what, std::size_t at, unsigned thread, unsigned other) const {
    throw std::logic_error(std::string("race: ") + what + " of shared word " + std::to_string(at) + " by thread " +
                           std::to_string(thread) + " in the interval where thread " +
                           (other == kManyThreads ? std::string("several others") : std::to_string(other)) + " used it");
  }
  std::vector<T> value_;
  std::vector<unsigned> writer_, reader_;
  std::vector<std::uint64_t> epoch_w_, epoch_r_;
  std::uint64_t epoch_ = 1;
};

/// __ballot_sync over one warp: bit l is lane l's predicate.
template <class Predicate>
unsigned ballot(Predicate lane_predicate) {
  unsigned set = 0;
  for (unsigned l = 0; l < kLanes; ++l)
    if (lane_predicate(l)) set |= 1u << l;
  return set;
}

unsigned popc(unsigned x) { return static_cast<unsigned>(__builtin_popcount(x)); }
unsigned ffs(unsigned x) { return static_cast<unsigned>(__builtin_ffs(static_cast<int>(x))); }

/// count_tile_buckets for every tile: counts[b * tiles + t].
std::vector<std::uint64_t> emulate_count(const std::vector<std::uint32_t>& bucket_of, std::size_t tile, unsigned buckets) {
  const std::size_t n = bucket_of.size(), tiles = div_up(n, tile);
  const int bits = detail::bucket_bits(buckets);
  std::vector<std::uint64_t> counts(std::size_t{buckets} * tiles, 0);
  for (std::size_t t = 0; t < tiles; ++t) {
    SharedArray<unsigned> tile_counts(buckets);
    for (unsigned x = 0; x < kScatterBlock; ++x)
      for (unsigned b = x; b < buckets; b += kScatterBlock) tile_counts.write(b, 0, x);
    tile_counts.barrier();
    const std::size_t begin = t * tile, end = std::min(n, begin + tile);
    for (std::size_t chunk = begin; chunk < end; chunk += std::size_t{kCountRowsPerThread} * kScatterBlock) {
      std::vector<std::array<unsigned, kCountRowsPerThread>> b(kScatterBlock);
      for (unsigned x = 0; x < kScatterBlock; ++x)
        for (int k = 0; k < kCountRowsPerThread; ++k) {
          const std::size_t i = chunk + std::size_t{kScatterBlock} * static_cast<unsigned>(k) + x;
          const unsigned read = bucket_of.at(i < end ? i : end - 1);
          b[x][k] = i < end ? read : buckets;
        }
      for (unsigned w = 0; w < kScatterWarps; ++w)
        for (int k = 0; k < kCountRowsPerThread; ++k) {
          std::array<unsigned, kLanes> peers;  // lanes_of_my_bucket, every lane at once
          peers.fill(0xffffffffu);
          for (int bit = 0; bit < bits; ++bit) {
            const unsigned set = ballot([&](unsigned l) { return ((b[w * kLanes + l][k] >> bit) & 1u) != 0; });
            for (unsigned l = 0; l < kLanes; ++l) peers[l] = detail::same_bit(peers[l], b[w * kLanes + l][k], bit, set);
          }
          for (unsigned lane = 0; lane < kLanes; ++lane) {
            const unsigned x = w * kLanes + lane;
            const std::size_t i = chunk + std::size_t{kScatterBlock} * static_cast<unsigned>(k) + x;
            if (i < end && lane == ffs(peers[lane]) - 1) tile_counts.atomic_add(b[x][k], popc(peers[lane]));
          }
        }
    }
    tile_counts.barrier();
    for (unsigned x = 0; x < kScatterBlock; ++x)
      for (unsigned b = x; b < buckets; b += kScatterBlock) counts[b * tiles + t] = tile_counts.read(b, x);
  }
  return counts;
}

/// Faults the emulation can plant in the kernel, to show that the checks see them.
enum class Fault { kNone, kRankIgnoresEarlierSubSteps, kNoBarrierBeforeTheCursorsMove, kCountsOfEarlierStepsCount };

/// scatter_tile_buckets for every tile, its move the row's number: out[to] = i. Throws on a race,
/// a shared word out of range, or a place written twice or outside [0, n).
void emulate_scatter(const std::vector<std::uint32_t>& bucket_of, std::size_t tile, unsigned buckets,
                     const std::vector<std::uint64_t>& tile_offsets, std::vector<std::uint64_t>& out,
                     Fault fault = Fault::kNone) {
  constexpr int kRows = kScatterRowsPerThread;
  const std::size_t n = bucket_of.size(), tiles = div_up(n, tile);
  const int bits = detail::bucket_bits(buckets);
  struct Thread {  // a thread's registers across a step
    std::array<std::uint64_t, kRows> row;
    std::array<unsigned, kRows> b, within, total, before;
    std::array<bool, kRows> last;
  };
  std::vector<Thread> thread(kScatterBlock);
  const auto store = [&](std::uint64_t to, std::uint64_t row) {
    if (to >= n) throw std::out_of_range("row " + std::to_string(row) + " stored at " + std::to_string(to));
    if (out[to] != kNone) throw std::logic_error("place " + std::to_string(to) + " stored twice");
    out[to] = row;
  };
  for (std::size_t t = 0; t < tiles; ++t) {
    SharedArray<std::uint64_t> cursor(buckets);
    SharedArray<unsigned> warp_counts(std::size_t{kScatterWarps} * buckets);
    const std::size_t begin = t * tile, end = std::min(n, begin + tile);
    for (unsigned x = 0; x < kScatterBlock; ++x) {
      for (unsigned b = x; b < buckets; b += kScatterBlock) cursor.write(b, tile_offsets[b * tiles + t], x);
      for (unsigned k = x; k < kScatterWarps * buckets; k += kScatterBlock) warp_counts.write(k, 0, x);
    }
    cursor.barrier(), warp_counts.barrier();
    unsigned step = 0;
    for (std::size_t chunk = begin; chunk < end; chunk += kScatterStepRows) {
      ++step;
      for (unsigned x = 0; x < kScatterBlock; ++x) {  // (a)
        const unsigned warp = x / kLanes, lane = x % kLanes;
        for (int k = 0; k < kRows; ++k) {
          const std::size_t i = detail::scatter_row(chunk, warp, k, lane);
          thread[x].row[k] = i < end ? i : end - 1;  // move.load of the row, or of the tile's last
          const unsigned read = bucket_of.at(i < end ? i : end - 1);
          thread[x].b[k] = i < end ? read : buckets;
        }
      }
      for (unsigned warp = 0; warp < kScatterWarps; ++warp) {  // (b), a warp's lanes together
        Thread* lanes = &thread[warp * kLanes];
        for (unsigned lane = 0; lane < kLanes; ++lane) lanes[lane].within.fill(0), lanes[lane].total.fill(0);
        for (int s = 0; s < kRows; ++s) {
          std::array<std::array<unsigned, kRows>, kLanes> peers;
          for (auto& p : peers) p.fill(0xffffffffu);
          for (int bit = 0; bit < bits; ++bit) {
            const unsigned set = ballot([&](unsigned l) { return ((lanes[l].b[s] >> bit) & 1u) != 0; });
            for (unsigned lane = 0; lane < kLanes; ++lane)
              for (int k = 0; k < kRows; ++k) peers[lane][k] = detail::same_bit(peers[lane][k], lanes[lane].b[k], bit, set);
          }
          for (unsigned lane = 0; lane < kLanes; ++lane) {
            const unsigned lanes_before = (1u << lane) - 1u;
            for (int k = 0; k < kRows; ++k) {
              lanes[lane].total[k] += popc(peers[lane][k]);
              if (s < k && fault != Fault::kRankIgnoresEarlierSubSteps) lanes[lane].within[k] += popc(peers[lane][k]);
              if (s == k) lanes[lane].within[k] += popc(peers[lane][k] & lanes_before);
            }
          }
        }
      }
      for (unsigned x = 0; x < kScatterBlock; ++x) {  // (c)
        const Thread& r = thread[x];
        for (int k = 0; k < kRows; ++k)
          if (r.b[k] < buckets && r.within[k] == 0)
            warp_counts.write((x / kLanes) * buckets + r.b[k], detail::warp_count_word(step, r.total[k]), x);
      }
      cursor.barrier(), warp_counts.barrier();
      for (unsigned x = 0; x < kScatterBlock; ++x) {  // (d)
        Thread& r = thread[x];
        const unsigned warp = x / kLanes;
        for (int k = 0; k < kRows; ++k) {
          r.before[k] = 0, r.last[k] = true;
          if (r.b[k] < buckets) {
            for (unsigned w = 0; w < kScatterWarps; ++w) {
              const unsigned c = warp_counts.read(w * buckets + r.b[k], x);
              if (detail::warp_count_step(c) != step && fault != Fault::kCountsOfEarlierStepsCount) continue;
              if (w < warp) r.before[k] += detail::warp_count_rows(c);
              if (w > warp) r.last[k] = false;
            }
            store(cursor.read(r.b[k], x) + r.before[k] + r.within[k], r.row[k]);
          }
        }
      }
      if (fault != Fault::kNoBarrierBeforeTheCursorsMove) cursor.barrier(), warp_counts.barrier();
      for (unsigned x = 0; x < kScatterBlock; ++x) {  // (e)
        const Thread& r = thread[x];
        for (int k = 0; k < kRows; ++k)
          if (r.b[k] < buckets && r.within[k] == 0 && r.last[k])
            cursor.write(r.b[k], cursor.read(r.b[k], x) + r.before[k] + r.total[k], x);
      }
    }
  }
}

using testing::buckets_of;
using testing::Layout;

/// Runs of 97 rows (kRunsOfBuckets): several runs within a step of the scatter.
constexpr std::size_t kRun = 97;

/// The whole scatter emulated (count, scan, bucket starts, scatter) against cpu::scatter_by_bucket.
void expect_the_stable_partition(std::size_t n, unsigned buckets, Layout layout, std::size_t tile) {
  SCOPED_TRACE("n " + std::to_string(n) + ", buckets " + std::to_string(buckets) + ", layout " +
               std::to_string(static_cast<int>(layout)) + ", tile " + std::to_string(tile));
  const std::vector<std::uint32_t> bucket = buckets_of(n, buckets, layout, n * 1000003u + buckets, kRun);
  std::vector<std::uint64_t> expected(n);
  const cpu::Scatter cpu = cpu::scatter_by_bucket(
      n, 1, buckets, [&](std::size_t i) { return bucket[i]; }, [&](std::size_t i, std::size_t to) { expected[to] = i; });

  const std::vector<std::uint64_t> counts = emulate_count(bucket, tile, buckets);
  std::vector<std::uint64_t> tile_offsets(counts.size());
  std::uint64_t sum = 0;
  for (std::size_t k = 0; k < counts.size(); ++k) tile_offsets[k] = sum, sum += counts[k];  // the exclusive scan
  const std::size_t tiles = div_up(n, tile);
  std::vector<std::uint64_t> offsets(std::size_t{buckets} + 1);
  for (unsigned b = 0; b <= buckets; ++b) offsets[b] = b < buckets && tiles > 0 ? tile_offsets[b * tiles] : n;  // bucket_starts
  ASSERT_EQ(sum, n);
  ASSERT_EQ(offsets, std::vector<std::uint64_t>(cpu.offsets.begin(), cpu.offsets.end()));

  std::vector<std::uint64_t> out(n, kNone);
  emulate_scatter(bucket, tile, buckets, tile_offsets, out);
  ASSERT_EQ(out, expected);
}

constexpr Layout kLayouts[] = {Layout::kRandom, Layout::kOneBucket, Layout::kLastBucketOnly, Layout::kSkewed,
                               Layout::kRunsOfBuckets};

TEST(BucketScatterEmulation, EveryRowAtItsStablePlaceForEveryShape) {
  // Rows around a warp's step (128), a block's (1024), the tile (4096) and past two tiles; buckets
  // of 1 to 9 bits; the plan's tile, a tile of one step and a doubled tile.
  const std::size_t rows[] = {0, 1, 31, 32, 127, 129, 255, 1023, 1024, 1025, 3000, 4095, 4096, 4097, 8191, 8193, 10000};
  const unsigned bucket_counts[] = {1, 2, 3, 4, 5, 8, 33, 64, 128, 255, 257, 300};
  int shapes = 0;
  for (const std::size_t n : rows)
    for (const unsigned buckets : bucket_counts)
      for (const Layout layout : kLayouts)
        for (const std::size_t tile : {detail::scatter_tile(n, buckets), kScatterStepRows, 2 * detail::kMinScatterTile}) {
          expect_the_stable_partition(n, buckets, layout, tile);
          if (HasFatalFailure()) return;
          ++shapes;
        }
  EXPECT_EQ(shapes, 17 * 12 * 5 * 3);
}

TEST(BucketScatterEmulation, ThePlansTileIsWholeStepsOfBothKernels) {
  for (const std::size_t n : {std::size_t{1}, std::size_t{1} << 20, std::size_t{1} << 31, std::size_t{3} << 33})
    for (const unsigned buckets : {1u, 2u, 300u, kMaxScatterBuckets}) {
      const std::size_t tile = detail::scatter_tile(n, buckets);
      EXPECT_EQ(tile % kScatterStepRows, 0u) << n << " rows, " << buckets << " buckets";
      EXPECT_EQ(tile % (std::size_t{kCountRowsPerThread} * kScatterBlock), 0u) << n << " rows, " << buckets << " buckets";
      EXPECT_LE(div_up(n, tile) * buckets, std::max<std::size_t>(detail::kMaxScatterCounts, buckets));
    }
}

// The emulation sees what it is for: a rank that forgot a warp's earlier sub-steps, a missing
// barrier, stale warp counts, and a plain write beside another thread's access between the same
// barriers.
std::vector<std::uint64_t> planned_offsets(const std::vector<std::uint32_t>& bucket, std::size_t tile, unsigned buckets) {
  std::vector<std::uint64_t> tile_offsets = emulate_count(bucket, tile, buckets);
  std::uint64_t sum = 0;
  for (std::uint64_t& c : tile_offsets) {
    const std::uint64_t count = c;
    c = sum, sum += count;
  }
  return tile_offsets;
}

/// What the scatter with the fault does to 3000 rows in 300 buckets (more than a warp's 128 rows
/// of a step, so that a warp has rows of a bucket in one step and none in the next): the
/// exception it throws, "wrong places", or "right".
std::string what_the_faulty_scatter_does(Fault fault) {
  const unsigned buckets = 300;
  const std::vector<std::uint32_t> bucket = buckets_of(3000, buckets, Layout::kRandom, 1, kRun);
  std::vector<std::uint64_t> out(bucket.size(), kNone), expected(bucket.size());
  cpu::scatter_by_bucket(
      bucket.size(), 1, buckets, [&](std::size_t i) { return bucket[i]; }, [&](std::size_t i, std::size_t to) { expected[to] = i; });
  try {
    emulate_scatter(bucket, 4096, buckets, planned_offsets(bucket, 4096, buckets), out, fault);
  } catch (const std::logic_error& e) {
    return e.what();
  }
  return out == expected ? "right" : "wrong places";
}

TEST(BucketScatterEmulation, SeesARankThatForgetsTheEarlierSubSteps) {
  // Two rows of a bucket in a warp then both count as its first: both write its count (a race).
  const std::string what = what_the_faulty_scatter_does(Fault::kRankIgnoresEarlierSubSteps);
  EXPECT_NE(what.find("race: write of shared word"), std::string::npos) << what;
}

TEST(BucketScatterEmulation, SeesAMissingBarrier) {
  const std::string what = what_the_faulty_scatter_does(Fault::kNoBarrierBeforeTheCursorsMove);
  EXPECT_NE(what.find("race: write after a read"), std::string::npos) << what;
  EXPECT_EQ(what_the_faulty_scatter_does(Fault::kNone), "right");
}

TEST(BucketScatterEmulation, SeesCountsOfEarlierStepsTakenForThisStepsOnes) {
  // Warp counts are not cleared between steps: the step each was written in tells them apart.
  const std::string what = what_the_faulty_scatter_does(Fault::kCountsOfEarlierStepsCount);
  EXPECT_NE(what, "right") << what;
}

TEST(BucketScatterEmulation, SeesARaceBetweenTwoThreadsOfOneInterval) {
  SharedArray<unsigned> shared(4);
  shared.write(0, 1, 0);
  EXPECT_THROW(shared.read(0, 1), std::logic_error);
  shared.barrier();
  EXPECT_EQ(shared.read(0, 1), 1u);
  EXPECT_THROW(shared.write(0, 2, 2), std::logic_error);
  EXPECT_THROW(shared.atomic_add(0, 1), std::logic_error);
  shared.barrier();
  shared.atomic_add(1, 1), shared.atomic_add(1, 1);
  EXPECT_THROW(shared.read(1, 0), std::logic_error);
  EXPECT_THROW(shared.read(4, 0), std::out_of_range);
}

}  // namespace
}  // namespace hashlab

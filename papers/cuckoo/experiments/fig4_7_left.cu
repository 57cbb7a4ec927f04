// Fig. 4.7 left (section 4.5.3): how fast are random updates?
#include <cstdint>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

#include "hashlab/common/grid_stride.cuh"
#include "hashlab/common/launch.cuh"
#include "hashlab/common/memory.hpp"
#include "hashlab/common/threads.hpp"

#include "experiments.hpp"
#include "inputs.cuh"

namespace hashlab::cuckoo::experiments {
namespace {

// "For an N-element array, we run N threads. Thread k reads an entry at location k * stride mod N
// of the array and overwrites it with a new value." N is a power of two and the stride odd, so the
// updates are a permutation: every entry is updated exactly once, and neighbouring threads are
// about 2.6e9 entries (mod N) apart: no spatial locality.
constexpr std::uint64_t kUpdateStride = 2654435761u;
constexpr std::uint64_t kUpdateArrayBytes = std::uint64_t{512} << 20;  // the chapter's 512 MB

// The inverse of an odd number mod 2^64, by Newton's iteration x <- x (2 - odd x), which doubles
// the number of correct low bits: x = odd is right to 3 bits (odd^2 = 1 mod 8), five steps to 96.
constexpr std::uint64_t inverse_mod_2_64(std::uint64_t odd) {
  std::uint64_t x = odd;
  for (int step = 0; step < 5; ++step) x *= 2 - odd * x;
  return x;
}
// The check walks the array in its order: entry loc was updated by thread k = loc * inverse mod N
// (N divides 2^64, so loc = k * stride mod N gives that).
constexpr std::uint64_t kUpdateStrideInverse = inverse_mod_2_64(kUpdateStride);
static_assert(kUpdateStride * kUpdateStrideInverse == 1, "the stride's inverse mod 2^64");

enum class UpdateKind { kAtomicExch, kAtomicCas, kNonAtomic };

template <class T>
__global__ void init_identity(T* a, std::uint64_t n) {
  for (const std::uint64_t i : grid_stride(n)) a[i] = static_cast<T>(i);
}

// One thread per update. The new value k + 1 first goes through `steps` dependent multiply-adds
// by `mul` = 1 and `add` = 0, passed at run time: arithmetic the compiler cannot remove (about one
// instruction each), that leaves the value, and so the check, unchanged. atomicExch writes the
// value; atomicCAS and the non-atomic read-modify-write add it to the entry (whose initial value
// is its index, which the CAS takes as its guess: one atomic per update, as for atomicExch).
// T: unsigned int or unsigned long long (the types CUDA's atomics take).
template <class T, UpdateKind U>
__global__ void random_update(T* a, std::uint64_t n, int steps, std::uint32_t mul, std::uint32_t add, T* sink) {
  const std::uint64_t k = global_thread_index();
  if (k >= n) return;
  const std::uint64_t loc = (k * kUpdateStride) & (n - 1);
  std::uint32_t x = static_cast<std::uint32_t>(k + 1);
#pragma unroll 16
  for (int i = 0; i < steps; ++i) x = x * mul + add;
  const T value = static_cast<T>(x);  // k + 1 (n <= 2^31)
  if constexpr (U == UpdateKind::kAtomicExch) {
    const T old = atomicExch(&a[loc], value);
    if (old == static_cast<T>(~T{0})) *sink = old;  // never (entries are < n): keeps the exchange's read
  } else if constexpr (U == UpdateKind::kAtomicCas) {
    atomicCAS(&a[loc], static_cast<T>(loc), static_cast<T>(loc + value));
  } else {
    a[loc] = a[loc] + value;
  }
}

// Variants "<kind>_<bits>": atomic_exch_64, atomic_cas_64, nonatomic_64, atomic_exch_32,
// nonatomic_32; param "arithmetic_steps". n: the number of entries (updates) of a 512 MB array.
template <class T, UpdateKind U>
void run_random_updates_of(PointContext& ctx) {
  const Point& pt = ctx.point();
  const std::uint64_t n = pt.n;
  if (n == 0 || (n & (n - 1)) != 0 || n > (std::uint64_t{1} << 31))
    throw std::invalid_argument("fig4_7_left: the number of entries must be a power of two up to 2^31, got " +
                                std::to_string(n));
  const int steps = static_cast<int>(pt.param_value);
  DeviceBuffer<T> a(n, ctx.stream());
  DeviceBuffer<T> sink(1, ctx.stream());
  const auto blocks = static_cast<unsigned>(div_up<std::uint64_t>(n, kDefaultBlock));
  const auto timing = ctx.time_gpu(
      [&](cudaStream_t s) {
        random_update<T, U><<<blocks, kDefaultBlock, 0, s>>>(a.data(), n, steps, 1u, 0u, sink.data());
        HASHLAB_CHECK_LAUNCH();
      },
      [&](cudaStream_t s) {  // untimed: every run starts from a[i] = i
        init_identity<T><<<grid_for(n), kDefaultBlock, 0, s>>>(a.data(), n);
        HASHLAB_CHECK_LAUNCH();
      });
  ctx.report_time("update", timing, static_cast<double>(n), "updates");
  ctx.report_value("entry_bytes", sizeof(T), "B");
  // The CPU reference: after one run, entry (k * stride) mod n holds k + 1 (atomicExch) or its
  // index + k + 1 (atomicCAS, non-atomic). Each thread checks a contiguous part of the array.
  const auto got = a.to_host(ctx.stream());
  const unsigned threads = cpu::threads_for_items(n);
  std::vector<std::uint64_t> wrong_in(threads, 0);
  cpu::run_threads(threads, [&](unsigned t) {
    std::uint64_t wrong = 0;
    for (std::uint64_t loc = cpu::chunk_begin(t, threads, n), end = cpu::chunk_begin(t + 1, threads, n); loc < end;
         ++loc) {
      const std::uint64_t k = (loc * kUpdateStrideInverse) & (n - 1);
      const T expected = U == UpdateKind::kAtomicExch ? static_cast<T>(k + 1) : static_cast<T>(loc + k + 1);
      wrong += got[loc] != expected;
    }
    wrong_in[t] = wrong;
  });
  const std::uint64_t wrong = std::accumulate(wrong_in.begin(), wrong_in.end(), std::uint64_t{0});
  ctx.verify(wrong == 0, std::to_string(wrong) + " of " + std::to_string(n) + " entries hold a wrong value");
}

void run_fig4_7_left(PointContext& ctx) {
  const std::string& v = ctx.point().variant;
  if (v == "atomic_exch_64") run_random_updates_of<unsigned long long, UpdateKind::kAtomicExch>(ctx);
  else if (v == "atomic_cas_64") run_random_updates_of<unsigned long long, UpdateKind::kAtomicCas>(ctx);
  else if (v == "nonatomic_64") run_random_updates_of<unsigned long long, UpdateKind::kNonAtomic>(ctx);
  else if (v == "atomic_exch_32") run_random_updates_of<unsigned int, UpdateKind::kAtomicExch>(ctx);
  else if (v == "nonatomic_32") run_random_updates_of<unsigned int, UpdateKind::kNonAtomic>(ctx);
  else throw std::invalid_argument("fig4_7_left: unknown variant " + v);
}

}  // namespace

harness::Experiment fig4_7_left_experiment() {
  return make_experiment(
      "cuckoo", "fig4_7_left", "Fig. 4.7 (left)",
      "random updates into a 512 MB array: thread k updates entry k * stride mod N; atomicExch, atomicCAS and "
      "non-atomic, 64 and 32 bit; atomicExch with 100, 1000, 3000 dependent arithmetic instructions per update",
      {"atomic_exch_64", "atomic_cas_64", "nonatomic_64", "atomic_exch_32", "nonatomic_32"},
      [](const RunOptions& o, const Variants& v) {
        // Every variant updates the same 512 MB: twice as many 32-bit entries as 64-bit ones.
        const std::uint64_t n64 = o.pick_size(kUpdateArrayBytes / 8, kUpdateArrayBytes / 8);
        std::vector<Point> points;
        for (const std::string& variant : v) {
          const bool bits32 = variant.size() > 3 && variant.compare(variant.size() - 3, 3, "_32") == 0;
          points.push_back({variant, bits32 ? 2 * n64 : n64, "arithmetic_steps", 0});
        }
        for (int steps : {100, 1000, 3000})
          points.push_back({"atomic_exch_64", n64, "arithmetic_steps", static_cast<double>(steps)});
        return points;
      },
      run_fig4_7_left);
}

}  // namespace hashlab::cuckoo::experiments

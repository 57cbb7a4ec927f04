// Section 4.4: the multivalue hash table (Algorithm 1), and the sort-based structures of
// section 4.5.2 that Figs. 4.5 and 4.6 compare against.
#include "detail.cuh"
#include "hashlab/common/grid_stride.cuh"
#include "hashlab/common/launch.cuh"
#include "hashlab/common/primitives.hpp"
#include "hashlab/common/search.hpp"
#include "hashlab/cuckoo/multivalue.hpp"

namespace hashlab::cuckoo {
namespace {

// Algorithm 1, step 5: keyInfo[id] = (offset of the key's first value, number of values); and
// the IDs 0..unique-1 that step 6 stores as the basic table's values.
__global__ void make_key_info(const std::uint32_t* offsets, const std::uint32_t* counts, std::size_t unique,
                              KeyInfo* key_info, std::uint32_t* ids) {
  for (const std::size_t i : grid_stride(unique)) {
    key_info[i] = KeyInfo{offsets[i], counts[i]};
    ids[i] = static_cast<std::uint32_t>(i);
  }
}

// Querying the multivalue hash table (section 4.4): Listing 4.2 gives the ID, keyInfo[ID] the rest.
template <HashKind H, int K>
__global__ void multivalue_retrieve(const unsigned long long* table, HashFunctions f, const KeyInfo* key_info,
                                    const std::uint32_t* queries, std::size_t n, KeyInfo* out) {
  for (const std::size_t i : grid_stride(n)) {
    const std::uint32_t id = detail::retrieve_one<H, K>(table, f, queries[i]);
    out[i] = id == kNotFound ? KeyInfo{} : key_info[id];
  }
}

// The position of `key` in sorted unique keys[0, size), or kNotFound (binary search).
__device__ __forceinline__ std::uint32_t binary_search(const std::uint32_t* keys, std::size_t size, std::uint32_t key) {
  const std::size_t at = lower_bound(keys, size, key);
  return (at < size && keys[at] == key) ? static_cast<std::uint32_t>(at) : kNotFound;
}

// Section 4.5.2, sorted multivalue structure: binary search for the ID, then keyInfo[ID].
__global__ void sorted_multivalue_find(const std::uint32_t* unique_keys, std::size_t unique, const KeyInfo* key_info,
                                       const std::uint32_t* queries, std::size_t n, KeyInfo* out) {
  for (const std::size_t i : grid_stride(n)) {
    const std::uint32_t id = binary_search(unique_keys, unique, queries[i]);
    out[i] = id == kNotFound ? KeyInfo{} : key_info[id];
  }
}

// Section 4.5.2, sorted compacting structure: the ID is the key's position among the unique keys.
__global__ void sorted_compacting_find(const std::uint32_t* unique_keys, std::size_t unique,
                                       const std::uint32_t* queries, std::size_t n, std::uint32_t* ids_out) {
  for (const std::size_t i : grid_stride(n)) ids_out[i] = binary_search(unique_keys, unique, queries[i]);
}

void copy_device(std::uint32_t* dst, const std::uint32_t* src, std::size_t n, cudaStream_t stream) {
  if (n > 0) HASHLAB_CUDA_CHECK(cudaMemcpyAsync(dst, src, n * sizeof(std::uint32_t), cudaMemcpyDeviceToDevice, stream));
}

}  // namespace

void MultivalueArrays::build(const std::uint32_t* keys, const std::uint32_t* values, std::size_t n, cudaStream_t stream) {
  if (sorted_keys.size() != n) {
    sorted_keys = DeviceBuffer<std::uint32_t>(n, stream);
    sorted_values = DeviceBuffer<std::uint32_t>(n, stream);
    unique_keys = DeviceBuffer<std::uint32_t>(n, stream);
    counts = DeviceBuffer<std::uint32_t>(n, stream);
  }
  if (d_unique.empty()) d_unique = DeviceBuffer<std::uint32_t>(1, stream);
  unique = 0;
  if (n == 0) return;
  // Step 1: radix sort the pairs; all values of a key become contiguous (sortedValues[]).
  copy_device(sorted_keys.data(), keys, n, stream);
  copy_device(sorted_values.data(), values, n, stream);
  prim::sort_pairs(sorted_keys.data(), sorted_values.data(), n, stream);
  // Steps 2-3: the unique keys and how many values each has (a run-length encoding gives both;
  // the chapter finds the first instance of each key and differences the positions).
  prim::run_length_encode(sorted_keys.data(), n, unique_keys.data(), counts.data(), d_unique.data(), stream);
  unique = read_device_value(d_unique.data(), stream);
  if (key_info.size() < unique) {
    key_info = DeviceBuffer<KeyInfo>(n, stream);
    ids = DeviceBuffer<std::uint32_t>(n, stream);
  }
  // Steps 4-5: IDs are positions among the unique keys; offsets by an exclusive prefix sum of the counts.
  DeviceBuffer<std::uint32_t> offsets(unique, stream);
  prim::exclusive_scan(counts.data(), offsets.data(), unique, stream);
  make_key_info<<<grid_for(unique), kDefaultBlock, 0, stream>>>(offsets.data(), counts.data(), unique, key_info.data(),
                                                                ids.data());
  HASHLAB_CHECK_LAUNCH();
}

void MultivalueHashTable::build(const std::uint32_t* keys, const std::uint32_t* values, std::size_t n,
                                cudaStream_t stream) {
  arrays_.build(keys, values, n, stream);
  // Step 6: a basic cuckoo table from each unique key to its ID.
  table_.build(arrays_.unique_keys.data(), arrays_.ids.data(), arrays_.unique, stream);
}

void MultivalueHashTable::find(const std::uint32_t* queries, std::size_t n, KeyInfo* out, cudaStream_t stream) const {
  if (n == 0) return;
  const auto& f = table_.hash_functions();
  const auto* slots = reinterpret_cast<const unsigned long long*>(table_.slots());
  if (slots == nullptr) throw std::logic_error("MultivalueHashTable::find before build");
  detail::dispatch(f.kind, f.count, [&](auto kind_c, auto count_c) {
    multivalue_retrieve<decltype(kind_c)::value, decltype(count_c)::value>
        <<<grid_for(n), kDefaultBlock, 0, stream>>>(slots, f, arrays_.key_info.data(), queries, n, out);
    HASHLAB_CHECK_LAUNCH();
  });
}

void SortedMultivalue::build(const std::uint32_t* keys, const std::uint32_t* values, std::size_t n, cudaStream_t stream) {
  arrays_.build(keys, values, n, stream);
}

void SortedMultivalue::find(const std::uint32_t* queries, std::size_t n, KeyInfo* out, cudaStream_t stream) const {
  if (n == 0) return;
  sorted_multivalue_find<<<grid_for(n), kDefaultBlock, 0, stream>>>(arrays_.unique_keys.data(), arrays_.unique,
                                                                    arrays_.key_info.data(), queries, n, out);
  HASHLAB_CHECK_LAUNCH();
}

void SortedCompacting::build(const std::uint32_t* keys, std::size_t n, cudaStream_t stream) {
  if (sorted_.size() != n) {
    sorted_ = DeviceBuffer<std::uint32_t>(n, stream);
    unique_keys_ = DeviceBuffer<std::uint32_t>(n, stream);
    counts_ = DeviceBuffer<std::uint32_t>(n, stream);
  }
  if (d_unique_.empty()) d_unique_ = DeviceBuffer<std::uint32_t>(1, stream);
  unique_ = 0;
  if (n == 0) return;
  copy_device(sorted_.data(), keys, n, stream);
  prim::sort_keys(sorted_.data(), n, stream);
  prim::run_length_encode(sorted_.data(), n, unique_keys_.data(), counts_.data(), d_unique_.data(), stream);
  unique_ = read_device_value(d_unique_.data(), stream);
}

void SortedCompacting::find(const std::uint32_t* queries, std::size_t n, std::uint32_t* ids_out,
                            cudaStream_t stream) const {
  if (n == 0) return;
  sorted_compacting_find<<<grid_for(n), kDefaultBlock, 0, stream>>>(unique_keys_.data(), unique_, queries, n, ids_out);
  HASHLAB_CHECK_LAUNCH();
}

}  // namespace hashlab::cuckoo

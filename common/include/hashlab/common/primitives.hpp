// Device-wide primitives (CUB), instantiated once here for the key and value types the suite
// uses, so no module compiles its own copy of a radix sort or a scan. Each call is asynchronous
// on `stream` and takes its temporary storage from the stream-ordered pool (see memory.hpp).
// In-place variants overwrite their input.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace hashlab::prim {

/// out[i] = in[0] + ... + in[i-1]; out may alias in.
void exclusive_scan(const std::uint32_t* in, std::uint32_t* out, std::size_t n, cudaStream_t stream);
void exclusive_scan(const std::uint64_t* in, std::uint64_t* out, std::size_t n, cudaStream_t stream);

/// out[i] = in[0] + ... + in[i]; out may alias in.
void inclusive_scan(const std::uint32_t* in, std::uint32_t* out, std::size_t n, cudaStream_t stream);

/// *d_sum = in[0] + ... + in[n-1] (64-bit sum of 32-bit counts).
void sum(const std::uint32_t* in, std::size_t n, std::uint64_t* d_sum, cudaStream_t stream);

/// Sorts keys in place by bits [begin_bit, end_bit) (radix sort; stable).
void sort_keys(std::uint32_t* keys, std::size_t n, cudaStream_t stream, int begin_bit = 0, int end_bit = 32);
void sort_keys(std::uint64_t* keys, std::size_t n, cudaStream_t stream, int begin_bit = 0, int end_bit = 64);

/// Sorts (key, value) pairs in place by key bits [begin_bit, end_bit) (radix sort; stable).
void sort_pairs(std::uint32_t* keys, std::uint32_t* values, std::size_t n, cudaStream_t stream,
                int begin_bit = 0, int end_bit = 32);
void sort_pairs(std::uint64_t* keys, std::uint32_t* values, std::size_t n, cudaStream_t stream,
                int begin_bit = 0, int end_bit = 64);

/// Runs of equal keys in a sorted array: unique_out[r], counts_out[r] for r < *d_runs.
void run_length_encode(const std::uint32_t* sorted_keys, std::size_t n, std::uint32_t* unique_out,
                       std::uint32_t* counts_out, std::uint32_t* d_runs, cudaStream_t stream);

/// Copies in[i] for which flags[i] != 0 to out, in order; *d_selected = how many.
void select_flagged(const std::uint32_t* in, const std::uint8_t* flags, std::size_t n, std::uint32_t* out,
                    std::uint32_t* d_selected, cudaStream_t stream);

/// out[i] = the first position p in sorted[0, n) with sorted[p] >= queries[i] (n if none).
void lower_bound(const std::uint32_t* sorted, std::size_t n, const std::uint32_t* queries, std::size_t m,
                 std::uint32_t* out, cudaStream_t stream);

}  // namespace hashlab::prim

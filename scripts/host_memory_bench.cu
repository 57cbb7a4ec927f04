// What host memory costs on a GPU machine: faulting fresh pages in (one thread, all threads),
// writing pages already there, pageable / pinned / registered device-to-host copies of 1.08 GB,
// and the checks' radix sort of 9 x 10^7 records. Its output on the H100 machine is
// results/reference/h100_80gb_hbm3/logs/host_memory_costs.log. Built against the tree:
//   nvcc -O2 -std=c++17 -Icommon/include scripts/host_memory_bench.cu build/common/libhashlab_common.a \
//        -o /tmp/host_memory_bench && /tmp/host_memory_bench
#include <cuda_runtime.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <vector>

#include "hashlab/common/radix_sort.hpp"
#include "hashlab/common/threads.hpp"

using namespace hashlab;

namespace {

double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

struct Record {
  std::uint32_t key;
  std::uint64_t bits;
};

}  // namespace

int main() {
  const std::size_t n = 90000000;  // records (1.44 GB); the copies move n x 12 bytes (1.08 GB)
  const std::size_t bytes = n * 12;
  const unsigned threads = cpu::default_threads();
  std::printf("threads %u\n", threads);

  double t = now();
  {
    std::vector<Record> records(n);
    std::printf("value-init 1.44GB vector %.3f\n", now() - t);
    t = now();
  }
  std::printf("free %.3f\n", now() - t);
  t = now();
  {
    std::unique_ptr<Record[]> p(new Record[n]);
    cpu::parallel_for(n, threads, [&](std::size_t i) { p[i] = {static_cast<std::uint32_t>(i), i}; });
    std::printf("parallel first touch 1.44GB %.3f\n", now() - t);
  }
  t = now();
  {
    std::unique_ptr<Record[]> p(new Record[n]);
    for (std::size_t i = 0; i < n; ++i) p[i] = {static_cast<std::uint32_t>(i), i};
    std::printf("serial first touch 1.44GB %.3f\n", now() - t);
  }

  std::vector<Record> records(n);
  std::mt19937 rng(1);
  auto shuffle_keys = [&] {
    for (std::size_t i = 0; i < n; ++i) records[i] = {static_cast<std::uint32_t>(rng()), i};
  };
  shuffle_keys();
  t = now();
  std::memset(records.data(), 1, n * sizeof(Record));
  std::printf("memset prefaulted 1.44GB %.3f\n", now() - t);
  for (const char* label : {"radix_sort 90M records", "radix_sort 90M records again"}) {
    shuffle_keys();
    t = now();
    cpu::radix_sort(records, [](const Record& r) { return r.key; }, threads);
    std::printf("%s %.3f\n", label, now() - t);
  }

  void* device = nullptr;
  cudaMalloc(&device, bytes);
  cudaMemset(device, 1, bytes);
  cudaDeviceSynchronize();
  t = now();
  {
    std::vector<char> host(bytes);
    std::printf("  zero-init 1.08GB %.3f\n", now() - t);
    const double copy = now();
    cudaMemcpy(host.data(), device, bytes, cudaMemcpyDeviceToHost);
    std::printf("D2H pageable into zeroed 1.08GB %.3f (copy alone %.3f)\n", now() - t, now() - copy);
  }
  t = now();
  {
    std::unique_ptr<char[]> host(new char[bytes]);
    cudaMemcpy(host.get(), device, bytes, cudaMemcpyDeviceToHost);
    std::printf("D2H pageable into fresh untouched 1.08GB %.3f\n", now() - t);
  }
  {
    std::vector<char> host(bytes);
    cudaMemcpy(host.data(), device, bytes, cudaMemcpyDeviceToHost);
    t = now();
    cudaMemcpy(host.data(), device, bytes, cudaMemcpyDeviceToHost);
    std::printf("D2H pageable into prefaulted 1.08GB %.3f\n", now() - t);
  }
  char* pinned = nullptr;
  t = now();
  cudaMallocHost(&pinned, bytes);
  std::printf("cudaMallocHost 1.08GB %.3f\n", now() - t);
  t = now();
  cudaMemcpy(pinned, device, bytes, cudaMemcpyDeviceToHost);
  std::printf("D2H pinned 1.08GB %.3f\n", now() - t);
  t = now();
  {
    std::vector<char> host(bytes);
    cpu::parallel_for(bytes / 4096, threads, [&](std::size_t i) { host[i * 4096] = 0; });
    std::printf("parallel fault 1.08GB %.3f\n", now() - t);
    const double copy = now();
    cpu::parallel_for(bytes >> 20, threads, [&](std::size_t i) {
      std::memcpy(host.data() + (i << 20), pinned + (i << 20), std::size_t{1} << 20);
    });
    std::printf("parallel memcpy pinned->pageable %.3f\n", now() - copy);
  }
  std::vector<char> big(bytes);
  t = now();
  cudaHostRegister(big.data(), bytes, cudaHostRegisterDefault);
  std::printf("cudaHostRegister 1.08GB %.3f\n", now() - t);
  t = now();
  cudaMemcpy(big.data(), device, bytes, cudaMemcpyDeviceToHost);
  std::printf("D2H registered %.3f\n", now() - t);
  t = now();
  cudaHostUnregister(big.data());
  std::printf("unregister %.3f\n", now() - t);
  cudaFreeHost(pinned);
  cudaFree(device);
  return std::system("cat /sys/kernel/mm/transparent_hugepage/enabled; nproc; free -g | head -2") == 0 ? 0 : 1;
}

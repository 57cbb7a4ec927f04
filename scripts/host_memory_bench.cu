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
static double now(){return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();}
struct Record{uint32_t key; uint64_t bits;};
int main(){
  const size_t n=90000000; unsigned th=cpu::default_threads();
  printf("threads %u\n", th);
  double t=now(); { std::vector<Record> rec(n); printf("value-init 1.44GB vector %.3f\n", now()-t); t=now(); } printf("free %.3f\n", now()-t);
  t=now(); { std::unique_ptr<Record[]> p(new Record[n]); cpu::parallel_for(n,th,[&](size_t i){p[i].key=i;p[i].bits=i;}); printf("parallel first touch 1.44GB %.3f\n", now()-t);} 
  t=now(); { std::unique_ptr<Record[]> p(new Record[n]); for(size_t i=0;i<n;i++){p[i].key=i;p[i].bits=i;} printf("serial first touch 1.44GB %.3f\n", now()-t);} 
  std::vector<Record> rec(n); std::mt19937 rng(1); for(size_t i=0;i<n;i++){rec[i].key=rng(); rec[i].bits=i;}
  t=now(); std::memset(rec.data(),1,n*sizeof(Record)); printf("memset prefaulted 1.44GB %.3f\n", now()-t);
  for(size_t i=0;i<n;i++){rec[i].key=rng(); rec[i].bits=i;}
  t=now(); cpu::radix_sort(rec,[](const Record&r){return r.key;},th); printf("radix_sort 90M records %.3f\n", now()-t);
  for(size_t i=0;i<n;i++){rec[i].key=rng(); rec[i].bits=i;}
  t=now(); cpu::radix_sort(rec,[](const Record&r){return r.key;},th); printf("radix_sort 90M records again %.3f\n", now()-t);
  // D2H pageable
  void* d; cudaMalloc(&d, n*12); cudaMemset(d, 1, n*12); cudaDeviceSynchronize();
  t=now(); { std::vector<char> h(n*12); printf("  zero-init 1.08GB %.3f\n", now()-t); double t2=now(); cudaMemcpy(h.data(), d, n*12, cudaMemcpyDeviceToHost); printf("D2H pageable into zeroed 1.08GB %.3f (copy alone %.3f)\n", now()-t, now()-t2);} 
  t=now(); { std::unique_ptr<char[]> h(new char[n*12]); cudaMemcpy(h.get(), d, n*12, cudaMemcpyDeviceToHost); printf("D2H pageable into fresh untouched 1.08GB %.3f\n", now()-t);} 
  t=now(); { std::vector<char> h(n*12); cudaMemcpy(h.data(), d, n*12, cudaMemcpyDeviceToHost); double t2=now(); cudaMemcpy(h.data(), d, n*12, cudaMemcpyDeviceToHost); printf("D2H pageable into prefaulted 1.08GB %.3f\n", now()-t2);} 
  char* pin; t=now(); cudaMallocHost(&pin, n*12); printf("cudaMallocHost 1.08GB %.3f\n", now()-t);
  t=now(); cudaMemcpy(pin, d, n*12, cudaMemcpyDeviceToHost); printf("D2H pinned 1.08GB %.3f\n", now()-t);
  t=now(); { std::vector<char> h(n*12); cpu::parallel_for(n*12/4096, th, [&](size_t i){h[i*4096]=0;}); printf("parallel fault 1.08GB %.3f\n", now()-t); double t2=now(); cpu::parallel_for(n*12/(1<<20), th, [&](size_t i){std::memcpy(h.data()+(i<<20), pin+(i<<20), 1<<20);}); printf("parallel memcpy pinned->pageable %.3f\n", now()-t2);} 
  std::vector<char> big(n*12); t=now(); cudaHostRegister(big.data(), n*12, 0); printf("cudaHostRegister 1.08GB %.3f\n", now()-t);
  t=now(); cudaMemcpy(big.data(), d, n*12, cudaMemcpyDeviceToHost); printf("D2H registered %.3f\n", now()-t);
  t=now(); cudaHostUnregister(big.data()); printf("unregister %.3f\n", now()-t);
  cudaFreeHost(pin);
  if (std::system("cat /sys/kernel/mm/transparent_hugepage/enabled; nproc; free -g | head -2") != 0) return 1;
}

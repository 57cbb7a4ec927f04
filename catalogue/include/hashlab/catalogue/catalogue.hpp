// The catalogue: every group-by, join and hash table of the suite, one entry each, behind one
// interface per operation. The experiments that compare them (compare/), the own-data commands
// (`hashlab groupby / join / table`) and the Python package all run them through it, so an
// algorithm has one adapter, one name and one list of options.
//
// An entry is {name, description, needs_gpu, clock, the options it takes, the statistics it
// reports, check, make}: check() says whether it takes an input (std::invalid_argument naming the
// column and the row if not), make() returns the algorithm ready to run on that input.
//
//   #include "hashlab/catalogue/catalogue.hpp"
//   namespace cat = hashlab::catalogue;
//
//   std::vector<std::uint32_t> store = ..., amount = ...;          // your columns (or device pointers)
//   cat::GroupByInput in;
//   in.keys = {cat::Column::on_host(store, "store")};
//   in.values = {cat::Column::on_host(amount, "amount")};
//   in.aggregations = {cat::Aggregation::kSum, cat::Aggregation::kMean};
//
//   const cat::GroupByEntry& entry = cat::groupby_entry("sp_ega");  // or any of cat::groupby_entries()
//   hashlab::Stream stream;
//   auto groupby = entry.make(in, {}, stream.get());                // {}: the entry's default options
//   hashlab::harness::Timing t = hashlab::harness::time_on(entry.clock, {}, stream.get(),
//       [&](cudaStream_t s) { groupby->run(s); }, [&](cudaStream_t s) { groupby->prepare(s); });
//   hashlab::reference::GroupByResult out = groupby->result(stream.get());  // sorted by key
//   auto on_gpu = groupby->device_result(stream.get());  // the same groups left on the device (GPU entries)
//   groupby->device_inputs();  // the addresses it reads: a device column's own (in place), else its upload
//   cat::Statistics stats = groupby->statistics(stream.get());              // named numbers and arrays
//   for (const std::string& w : groupby->warnings()) std::cerr << w << "\n";  // a degraded run says so
//
// A float64 column holding a NaN is refused by every group-by (no null values), naming the row; a
// repeated key where the keys must be unique (a Pk-Pk join's tables, a table that holds one value
// per key), naming the smallest such key and its first two rows: a host column by check(), a
// device-only one by make() on the device, in the same words.
//
// Errors: std::invalid_argument for input an entry does not take (or an unknown name or option);
// hashlab::OutOfDeviceMemory when its buffers do not fit the GPU.
#pragma once

#include "hashlab/catalogue/checks.hpp"   // the references' answers, to verify with
#include "hashlab/catalogue/column.hpp"   // Column, Options, Statistics
#include "hashlab/catalogue/groupby.hpp"  // rapids, sp_ega, lphga, mp_ega, sort, hash, cpu, cpu_stl
#include "hashlab/catalogue/join.hpp"     // bsp, sort_join, sort_join_hmap, hash_join, hashgraph, cpu_join
#include "hashlab/catalogue/table.hpp"    // cuckoo, hashgraph, linear_probing, sorted_array

// Across GPU servers (servers/), for the group-bys and joins whose `across_servers` is set, each in
// a header of its own: across_servers.hpp (the entries on whole host tables split among p servers:
// what `hashlab groupby / join --gpus N` run) and servers_groupby.hpp (the group-by across servers
// on each server's share).

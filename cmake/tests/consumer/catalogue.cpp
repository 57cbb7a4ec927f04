// hashlab::catalogue from another project: the multi-threaded CPU group-by entry on host columns,
// every aggregation, checked against the references' answer.
#include <cstdio>
#include <vector>

#include "hashlab/catalogue/catalogue.hpp"

int main() {
  namespace cat = hashlab::catalogue;
  const std::vector<std::uint32_t> store = {7, 5, 7, 9, 5, 7, 9, 9};
  const std::vector<std::int64_t> amount = {1, 2, 3, 4, 5, 6, 7, 8};
  cat::GroupByInput in;
  in.keys = {cat::Column::on_host(store, "store")};
  in.values = {cat::Column::on_host(amount, "amount")};
  in.aggregations = {cat::Aggregation::kSum, cat::Aggregation::kMin, cat::Aggregation::kMax, cat::Aggregation::kCount,
                     cat::Aggregation::kMean};
  const cat::GroupByEntry& entry = cat::groupby_entry("cpu");
  auto groupby = entry.make(in, {}, nullptr);
  groupby->run(nullptr);
  const std::string diff = hashlab::reference::compare(cat::oracle_groupby(in), groupby->result(nullptr));
  std::printf("hashlab catalogue: %zu group-bys, %s: %s\n", cat::groupby_entries().size(), entry.name.c_str(),
              diff.empty() ? "right" : diff.c_str());
  return diff.empty() ? 0 : 1;
}

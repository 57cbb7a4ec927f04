// The one registration of the comparisons and their options, in the order `hashlab list` shows
// and a run follows (one Registrar: static initialisers of several files run in link order).
#include <algorithm>

#include "experiments.hpp"

namespace hashlab::compare::experiments {

void report_statistics(harness::PointContext& ctx, const catalogue::Statistics& statistics,
                       const std::vector<std::string>& warnings, const std::vector<std::string>& except) {
  for (const auto& n : statistics.numbers)
    if (std::find(except.begin(), except.end(), n.name) == except.end()) ctx.report_value(n.name, n.value, n.unit);
  for (const auto& w : warnings) ctx.note("warning: " + w);
}

namespace {

const harness::Registrar registrar([](harness::Registry& r) {
  r.add_module({"compare", "Side by side: the questions no single paper asks"});
  r.add_option(tables_keys_option());
  for (auto& o : tpch_options()) r.add_option(std::move(o));
  r.add_experiment(tables());
  r.add_experiment(groupby());
  r.add_experiment(joins());
  r.add_experiment(tpch());
});

}  // namespace
}  // namespace hashlab::compare::experiments

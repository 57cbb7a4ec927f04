// The one registration of the EGA experiments, their option and the demo, in the order
// `hashlab list` shows and a run follows (one Registrar: static initialisers of several files run
// in link order).
#include "experiments.hpp"
#include "hashlab/ega/mp_ega.hpp"
#include "inputs.cuh"

namespace hashlab::ega::experiments {
namespace {

const harness::Registrar registrar([](harness::Registry& r) {
  r.add_module({"ega", "Wang, Shen, Lei, \"EGA: An Efficient GPU Accelerated Groupby Aggregation Algorithm\""});
  r.add_option({"ega", kBudgetOption,
                "GPU memory MP-EGA may use (e.g. 2GiB, 512MiB; 'auto': data size / budget_ratio per point)", "auto",
                [](const std::string& v) { parse_bytes(v); }});
  r.add_experiment(sp_load_factor());
  r.add_experiment(sp_groups());
  r.add_experiment(sp_zipf());
  r.add_experiment(sp_breakdown());
  r.add_experiment(sp_bar());
  r.add_experiment(mp_vs_cpu());
  r.add_experiment(mp_groups());
  r.add_experiment(mp_zipf());
  r.add_experiment(mp_streams());
  r.add_experiment(mp_partitions());
  r.add_experiment(mp_merge());
  r.add_experiment(mp_merge_copy());
  r.add_experiment(mp_feedback());
  r.add_experiment(mp_feedback_rounds());
  r.add_experiment(mp_theorem1());
  r.add_experiment(mp_cpu_tiles());
  r.add_experiment(mp_breakdown());
  r.add_demo(demo());
});

}  // namespace
}  // namespace hashlab::ega::experiments

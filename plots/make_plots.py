"""Regenerates every figure from results/<paper>/*.csv: runs plots/<paper>.py for each paper
with results. Without results of its own (no GPU), it plots the committed reference results
(results/reference/<gpu>/) instead and says so."""
import argparse
import glob
import importlib
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
MODULES = ["baselines", "cuckoo", "hashgraph", "rapids_groupby", "ega", "pkpk_join", "compare"]


def has_results(results_dir, paper):
    return bool(glob.glob(os.path.join(results_dir, paper, "*.csv")))


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--results", default="results")
    parser.add_argument("--paper", default="all", help="one module, or all")
    args = parser.parse_args()
    wanted = MODULES if args.paper == "all" else [args.paper]
    sources = [args.results]
    if not any(has_results(args.results, m) for m in wanted):
        refs = sorted(glob.glob(os.path.join(os.path.dirname(HERE), "results", "reference", "*")))
        refs = [r for r in refs if os.path.isdir(r)]
        if not refs:
            print("make_plots: no results in %s and no committed reference results" % args.results)
            return 0
        print("make_plots: no results in %s; plotting the committed reference results in %s"
              % (args.results, ", ".join(refs)))
        sources = refs
    written = 0
    for source in sources:
        for module in wanted:
            if not os.path.exists(os.path.join(HERE, module + ".py")) or not has_results(source, module):
                continue
            for path in importlib.import_module(module).plot(source):
                print(path)
                written += 1
    print("make_plots: %d figures" % written)
    return 0


if __name__ == "__main__":
    sys.exit(main())

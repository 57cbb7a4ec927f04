"""Regenerates every figure from results/<paper>/*.csv: runs plots/<paper>.py for each module
with results. Without results of its own (no GPU), it plots the committed reference results
(results/reference/<gpu>/) and writes those figures under <results>/reference_figures/<gpu>/,
never into the committed folder; naming a reference folder with --results regenerates its own
figures in place."""
import argparse
import glob
import importlib
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import hashlab_style as hs  # noqa: E402
import modules as md  # noqa: E402


def has_results(results_dir, paper):
    return bool(glob.glob(os.path.join(results_dir, paper, "*.csv")))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--results", default="results")
    parser.add_argument("--paper", default="all", help="one module (a folder of the results), or all")
    args = parser.parse_args(argv)
    modules = md.known(args.results if os.path.isdir(args.results) else None)
    if args.paper != "all" and args.paper not in modules:
        print(f"make_plots: unknown --paper {args.paper!r}; one of: all, {', '.join(modules)}", file=sys.stderr)
        return 2
    if not os.path.isdir(args.results):
        print(f"make_plots: no results folder {args.results!r} (run `hashlab run` first, or name a folder under "
              "results/reference/)", file=sys.stderr)
        return 2
    wanted = modules if args.paper == "all" else [args.paper]
    sources = [args.results]
    if not any(has_results(args.results, m) for m in wanted):
        refs = sorted(d for d in glob.glob(os.path.join(os.path.dirname(HERE), "results", "reference", "*"))
                      if os.path.isdir(d))
        if not refs:
            print(f"make_plots: no results in {args.results} and no committed reference results", file=sys.stderr)
            return 2
        print(f"make_plots: no results in {args.results}; plotting the committed reference results in "
              f"{', '.join(refs)} into {os.path.join(args.results, 'reference_figures')}")
        sources = refs
    written = 0
    for source in sources:
        hs.REDIRECT = None if source == args.results else \
            (source, os.path.join(args.results, "reference_figures", os.path.basename(source)))
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

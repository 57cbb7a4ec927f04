"""Figures of the shared baselines (results/baselines/*.csv)."""
import os

import hashlab_style as hs


def plot(results_dir):
    written = []
    out = os.path.join(results_dir, "baselines")
    limits = hs.limits(results_dir)
    rows = hs.load(results_dir, "baselines", "groupby")
    if rows:
        fig, ax = hs.new_figure(hs.title(results_dir, "baselines", "groupby"), "rows", "G rows/s", logx=True)
        hs.plot_series(ax, rows, "groupby_rate")
        written.append(hs.save(fig, ax, os.path.join(out, "groupby.png"), rows))
    rows = hs.load(results_dir, "baselines", "tables")
    if rows:
        for phase in ("build", "find"):
            fig, ax = hs.new_figure(hs.title(results_dir, "baselines", "tables", phase), "keys", "G keys/s", logx=True)
            hs.plot_series(ax, rows, f"{phase}_rate")
            limit = limits.get("atomic_cas_gops_large" if phase == "build" else "random_read_gops_large")
            hs.hardware_line(ax, limit, "random 8-byte " + ("atomicCAS" if phase == "build" else "read") + " rate")
            written.append(hs.save(fig, ax, os.path.join(out, f"tables_{phase}.png"), rows))
    rows = hs.load(results_dir, "baselines", "join")
    if rows:
        fig, ax = hs.new_figure(hs.title(results_dir, "baselines", "join"), "rows per table", "G input rows/s", logx=True, logy=True)
        hs.plot_series(ax, rows, "join_rate")
        written.append(hs.save(fig, ax, os.path.join(out, "join.png"), rows))
    rows = hs.load(results_dir, "baselines", "cpu_groupby")
    if rows:
        fig, ax = hs.new_figure(hs.title(results_dir, "baselines", "cpu_groupby"), "rows", "G rows/s", logx=True)
        hs.plot_series(ax, rows, "groupby_rate")
        written.append(hs.save(fig, ax, os.path.join(out, "cpu_groupby.png"), rows))
    return written


if __name__ == "__main__":
    hs.script_main(__doc__, plot)

"""plots/gpu_servers.py and the report's all-to-all limits, on synthetic results: every figure is drawn
from rows shaped as the gpu_servers experiments write them, shared-GPU points included, and the probe's
limits (all-to-all ones included) are listed in the report's header as device.json describes them. The
figures of the committed multi-GPU reference runs are checked for their layout (no text cut by the
figure's edge, no legend over another or over an axis label, an x axis with a width)."""
import csv
import glob
import os
import shutil
import sys
import tempfile
import unittest

import matplotlib.legend

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, HERE)
import gpu_servers  # noqa: E402
import hashlab_style as hs  # noqa: E402
import report  # noqa: E402

REFERENCE_RUNS = sorted(os.path.dirname(d) for d in
                        glob.glob(os.path.join(os.path.dirname(HERE), "results", "reference", "**", "gpu_servers"),
                                  recursive=True))

COLUMNS = ("paper,experiment,variant,n,param_name,param_value,metric,median,min,max,unit,verified,device,"
           "timestamp,git_sha,repetitions,note,status,wall_s,device_peak_bytes").split(",")


def row(experiment, variant, n, x, metric, value, param="gpus", verified="true", status="ok"):
    return dict(paper="gpu_servers", experiment=experiment, variant=variant, n=n, param_name=param, param_value=x,
                metric=metric, median=value, min=value * 0.95, max=value * 1.05, unit="x", verified=verified,
                device="NVIDIA H200", status=status)


def write(folder, experiment, rows):
    os.makedirs(os.path.join(folder, "gpu_servers"), exist_ok=True)
    with open(os.path.join(folder, "gpu_servers", experiment + ".csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(COLUMNS)
        for r in rows:
            w.writerow([r.get(c, "") for c in COLUMNS])


class Figures(unittest.TestCase):
    def test_every_experiment_gets_its_figure(self):
        with tempfile.TemporaryDirectory() as folder:
            for experiment in ("weak_scaling", "strong_scaling"):
                rows = []
                for v in ("sampled_bsp", "sampled_sort", "hashed_hash"):
                    for p in (1, 2, 4):
                        rows += [row(experiment, v, 2 ** 24, p, "per_gpu_rate", 5.0 / p),
                                 row(experiment, v, 2 ** 24, p, "join_time", 10.0 / p),
                                 row(experiment, v, 2 ** 24, p, "shared_gpu", 1 if p > 1 else 0)]
                    rows.append(row(experiment, v, 2 ** 24, 8, "join_time", 0, verified="false", status="skipped"))
                write(folder, experiment, rows)
            rows = []
            for v in ("sampled_bsp", "hashed_hash"):
                for p in (1, 2, 4):
                    rows += [row("phases", v, 2 ** 24, p, f"phase_{ph}_time", 0.5) for ph in gpu_servers.PHASES]
                    rows.append(row("phases", v, 2 ** 24, p, "phase_all_to_all_rate", 100.0))
                    if p > 1:
                        rows.append(row("phases", v, 2 ** 24, p, "all_to_all_limit_rate", 150.0))
            write(folder, "phases", rows)
            write(folder, "load", [row("load", v, 2 ** 24, p, "load_ratio", 1.02)
                                   for v in ("sampled_uniform", "hashed_clustered") for p in (2, 4)])
            write(folder, "samples", [row("samples", "sampled_uniform", 2 ** 24, m, "load_ratio", 1 + m ** -0.5,
                                          param="samples_per_server") for m in (4, 16, 64, 256)] +
                  [row("samples", "report_rule", 2 ** 24, 4096, "load_ratio", 1.01, param="samples_per_server")])
            rows = []
            for a in ("sp_ega", "hash"):
                for how in ("single", "p2", "p4"):
                    for g in (1e3, 1e5, 1e7):
                        rows.append(row("groupby_scaling", f"{a}_{how}", 2 ** 25, g, "groupby_time", 10.0, param="groups"))
                        if how != "single":
                            rows.append(row("groupby_scaling", f"{a}_{how}", 2 ** 25, g, "pre_aggregated",
                                            1 if g < 1e5 else 0, param="groups"))
            write(folder, "groupby_scaling", rows)
            written = [os.path.basename(p) for p in gpu_servers.plot(folder)]
            self.assertEqual(written, ["weak_scaling.png", "strong_scaling.png", "phases.png", "all_to_all.png",
                                       "load.png", "samples.png", "groupby_scaling.png"])
            for name in written:
                self.assertGreater(os.path.getsize(os.path.join(folder, "gpu_servers", name)), 1000)

    def test_an_experiment_whose_every_point_was_skipped_draws_no_figure(self):
        # samples runs at p = 4 only: a host of 2 GPUs skips each of its points, with the reason
        with tempfile.TemporaryDirectory() as folder:
            write(folder, "load", [row("load", "sampled_uniform", 2 ** 24, 2, "load_ratio", 1.02)])
            write(folder, "samples", [row("samples", "sampled_uniform", 2 ** 24, m, "status", 0, verified="false",
                                          status="skipped", param="samples_per_server") for m in (4, 16)])
            self.assertEqual([os.path.basename(p) for p in gpu_servers.plot(folder)], ["load.png"])

    def test_a_run_without_these_experiments_draws_nothing(self):
        with tempfile.TemporaryDirectory() as folder:
            self.assertEqual(gpu_servers.plot(folder), [])


class ReferenceLayout(unittest.TestCase):
    """Each figure of each committed run, laid out as hs.save writes it (into a copy of the run)."""

    def layouts(self):
        """(run, figure, fig, ax) of every figure drawn, after hs.save laid it out and wrote it."""
        drawn = []
        original, close = hs.save, hs.plt.close

        def save(fig, ax, path, rows=None, note=None):
            written = original(fig, ax, path, rows, note=note)  # its figure is kept open to be measured
            drawn.append((os.path.basename(written), fig, ax))
            return written

        gpu_servers.hs.save = save
        hs.plt.close = lambda fig=None: None
        try:
            for run in REFERENCE_RUNS:
                with tempfile.TemporaryDirectory() as folder:
                    for name in ("gpu_servers", "device.json"):
                        source = os.path.join(run, name)
                        if os.path.isdir(source):
                            shutil.copytree(source, os.path.join(folder, name))
                        elif os.path.exists(source):
                            shutil.copy(source, folder)
                    gpu_servers.plot(folder)
                    for name, fig, ax in drawn:
                        yield os.path.relpath(run, HERE), name, fig, ax
                        close(fig)
                    drawn.clear()
        finally:
            gpu_servers.hs.save, hs.plt.close = original, close

    def test_every_reference_figure_reads_cleanly(self):
        self.assertGreaterEqual(len(REFERENCE_RUNS), 4, "the multi-GPU reference runs (h200x2, h200x4, full/)")
        figures = 0
        for run, name, fig, ax in self.layouts():
            figures += 1
            with self.subTest(run=run, figure=name):
                renderer = fig.canvas.get_renderer()
                title = ax.title.get_window_extent(renderer)
                self.assertGreaterEqual(title.x0, 0, "title cut on the left")
                self.assertLessEqual(title.x1, fig.bbox.width, "title cut on the right")
                legends = [a for a in ax.get_children() if isinstance(a, matplotlib.legend.Legend)]
                boxes = [legend.get_window_extent(renderer) for legend in legends]
                for a in boxes:
                    self.assertTrue(fig.bbox.contains(a.x0, a.y0) and fig.bbox.contains(a.x1, a.y1), "legend cut")
                    self.assertFalse(a.overlaps(ax.xaxis.label.get_window_extent(renderer)), "legend on the x label")
                boxes += [t.get_window_extent(renderer) for t in ax.texts if t.get_text()]  # labels on lines
                for i, a in enumerate(boxes):
                    for b in boxes[i + 1:]:
                        self.assertFalse(a.overlaps(b), "a legend or a label over another")
                lo, hi = ax.get_xlim()
                self.assertGreater(hi - lo, 1e-6 * max(abs(lo), abs(hi), 1), "an x axis without width")
        self.assertGreater(figures, 20)


class ReportLimits(unittest.TestCase):
    def test_the_probes_limits_are_listed_as_device_json_describes_them(self):
        limits = {"device": "NVIDIA H200", "copy_gbps": 4000.0, "t_coalesced_ns": 0.002,
                  "all_to_all_gbps_p2_64mib": 125.0, "all_to_all_gbps_p4_2048mib": 322.0,
                  "fields": {"copy_gbps": {"label": "device-to-device copy", "unit": "GB/s"},
                             "all_to_all_gbps_p2_64mib": {"label": "NCCL all-to-all, 2 GPUs, 64 MiB per GPU",
                                                          "unit": "GB/s per GPU"},
                             "all_to_all_gbps_p4_2048mib": {"label": "NCCL all-to-all, 4 GPUs, 2048 MiB per GPU",
                                                            "unit": "GB/s per GPU"},
                             "h2d_pinned_gbps": {"label": "host to device, pinned", "unit": "GB/s"}}}
        self.assertEqual(report.measured_limits(limits),
                         [("copy_gbps", "device-to-device copy, GB/s"),
                          ("all_to_all_gbps_p2_64mib", "NCCL all-to-all, 2 GPUs, 64 MiB per GPU, GB/s per GPU"),
                          ("all_to_all_gbps_p4_2048mib", "NCCL all-to-all, 4 GPUs, 2048 MiB per GPU, GB/s per GPU")])
        # A file of an earlier revision, without "fields": its numbers by their keys.
        self.assertEqual(report.measured_limits({"device": "x", "copy_gbps": 1.0}), [("copy_gbps", "copy_gbps")])


if __name__ == "__main__":
    unittest.main()

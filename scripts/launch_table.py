#!/usr/bin/env python3
"""The launch decision's table from d2q9-bench logs: per backend, precision
and box size, the GLUPS of each variant measured, what `auto` ran, and auto
divided by the best variant at that point.

Usage: launch_table.py DIR [--markdown]
DIR holds <backend>-<variant>.log files written by
`d2q9-bench -b <backend> --kernel-variant <variant> ... > <backend>-<variant>.log`
(results/nvidia-h100/launch-table/device_call.sh). Exit status 1 when auto is
more than 3% slower than the best variant anywhere (the issue's bar)."""

import glob
import os
import sys

TOLERANCE = 0.03


def read_log(path):
    """{(precision, size): (mlups, variant column)} of one bench log."""
    rows = {}
    with open(path) as f:
        for line in f:
            parts = line.split()
            if len(parts) < 10 or not parts[0].startswith("box_"):
                continue
            size = int(parts[0][4:])
            rows[(parts[1], size)] = (float(parts[4]), parts[8])
    return rows


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    folder = sys.argv[1]
    logs = {}
    for path in sorted(glob.glob(os.path.join(folder, "*-*.log"))):
        backend, variant = os.path.basename(path)[:-4].split("-", 1)
        logs.setdefault(backend, {})[variant] = read_log(path)
    worst = 1.0
    print("| backend | precision | N | " + " | ".join("%s" % v for v in ("blocked", "fused")) +
          " | auto ran | auto | auto / best |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for backend, variants in logs.items():
        auto = variants.get("auto", {})
        keys = sorted(auto, key=lambda k: (["float", "double", "fp16s", "fp16c"].index(k[0]), k[1]))
        for precision, size in keys:
            measured = {v: rows[(precision, size)][0] for v, rows in variants.items()
                        if v != "auto" and (precision, size) in rows}
            if not measured:
                continue
            best = max(measured.values())
            got, ran = auto[(precision, size)]
            ratio = got / best
            worst = min(worst, ratio)
            cells = " | ".join("%.1f" % (measured[v] / 1000) if v in measured else "-" for v in ("blocked", "fused"))
            flag = " **" if ratio < 1 - TOLERANCE else ""
            print("| %s | %s | %d | %s | %s | %.1f | %.2f%s |" % (backend, precision, size, cells, ran, got / 1000, ratio,
                                                                 flag.strip() and "**"))
    print("\nworst auto / best: %.3f (bar: %.2f)" % (worst, 1 - TOLERANCE))
    return 0 if worst >= 1 - TOLERANCE else 1


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""The launch decision's table from d2q9-bench logs: per backend, precision
and box size, the GLUPS of each variant measured, what `auto` ran, and auto
divided by the best variant at that point.

Usage: launch_table.py DIR [--rule]
DIR holds <backend>-<variant>.log files written by
`d2q9-bench -b <backend> --kernel-variant <variant> ... > <backend>-<variant>.log`
(scripts/device/bench_sweep.sh OUT BUILD <backend>-<variant> -b <backend> --kernel-variant <variant> ...). Exit status 1 when auto is
more than 3% slower than the best variant anywhere (the issue's bar).

--rule: also what decide_launch's GPU rule (host/device/launch_plan.cpp,
tested in tests/test_launch_decision.cpp) picks,
valued at that variant's measurement in the same call, and its ratio to the
best: the rule's check where `auto` was measured before the rule changed."""

import glob
import os
import sys

TOLERANCE = 0.03
BYTES = {"float": 4, "double": 8, "fp16s": 2, "fp16c": 2}


def rule_pick():
    """decide_launch's GPU default (mirrored here for the table): blocked in
    every precision at every size since the one-copy, unrolled blocked kernel
    (results/nvidia-h100/blocked-inplace/final/)."""
    return "blocked"


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
    if len(sys.argv) >= 2 and sys.argv[1] in ("-h", "--help"):
        print(__doc__)
        return 0
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    folder = sys.argv[1]
    rule = "--rule" in sys.argv[2:]
    logs = {}
    for path in sorted(glob.glob(os.path.join(folder, "*-*.log"))):
        backend, variant = os.path.basename(path)[:-4].split("-", 1)
        logs.setdefault(backend, {})[variant] = read_log(path)
    worst = 1.0
    rule_head = " | rule picks | rule / best" if rule else ""
    print("| backend | precision | N | " + " | ".join("%s" % v for v in ("blocked", "fused")) +
          " | auto ran | auto | auto / best" + rule_head + " |")
    print("| --- " * (8 + (2 if rule else 0)) + "|")
    worst_rule = 1.0
    for backend, variants in logs.items():
        auto = variants.get("auto", {})
        keys = sorted(set(auto) | set(variants.get("blocked", {})),
                      key=lambda k: (["float", "double", "fp16s", "fp16c"].index(k[0]), k[1]))
        for precision, size in keys:
            measured = {v: rows[(precision, size)][0] for v, rows in variants.items()
                        if v != "auto" and (precision, size) in rows}
            if not measured:
                continue
            best = max(measured.values())
            cells = " | ".join("%.1f" % (measured[v] / 1000) if v in measured else "-" for v in ("blocked", "fused"))
            if (precision, size) in auto:
                got, ran = auto[(precision, size)]
                ratio = got / best
                worst = min(worst, ratio)
                auto_cells = "%s | %.1f | %.3f%s" % (ran, got / 1000, ratio, " **" if ratio < 1 - TOLERANCE else "")
            else:
                auto_cells = "not measured | - | -"
            rule_cells = ""
            if rule:
                pick = rule_pick()
                rule_ratio = measured[pick] / best
                worst_rule = min(worst_rule, rule_ratio)
                rule_cells = " | %s | %.3f%s" % (pick, rule_ratio, " **" if rule_ratio < 1 - TOLERANCE else "")
            print("| %s | %s | %d | %s | %s%s |" % (backend, precision, size, cells, auto_cells, rule_cells))
    print("\nworst auto / best: %.3f (bar: %.2f)" % (worst, 1 - TOLERANCE))
    if rule:
        print("worst rule / best: %.3f" % worst_rule)
        return 0 if worst_rule >= 1 - TOLERANCE else 1
    return 0 if worst >= 1 - TOLERANCE else 1


if __name__ == "__main__":
    sys.exit(main())

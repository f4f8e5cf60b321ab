#!/usr/bin/env python3
"""CI's performance guard: ratios measured in one run on the machine it runs on.

Not a timed test: each check compares two things measured alternately here,
so a slower or busier machine moves both. It fails (exit 1) on a loss:

  loop-<precision>   the default device's step loop (PoCL on CI) against the
                     serial CPU reference on the 256x256 coursework problem;
                     a device kernel that stops vectorising shows as a ratio
                     near 1 (it fell to 1.2 once, unnoticed)
  cold-over-warm     whole-process wall time of a default 128x128 run with
                     empty caches (ours and PoCL's) against the same run warm;
                     a launch search or compile storm before the run shows here
  warm-wall-over-loop  the warm run's wall time against its own step loop:
                     start-up and output writing

Usage: scripts/checks/perf_guard.py BUILD_DIR [--json FILE] [--kernels-dir DIR]
See docs/performance.md (CI performance guard).
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
INPUTS = os.path.join(ROOT, "inputs")

# Lower bounds for "more is better" ratios, upper bounds for the others. Set
# well inside what a 2-core CI machine measures (results/pocl-2core/), so that
# noise does not fail it and a real loss does.
LOOP_STEPS = {"float": 2000, "double": 2000, "fp16s": 600}
MIN_LOOP_RATIO = {"float": 3.0, "double": 2.0, "fp16s": 2.0}
MAX_COLD_OVER_WARM = 3.0
MAX_WARM_WALL_OVER_LOOP = 1.5
ROUNDS = 3


def run(exe, args, env=None):
    """Runs d2q9-bgk; returns (wall seconds, its --summary-json)."""
    with tempfile.TemporaryDirectory() as out:
        summary = os.path.join(out, "summary.json")
        cmd = [exe, "-q", "--no-png", "-o", out, "--summary-json", summary] + args
        t0 = time.monotonic()
        proc = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        wall = time.monotonic() - t0
        if proc.returncode != 0:
            sys.exit("perf guard: error: %s failed (%d): %s" % (" ".join(cmd), proc.returncode, proc.stderr.strip()))
        with open(summary) as f:
            return wall, json.load(f)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("build_dir")
    ap.add_argument("--json", help="write the figures here as well")
    ap.add_argument("--kernels-dir", help="kernel sources to run (default: the build's)")
    a = ap.parse_args()
    exe = os.path.join(a.build_dir, "d2q9-bgk")
    extra = ["--kernels-dir", a.kernels_dir] if a.kernels_dir else []
    work = tempfile.mkdtemp(prefix="d2q9-guard-")
    # One cache for the loop checks, so that they time steps, not compiles.
    env = dict(os.environ, D2Q9_CACHE_DIR=os.path.join(work, "cache"), POCL_CACHE_DIR=os.path.join(work, "pocl"))
    checks = []

    with open(os.path.join(INPUTS, "input_256x256.params")) as f:
        fields = f.read().split()
    obstacles = os.path.join(INPUTS, "obstacles_256x256.dat")
    device = None
    for precision, steps in LOOP_STEPS.items():
        params = os.path.join(work, "256x256_%d.params" % steps)
        with open(params, "w") as f:
            f.write(" ".join(fields[:2] + [str(steps)] + fields[3:]) + "\n")
        best = {}
        for _ in range(ROUNDS):  # alternately, each its best
            for backend in ("reference", "default"):
                args = ["-p", precision] + (["-b", "reference"] if backend == "reference" else extra)
                _, s = run(exe, args + [params, obstacles], env)
                best[backend] = min(best.get(backend, float("inf")), s["elapsed_s"])
                if backend == "default":
                    device = "%s (%s, %s)" % (s["device"], s["backend"], s["kernel_variant"])
        ratio = best["reference"] / best["default"]
        checks.append({"check": "loop-" + precision, "value": ratio, "limit": ">= %g" % MIN_LOOP_RATIO[precision],
                       "ok": ratio >= MIN_LOOP_RATIO[precision],
                       "detail": "256x256 x %d steps: reference %.3f s, default device %.3f s (%.0f / %.0f MLUPS)"
                                 % (steps, best["reference"], best["default"], 65536 * steps / best["reference"] / 1e6,
                                    65536 * steps / best["default"] / 1e6)})

    problem = [os.path.join(INPUTS, "input_128x128.params"), os.path.join(INPUTS, "obstacles_128x128.dat")]
    cold = []
    warm = []
    for r in range(2):
        fresh = dict(os.environ, D2Q9_CACHE_DIR=os.path.join(work, "cold%d" % r),
                     POCL_CACHE_DIR=os.path.join(work, "pocl-cold%d" % r))
        cold.append(run(exe, extra + problem, fresh))
        warm.append(run(exe, extra + problem, fresh))  # the same caches, now filled
    cold_wall = min(w for w, _ in cold)
    warm_wall, warm_summary = min(warm, key=lambda x: x[0])
    checks.append({"check": "cold-over-warm", "value": cold_wall / warm_wall, "limit": "<= %g" % MAX_COLD_OVER_WARM,
                   "ok": cold_wall / warm_wall <= MAX_COLD_OVER_WARM,
                   "detail": "128x128 x 40000 steps, whole process: empty caches %.2f s, warm %.2f s"
                             % (cold_wall, warm_wall)})
    loop = warm_summary["elapsed_s"]
    checks.append({"check": "warm-wall-over-loop", "value": warm_wall / loop,
                   "limit": "<= %g" % MAX_WARM_WALL_OVER_LOOP, "ok": warm_wall / loop <= MAX_WARM_WALL_OVER_LOOP,
                   "detail": "warm 128x128: wall %.2f s, step loop %.2f s, set-up %.3f s, outputs %.3f s"
                             % (warm_wall, loop, warm_summary["times"]["setup_s"], warm_summary["times"]["outputs_s"])})

    commit = warm_summary["program"]["commit"]
    print("perf guard on %s, commit %s (%d CPUs):" % (device, commit, os.cpu_count()))
    for c in checks:
        print("  %-20s %7.2f  (limit %s)  %s  %s" % (c["check"], c["value"], c["limit"], "ok  " if c["ok"] else "LOSS",
                                                   c["detail"]))
    failed = [c["check"] for c in checks if not c["ok"]]
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"device": device, "commit": commit, "cpus": os.cpu_count(), "checks": checks}, f, indent=2)
    subprocess.run(["rm", "-rf", work])
    if failed:
        print("perf guard: LOSS in %s" % ", ".join(failed))
        return 1
    print("perf guard: every ratio within its limit")
    return 0


if __name__ == "__main__":
    sys.exit(main())

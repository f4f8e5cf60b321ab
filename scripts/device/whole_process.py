#!/usr/bin/env python3
"""Whole process against loop: a problem run by an old and a new d2q9-bgk alternately, each with
its own defaults (what a user gets), on each backend, ROUNDS times. Each run's wall time is the
process's, from start to exit; the summary's times give the loop and the rest (inputs, set-up,
final state, outputs). Outputs go to a temporary folder, removed after each run; the file names
and sizes it held are kept.

Usage: scripts/device/whole_process.py OUTDIR --old OLD/d2q9-bgk --new NEW/d2q9-bgk PROBLEM.toml
           [--backends cuda,opencl] [--rounds 2] [--extra "--no-png"]
Writes OUTDIR/whole_process.csv and OUTDIR/whole_process.md (medians of wall / loop per version
and backend), and prints each run as it comes."""
import argparse, csv, json, os, shutil, statistics, subprocess, sys, tempfile, time

a = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
a.add_argument("out")
a.add_argument("problem")
a.add_argument("--old", required=True, help="the older d2q9-bgk")
a.add_argument("--new", required=True, help="the newer d2q9-bgk")
a.add_argument("--backends", default="cuda,opencl")
a.add_argument("--rounds", type=int, default=2)
a.add_argument("--extra", default="--no-png", help="d2q9-bgk arguments both get, space-separated")
o = a.parse_args()
os.makedirs(o.out, exist_ok=True)
PARTS = ["inputs_s", "setup_s", "context_s", "compile_s", "upload_s", "loop_s", "final_state_s", "outputs_s"]


def one_run(version, exe, backend):
    work = tempfile.mkdtemp()
    cmd = [exe, "-q", "-b", backend, "-o", work, "--summary-json", work + "/summary.json", o.problem] + o.extra.split()
    t0 = time.monotonic()
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    wall = time.monotonic() - t0
    if r.returncode != 0:
        shutil.rmtree(work)
        sys.exit(f"error: {version} on {backend} failed ({r.returncode}): {r.stderr.strip()[-400:]}")
    s = json.load(open(work + "/summary.json"))
    files = {f: os.path.getsize(os.path.join(work, f)) for f in sorted(os.listdir(work)) if f != "summary.json"}
    shutil.rmtree(work)
    row = dict(version=version, backend=backend, wall_s=round(wall, 3), commit=s["program"]["commit"],
               device=s["device"], files=" ".join(f"{f}:{n}" for f, n in files.items()))
    row.update({p: round(s["times"].get(p, 0.0), 4) for p in PARTS})
    row["whole_over_loop"] = round(wall / row["loop_s"], 3)
    print(json.dumps(row), flush=True)
    return row


rows = []
for r in range(o.rounds):
    for backend in o.backends.split(","):
        for version, exe in (("old", o.old), ("new", o.new)):
            rows.append(one_run(version, exe, backend))
with open(os.path.join(o.out, "whole_process.csv"), "w", newline="") as f:
    w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
    w.writeheader()
    w.writerows(rows)
with open(os.path.join(o.out, "whole_process.md"), "w") as f:
    f.write("| backend | version | commit | wall s | loop s | wall / loop | final state s | outputs s | set-up s |\n")
    f.write("| --- | --- | --- | --- | --- | --- | --- | --- | --- |\n")
    for backend in o.backends.split(","):
        for version in ("old", "new"):
            g = [x for x in rows if x["backend"] == backend and x["version"] == version]
            med = lambda k: statistics.median(x[k] for x in g)
            f.write(f"| {backend} | {version} | {g[0]['commit']} | {med('wall_s'):.2f} | {med('loop_s'):.2f} | "
                    f"{med('whole_over_loop'):.2f} | {med('final_state_s'):.2f} | {med('outputs_s'):.2f} | "
                    f"{med('setup_s'):.2f} |\n")
print(open(os.path.join(o.out, "whole_process.md")).read())

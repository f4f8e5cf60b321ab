#!/usr/bin/env python3
"""The benchmark of real problems: an open-flow cylinder (uniform inlet with a ramp, pressure outlet
with an absorbing layer, a circle of D = 20 as a curved wall, TRT, [forces] on it, 20 probes every 20
steps) with each feature on and off, timed as the user waits for it (the summary's times.loop_s, which
is stdout's "Elapsed time", and the whole process), beside the empty box of about the same cells
(d2q9-bench) as the ratio that matters: real problem / box.

Usage: scripts/device/real_problems.py OUTDIR --bin build/d2q9-bgk [--old OLD/d2q9-bgk] [-b cuda]
           [--grid 1000x600] [--steps 100000] [--box 1024] [--cases all,no-probes,...] [--rounds 1]
With --old, each case runs old and new alternately (--rounds times), and the outputs' bytes are
compared (md5). Writes OUTDIR/real_problems.csv and OUTDIR/real_problems.md, and prints each row
as it comes."""
import argparse, csv, hashlib, json, os, re, subprocess, sys, time

a = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
a.add_argument("out")
a.add_argument("--bin", required=True, help="the d2q9-bgk to time (the new one)")
a.add_argument("--old", help="an older d2q9-bgk, run alternately with --bin")
a.add_argument("--bench", help="d2q9-bench for the box (default: beside --bin)")
a.add_argument("-b", "--backend", default="opencl")
a.add_argument("--precision", default="float")
a.add_argument("--grid", default="1000x600")
a.add_argument("--steps", type=int, default=20000)
a.add_argument("--box", type=int, default=0, help="box size N (N^2 cells) for the ratio; 0: none")
a.add_argument("--re", type=float, default=20)
a.add_argument("--cases", default="", help="comma list (default: every case)")
a.add_argument("--rounds", type=int, default=1)
a.add_argument("--extra", default="", help="more d2q9-bgk arguments, space-separated")
a.add_argument("--keep", action="store_true", help="keep each run's final_state.dat, av_vels.dat and forces.csv")
o = a.parse_args()
nx, ny = (int(v) for v in o.grid.split("x"))
D, U = 20, 0.05
cx, cy = 0.3 * nx, ny / 2 + 0.3


def problem(forces=True, probes=True, probe_every=20, sponge=100, curved=True, collision="trt", rotation=0.0,
            smagorinsky=0.0, heat=False):
    """rotation: the cylinder's surface speed / U (turning counter-clockwise); smagorinsky: C; heat: a
    cylinder held at 1 in a flow entering at 0, Pr 0.71, no buoyancy (inputs/examples/heated-cylinder.toml)."""
    text = f"""[grid]
nx = {nx}
ny = {ny}
[flow]
steps = {o.steps}
viscosity = {U * D / o.re!r}
collision = "{collision}"
inlet_ramp = 400
{f'smagorinsky = {smagorinsky!r}' if smagorinsky else ''}
[edges]
left = {{ inlet_velocity = [{U}, 0.0]{', temperature = 0.0' if heat else ''} }}
right = {{ outlet_density = 1.0{f', sponge = {sponge}' if sponge else ''} }}
[[obstacle]]
name = "cylinder"
{'boundary = "interpolated"' if curved else ''}
{f'angular_velocity = {rotation * U / (D / 2)!r}' if rotation else ''}
circle = {{ center = [{cx}, {cy}], radius = {D / 2} }}
{'temperature = 1.0' if heat else ''}
"""
    if heat:
        text += f"[heat]\nprandtl = 0.71\nlength = {D}\ntemperature_difference = 1.0\n"
    if forces:
        text += f"[forces]\nvelocity = {U}\nlength = {D}\n"
    if probes:
        text += f"[probes]\nevery = {probe_every}\n"
        text += "".join(f"w{i} = [{i}, {int(cy)}]\n" for i in range(int(cx) + 11, int(cx) + 90, 4))
    return text


CASES = [
    ("all", {}),
    ("probes-every-step", dict(probe_every=1)),
    # Probes built into the launches but sampled once, at the end: what their
    # presence costs the launches that do not sample.
    ("probes-at-end", dict(probe_every=o.steps)),
    ("no-probes", dict(probes=False)),
    ("no-probes-forces", dict(probes=False, forces=False)),
    ("no-probes-forces-sponge", dict(probes=False, forces=False, sponge=0)),
    ("staircase-trt", dict(probes=False, forces=False, sponge=0, curved=False)),
    ("staircase-bgk", dict(probes=False, forces=False, sponge=0, curved=False, collision="bgk")),
    # Bodies that move and the subgrid model (new keys: an old binary refuses them).
    ("rotating", dict(rotation=0.5)),
    ("smagorinsky", dict(smagorinsky=0.1)),
    ("staircase-bgk-smagorinsky", dict(probes=False, forces=False, sponge=0, curved=False, collision="bgk",
                                       smagorinsky=0.1)),
    # A heated cylinder: its ratio is to the thermal box (heatbox_N) of the same call.
    ("heated", dict(heat=True)),
    ("heated-no-probes", dict(heat=True, probes=False)),
]
cases = [c for c in CASES if not o.cases or c[0] in o.cases.split(",")]
os.makedirs(o.out, exist_ok=True)


def md5(path):
    return hashlib.md5(open(path, "rb").read()).hexdigest()[:12] if os.path.exists(path) else "-"


def final_state_text(binary, env):
    """["--final-state", "text"] where `binary` has the option: a problem file's run then writes
    final_state.dat, as builds before it did, so that old and new md5s compare."""
    r = subprocess.run([binary, "--help"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env)
    return ["--final-state", "text"] if "--final-state" in r.stdout else []


def run(binary, label, name, toml):
    d = os.path.join(o.out, "runs", f"{name}-{label}")
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "problem.toml"), "w") as f:
        f.write(toml)
    cmd = [binary, "-b", o.backend, "--precision", o.precision, "--no-png", "-o", d,
           "--summary-json", os.path.join(d, "summary.json"), os.path.join(d, "problem.toml")] + o.extra.split()
    # Each build with its own shared libraries (lib/ beside it): an old
    # binary must not run a new libd2q9.so from the caller's LD_LIBRARY_PATH.
    env = dict(os.environ)
    lib = os.path.join(os.path.dirname(os.path.abspath(binary)), "lib")
    if os.path.isdir(lib):
        env["LD_LIBRARY_PATH"] = lib + (":" + env["LD_LIBRARY_PATH"] if env.get("LD_LIBRARY_PATH") else "")
    cmd += final_state_text(binary, env)
    t0 = time.monotonic()
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    wall = time.monotonic() - t0
    row = dict(case=name, binary=label, grid=o.grid, steps=o.steps, backend=o.backend, precision=o.precision, rc=r.returncode)
    if r.returncode != 0:
        row["error"] = r.stderr.strip().splitlines()[-1] if r.stderr.strip() else "exit %d" % r.returncode
        return row
    s = json.load(open(os.path.join(d, "summary.json")))
    t = s["times"]
    printed = re.search(r"Elapsed time:\s+([0-9.]+)", r.stdout)
    loop = t["loop_s"]
    row.update(device=s["device"], commit=s["program"]["commit"], variant=s.get("kernel_variant"),
               tile="x".join(map(str, s.get("tile", []))), wall_s=round(wall, 4), loop_s=round(loop, 4),
               printed_elapsed_s=float(printed.group(1)) if printed else None,
               glups=round(nx * ny * o.steps / loop / 1e9, 3),
               setup_s=round(t.get("setup_s", 0), 4), final_state_s=round(t.get("final_state_s", 0), 4),
               outputs_s=round(t.get("outputs_s", 0), 4), inputs_s=round(t.get("inputs_s", 0), 4),
               steps_s=round(t.get("loop", {}).get("steps_s", float("nan")), 4),
               measurements_s=round(t.get("loop", {}).get("measurements_s", float("nan")), 4),
               av_vels=md5(os.path.join(d, "av_vels.dat")), final_state=md5(os.path.join(d, "final_state.dat")),
               forces=md5(os.path.join(d, "forces.csv")), probes=md5(os.path.join(d, "probes.csv")))
    if not o.keep:  # a large grid's final_state.dat is hundreds of MB: its md5 is kept
        for f in ("final_state.dat", "av_vels.dat", "forces.csv"):
            if os.path.exists(os.path.join(d, f)):
                os.remove(os.path.join(d, f))
    return row


box_glups = heat_box_glups = None
heated = any(kw.get("heat") for _, kw in cases)
if o.box:
    bench = o.bench or os.path.join(os.path.dirname(o.bin), "d2q9-bench")
    bd = os.path.join(o.out, f"box-{o.box}")
    r = subprocess.run([bench, "-b", o.backend, "-p", o.precision, "--no-coursework", "--sizes", str(o.box),
                        "--min-seconds", "2", "-o", bd] + (["--heat-sizes", str(o.box)] if heated else []), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    print(r.stdout.strip(), flush=True)
    for f in os.listdir(bd) if os.path.isdir(bd) else []:
        if f.endswith(".csv"):
            for line in csv.DictReader(open(os.path.join(bd, f))):
                if line["case"] == f"box_{o.box}":
                    box_glups = float(line["mlups"]) / 1e3
                if line["case"] == f"heatbox_{o.box}":
                    heat_box_glups = float(line["mlups"]) / 1e3
    print(f"box {o.box}^2: {box_glups} GLUPS; thermal box: {heat_box_glups}", flush=True)

rows = []
binaries = [("new", o.bin)] + ([("old", o.old)] if o.old else [])
# Round by round, every case in each: cases compared with one another alternate too.
for rnd in range(o.rounds):
    for name, kw in cases:
        for label, binary in (binaries if rnd % 2 == 0 else binaries[::-1]):
            row = run(binary, label, name, problem(**kw))
            row["round"] = rnd
            box = heat_box_glups if kw.get("heat") else box_glups
            if box and "glups" in row:
                row["box_glups"] = box
                row["of_box"] = round(row["glups"] / box, 3)
            rows.append(row)
            print("REAL " + " ".join(f"{k}={v}" for k, v in row.items()), flush=True)

keys = []
for row in rows:
    keys += [k for k in row if k not in keys]
with open(os.path.join(o.out, "real_problems.csv"), "w", newline="") as f:
    w = csv.DictWriter(f, fieldnames=keys)
    w.writeheader()
    w.writerows(rows)
with open(os.path.join(o.out, "real_problems.md"), "w") as f:
    f.write(f"Cylinder {o.grid}, {o.steps} steps, Re {o.re:g}, {o.backend}, {o.precision}, default launch; "
            f"box {o.box}^2: {box_glups} GLUPS" + (f"; thermal box: {heat_box_glups} GLUPS (the heated cases' / box)"
                                                   if heated else "") + "\n\n")
    f.write("| case | binary | loop (s) | printed (s) | GLUPS | / box | wall (s) | final state (s) | outputs (s) | md5 final_state / probes |\n")
    f.write("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n")
    for r in rows:
        if "loop_s" not in r:
            f.write(f"| {r['case']} | {r['binary']} | failed: {r.get('error')} | | | | | | | |\n")
            continue
        f.write(f"| {r['case']} | {r['binary']} | {r['loop_s']} | {r['printed_elapsed_s']} | {r['glups']} | "
                f"{r.get('of_box', '')} | {r['wall_s']} | {r['final_state_s']} | {r['outputs_s']} | "
                f"{r['final_state']} / {r['probes']} |\n")
sys.exit(0 if all(r["rc"] == 0 for r in rows) else 1)

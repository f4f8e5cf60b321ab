#!/usr/bin/env python3
"""Every file under scripts/ runs, cheaply:
- a shell or Python script (*.sh, *.py) answers --help with exit status 0 and
  some text, without doing its work;
- a C file (*.c) compiles (cc -fsyntax-only);
- with --figures, each gnuplot script (*.gp) draws a PNG from data in results/
  (exit 77, skipped, where gnuplot is not installed).
Any other kind of file fails: a new kind of script needs a way to be run here.
Usage: check_scripts.py SOURCE_DIR [--figures]
"""
import os
import shutil
import subprocess
import sys
import tempfile

source = os.path.abspath(sys.argv[1])
figures = "--figures" in sys.argv[2:]
scripts = os.path.join(source, "scripts")
R = lambda *p: os.path.join(source, "results", *p)
# Each figure script's variables, over data that results/ holds ({tmp}: a temporary folder).
GNUPLOT = {
    "plot_av_vels.gp": ("files='{tmp}/av_vels.dat'; out='{tmp}/out.png'", None),
    "plot_bench.gp": ("files='%s'; out='{tmp}/out.png'" % R("nvidia-h200", "bench_opencl_float_auto.csv"), None),
    "plot_roofline.gp": ("files='%s'; out='{tmp}/out.png'; ttl='test'" % R("nvidia-h200", "bench_cuda_float_auto.csv"), None),
    "plot_sweep.gp": ("csv='%s'; out='{tmp}/out.png'" % R("nvidia-h200", "session-e416a54", "sweep_opencl_float.csv"), None),
    "schafer_turek_cd.gp": ("", R("validation", "schafer-turek", "cd.dat")),  # run where cd.dat is, writes cd.png
}
errors, ran = [], 0
paths = sorted(os.path.join(d, f) for d, _, fs in os.walk(scripts) for f in fs)
gnuplot = shutil.which("gnuplot")
if figures and not gnuplot:
    print("SKIPPED: gnuplot is not installed")
    sys.exit(77)
for path in paths:
    rel = os.path.relpath(path, source)
    name = os.path.basename(path)
    with tempfile.TemporaryDirectory() as tmp:
        if name.endswith(".gp"):
            if not figures:
                continue
            if name not in GNUPLOT:
                errors.append(f"{rel}: no data to draw it from (add it to GNUPLOT in {os.path.basename(__file__)})")
                continue
            variables, data = GNUPLOT[name]
            with open(os.path.join(tmp, "av_vels.dat"), "w") as f:
                f.write("".join(f"{i}:\t{0.001 * i:.6e}\n" for i in range(50)))
            if data:
                shutil.copy(data, tmp)
            cmd = [gnuplot] + (["-e", variables.format(tmp=tmp)] if variables else []) + [path]
            run = subprocess.run(cmd, cwd=tmp, capture_output=True, text=True, timeout=60)
            pngs = [f for f in os.listdir(tmp) if f.endswith(".png")]
            if run.returncode != 0 or not pngs:
                errors.append(f"{rel}: gnuplot exit {run.returncode}, {len(pngs)} PNGs: {run.stderr.strip()[-300:]}")
            ran += 1
            continue
        if figures:
            continue
        if name.endswith((".sh", ".py")):
            if not os.access(path, os.X_OK):
                errors.append(f"{rel}: not executable (chmod +x)")
                continue
            run = subprocess.run([path, "--help"], cwd=tmp, capture_output=True, text=True, timeout=30,
                                 stdin=subprocess.DEVNULL)
            if run.returncode != 0 or not run.stdout.strip():
                errors.append(f"{rel} --help: exit {run.returncode}, {len(run.stdout)} characters: {run.stderr.strip()[-300:]}")
            if os.listdir(tmp):
                errors.append(f"{rel} --help wrote {sorted(os.listdir(tmp))}: it did work")
        elif name.endswith(".c"):
            cc = shutil.which("cc") or shutil.which("gcc")
            run = subprocess.run([cc, "-fsyntax-only", "-std=c11", path], capture_output=True, text=True, timeout=60)
            if run.returncode != 0:
                errors.append(f"{rel}: does not compile: {run.stderr.strip()[-300:]}")
        else:
            errors.append(f"{rel}: not a kind this check can run (*.sh, *.py, *.c, *.gp)")
            continue
        ran += 1
for e in errors:
    print("error:", e)
print(f"{len(paths)} files under scripts/, {ran} run, {len(errors)} errors")
sys.exit(1 if errors else 0)

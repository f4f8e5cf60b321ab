#!/usr/bin/env python3
"""The docs say what the program does:
- the README's options table lists the options `d2q9-bgk --help` prints, in its order;
- docs/running.md's sample of what a run prints has the lines (the keys before
  each ':') a real run prints, in order;
- the README's `scripts/` row names every file under scripts/ (as `folder/name`).
Usage: check_docs.py D2Q9_BGK SOURCE_DIR
"""
import os
import re
import subprocess
import sys
import tempfile

exe, source = sys.argv[1:3]
errors = []


def readme():
    with open(os.path.join(source, "README.md")) as f:
        return f.read()


# Options: --help's long names against the README table's first cells.
help_text = subprocess.run([exe, "--help"], capture_output=True, text=True, check=True).stdout
helped = [m.group(1) for m in re.finditer(r"^  (?:-\w \[ )?(--[\w-]+)", help_text, re.M)]
section = readme().split("## Options", 1)[1].split("\n## ", 1)[0]
documented = [re.search(r"`(--[\w-]+)", row).group(1)
              for row in section.splitlines() if row.startswith("| `-")]
if not helped:
    errors.append("--help listed no options")
if helped != documented:
    errors.append(f"README's options table {documented} is not --help's list {helped}")

# A run's printed lines against docs/running.md's sample.
with open(os.path.join(source, "docs", "running.md")) as f:
    running = f.read()
block = running.split("## What a run prints", 1)[1]
sample = []
for line in block.split("\n\n", 3)[2].splitlines():  # the indented block after the first paragraph
    if not line.startswith("    "):
        break
    sample.append(line[4:])
keys = lambda lines: [l.split(":", 1)[0] if ":" in l else l for l in lines if l.strip()]
with tempfile.TemporaryDirectory() as tmp:
    params, obstacles = os.path.join(tmp, "p.params"), os.path.join(tmp, "o.dat")
    with open(params, "w") as f:
        f.write("32 16 20 10 0.1 0.005 1.85\n")  # nx ny steps reynolds_dim density accel omega
    with open(obstacles, "w") as f:
        f.write("".join(f"{x} 0 1\n" for x in range(32)))
    run = subprocess.run([exe, params, obstacles, "--no-png", "-o", os.path.join(tmp, "out")],
                         capture_output=True, text=True)
if run.returncode != 0:
    errors.append(f"the run failed ({run.returncode}): {run.stderr.strip()}")
elif keys(sample) != keys(run.stdout.splitlines()):
    errors.append(f"docs/running.md's sample prints {keys(sample)}, a run prints {keys(run.stdout.splitlines())}")
device = [l for l in sample if l.startswith("Device:")]
if not device or not re.search(r"\((opencl|cuda), \w+, local size \d+x\d+, [\w-]+\)$", device[0]):
    errors.append("docs/running.md's Device: line lacks the backend, precision, local size and variant a run prints")

# Every script, named in the README's layout row.
row = next((l for l in readme().splitlines() if l.startswith("| `scripts/` |")), "")
scripts = os.path.join(source, "scripts")
for name in sorted(os.path.relpath(os.path.join(d, f), scripts) for d, _, fs in os.walk(scripts) for f in fs):
    if f"`{name}`" not in row:
        errors.append(f"scripts/{name} is not named in the README's `scripts/` row (as `{name}`)")

for e in errors:
    print("error:", e)
print(f"{len(helped)} options, {len(sample)} sample lines, {len(errors)} errors")
sys.exit(1 if errors else 0)

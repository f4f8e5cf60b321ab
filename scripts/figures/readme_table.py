#!/usr/bin/env python3
"""The README's one performance table, made from one results/ folder.

A figures folder (what scripts/device/current_figures.sh writes on a GPU machine) holds:
  call.txt        `key: value` lines: command (the exact command line), commit,
                  date (YYYY-MM-DD); the device and backends come from the data
  coursework.csv  scripts/device/coursework_old_new.sh's lines: problem, backend,
                  old|new, round (0: the first run, empty kernel cache), wall
                  seconds, loop seconds, md5 prefixes, the Launch: line
  bench_*.json    d2q9-bench's JSON (anywhere below the folder): the 8192^2
                  box of each precision and backend, from the run of the
                  GPUs' default launch (auto, else blocked)

Usage (repository root):
  scripts/figures/readme_table.py results/DEVICE/FOLDER      print the table
  scripts/figures/readme_table.py --write results/DEVICE/FOLDER
        put it into README.md and docs/performance.md, between their
        `<!-- readme_table.py FOLDER -->` and `<!-- end readme_table.py -->` lines
  scripts/figures/readme_table.py --check [FILE ...]
        exit 1 when a file's table differs from what its named folder gives
        (default files: README.md docs/performance.md)
"""
import argparse
import csv
import difflib
import glob
import json
import os
import re
import statistics
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DOCS = ["README.md", "docs/performance.md"]
BEGIN = re.compile(r"^<!-- readme_table\.py (\S+) -->$")
END = "<!-- end readme_table.py -->"
PROBLEMS = ["128x128", "128x256", "256x256", "1024x1024"]
PRECISIONS = ["float", "fp16s", "fp16c", "double"]
BOX = "box_8192"
BACKENDS = [("cuda", "CUDA"), ("opencl", "OpenCL")]


class FolderError(Exception):
    pass


def read_call(folder):
    path = os.path.join(folder, "call.txt")
    if not os.path.isfile(path):
        raise FolderError(f"{path} is missing (command, commit and date of the device call)")
    call = {}
    with open(path) as f:
        for line in f:
            key, sep, value = line.partition(":")
            if sep and key.strip() and not line.startswith("#"):
                call.setdefault(key.strip(), value.strip())
    for key in ("command", "commit", "date"):
        if not call.get(key):
            raise FolderError(f"{path} has no '{key}:' line")
    return call


def problem_steps(problem):
    # The params file's first line: nx ny steps ...
    with open(os.path.join(ROOT, "inputs", f"input_{problem}.params")) as f:
        return int(f.read().split()[2])


def read_coursework(folder):
    """{(problem, backend): {"first": [wall], "warm": [wall], "loop": [loop]}} of the new build."""
    path = os.path.join(folder, "coursework.csv")
    if not os.path.isfile(path):
        raise FolderError(f"{path} is missing")
    runs = {}
    with open(path, newline="") as f:
        for row in csv.reader(f):
            if len(row) < 6 or row[2] != "new":
                continue
            problem, backend, _, round_, wall, loop = row[:6]
            r = runs.setdefault((problem, backend), {"first": [], "warm": [], "loop": []})
            if round_ == "0":
                r["first"].append(float(wall))
            else:
                r["warm"].append(float(wall))
                r["loop"].append(float(loop))
    return runs


def read_boxes(folder):
    """{(backend, precision): (GLUPS, one-pass cap GLUPS)}, plus the device and drivers."""
    boxes, devices, drivers = {}, set(), {}
    files = sorted(glob.glob(os.path.join(folder, "**", "bench_*.json"), recursive=True))
    # auto runs are the default launch; blocked is what auto runs on GPUs.
    for wanted in ("auto", "blocked"):
        for path in files:
            with open(path) as f:
                bench = json.load(f)
            if bench.get("kernel_variant") != wanted:
                continue
            backend = bench["backend"]
            for case in bench["cases"]:
                key = (backend, case["precision"])
                if case["case"] != BOX or key in boxes or case.get("skipped"):
                    continue
                cap = bench["copy_bandwidth_gbs"] / case["bytes_per_cell_update"]
                boxes[key] = (case["mlups"] / 1000.0, cap)
                devices.add(bench["device"])
                drivers[backend] = bench["driver"]
    if not boxes:
        raise FolderError(f"no d2q9-bench JSON of an auto or blocked run with {BOX} below {folder}")
    return boxes, devices, drivers


def three(x):
    """Three significant digits, trailing zeros kept (0.0840, 1.00)."""
    return f"{x:#.3g}"


def table(folder, doc_dir=ROOT):
    """The block's lines; its link is relative to doc_dir, the folder of the file it goes in."""
    link = os.path.relpath(os.path.abspath(folder), doc_dir)
    rel = os.path.relpath(os.path.abspath(folder), ROOT)
    call = read_call(folder)
    runs = read_coursework(folder)
    boxes, devices, drivers = read_boxes(folder)
    backends = [(b, name) for b, name in BACKENDS if any(k[0] == b for k in runs) or any(k[0] == b for k in boxes)]
    driver_text = "; ".join(f"{name}: {drivers[b]}" for b, name in backends if b in drivers)
    lines = [
        f"{' and '.join(sorted(devices))} ({driver_text}), commit {call['commit']}, {call['date']}:",
        f"[`{rel}/`]({link}/) (`{call['command']}`).",
        "Coursework problems: default options, float, whole process (`date` around the command) and the step loop",
        "the program prints, medians of the warm runs; first run: the first with an empty kernel cache.",
        f"{BOX.replace('box_', '')}^2 closed box: `d2q9-bench`, the default launch, GLUPS (10^9 cell updates a second)",
        "and how many times one pass over memory allows (copy bandwidth measured in the same run / bytes an update).",
        "",
        "| case | " + " | ".join(name for _, name in backends) + " |",
        "| --- |" + " --- |" * len(backends),
    ]
    for problem in PROBLEMS:
        if not any((problem, b) in runs for b, _ in backends):
            continue
        steps = problem_steps(problem)
        warm, first = [], []
        for b, _ in backends:
            r = runs.get((problem, b))
            warm.append(f"{three(statistics.median(r['warm']))} / {three(statistics.median(r['loop']))} s"
                        if r and r["warm"] else "not measured")
            first.append(f"{three(statistics.median(r['first']))} s" if r and r["first"] else "not measured")
        lines.append(f"| {problem}, {steps} steps: warm run / step loop | " + " | ".join(warm) + " |")
        if any(f != "not measured" for f in first):
            lines.append(f"| {problem}: first run | " + " | ".join(first) + " |")
    for precision in PRECISIONS:
        cells = []
        for b, _ in backends:
            if (b, precision) in boxes:
                glups, cap = boxes[(b, precision)]
                cells.append(f"{glups:.1f} GLUPS ({glups / cap:.2f}x one pass)")
            else:
                cells.append("not measured")
        if any(c != "not measured" for c in cells):
            lines.append(f"| {BOX.replace('box_', '')}^2 box, {precision} | " + " | ".join(cells) + " |")
    if not any(runs.get((p, b), {}).get("first") for p in PROBLEMS for b, _ in backends):
        lines += ["", "First runs (empty kernel cache) are not recorded in this folder."]
    return lines


def blocks(text):
    """[(folder, first line index, end line index)] of the generated blocks in text's lines."""
    lines = text.split("\n")
    out, i = [], 0
    while i < len(lines):
        m = BEGIN.match(lines[i])
        if m:
            try:
                end = lines.index(END, i + 1)
            except ValueError:
                raise FolderError(f"line {i + 1}: no '{END}' after '{lines[i]}'")
            out.append((m.group(1), i, end))
            i = end
        i += 1
    return lines, out


def check(paths):
    ok = True
    for path in paths:
        with open(path) as f:
            lines, found = blocks(f.read())
        if not found:
            print(f"{path}: no '<!-- readme_table.py FOLDER -->' block")
            ok = False
        for folder, start, end in found:
            want = table(os.path.join(ROOT, folder), os.path.dirname(os.path.abspath(path)))
            have = lines[start + 1:end]
            if have != want:
                ok = False
                print(f"{path}: the table differs from what {folder} gives; regenerate with "
                      f"scripts/figures/readme_table.py --write {folder}")
                sys.stdout.writelines(l + "\n" for l in difflib.unified_diff(have, want, path, folder, lineterm=""))
    return ok


def write(folder, paths):
    rel = os.path.relpath(os.path.abspath(folder), ROOT)
    texts = {}
    for path in paths:  # every file has its block before any is written
        with open(path) as f:
            texts[path] = blocks(f.read())
        if not texts[path][1]:
            raise FolderError(f"{path}: no '<!-- readme_table.py FOLDER -->' block to replace")
    for path in paths:
        lines, found = texts[path]
        for _, start, end in reversed(found):
            lines[start:end] = [f"<!-- readme_table.py {rel} -->"] + table(folder, os.path.dirname(os.path.abspath(path)))
        with open(path, "w") as f:
            f.write("\n".join(lines))
        print(f"{path}: table from {rel}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--check", action="store_true", help="compare the files' tables with their folders")
    ap.add_argument("--write", action="store_true", help="write FOLDER's table into the files")
    ap.add_argument("args", nargs="*", help="FOLDER (print, --write) or FILEs (--check)")
    a = ap.parse_args()
    try:
        if a.check:
            return 0 if check(a.args or [os.path.join(ROOT, d) for d in DOCS]) else 1
        if len(a.args) != 1:
            ap.error("name one results folder")
        if a.write:
            write(a.args[0], [os.path.join(ROOT, d) for d in DOCS])
        else:
            print("\n".join(table(a.args[0])))
        return 0
    except FolderError as e:
        print(f"readme_table.py: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())

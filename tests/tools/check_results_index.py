#!/usr/bin/env python3
"""results/README.md indexes every folder under results/.

Every measurement folder has a row of the index table, | `X/Y/` | status |
what |: each folder results/X/, and each results/X/Y/ whose X/ has no
README.md of its own (a device folder that only groups measurements). A
folder with its own README (validation/, cpu-implementations/, each
measurement folder) describes what lies inside it. A row's status starts
with "current" or "superseded" (or is empty for a device folder), a
"superseded by `F/`" names a folder that exists, and every row names a
folder that exists. Superseded folders may lie under archive/, at the
path they had under results/ (archive/X/, archive/X/Y/): the same rules
hold there, and each archived folder's status starts with "superseded".
Usage: check_results_index.py RESULTS_DIR
"""
import os
import re
import sys

results = sys.argv[1]
with open(os.path.join(results, "README.md")) as f:
    index = f.read()
rows = {}
for line in index.splitlines():
    m = re.match(r"^\| `([^`]+/)` \|\s*([^|]*?)\s*\|\s*([^|]*?)\s*\|$", line)
    if m:
        rows[m.group(1)] = (m.group(2).strip(), m.group(3).strip())

errors = []
folders = []
for dirpath, dirnames, _ in os.walk(results):
    dirnames.sort()
    for d in dirnames:
        folders.append(os.path.relpath(os.path.join(dirpath, d), results) + "/")
for folder in folders:
    parts = folder.rstrip("/").split("/")
    archived = parts[0] == "archive" and len(parts) > 1
    base = os.path.join(results, "archive") if archived else results
    if archived:
        parts = parts[1:]  # archive/X/Y/ is indexed as X/Y/ would be
    if len(parts) > 2 or (len(parts) == 2 and os.path.isfile(os.path.join(base, parts[0], "README.md"))):
        continue  # described by the README of the folder above it
    if folder not in rows:
        errors.append(f"{folder}: no row in results/README.md's index")
        continue
    status, what = rows[folder]
    groups = any(other.startswith(folder) and other != folder for other in folders)
    if not what:
        errors.append(f"{folder}: the index says nothing of what it holds")
    if not (status.startswith("current") or status.startswith("superseded") or (groups and not status)):
        errors.append(f"{folder}: status '{status}' is neither current nor superseded")
    if archived and not (status.startswith("superseded") or (groups and not status)):
        errors.append(f"{folder}: under archive/, but its status '{status}' is not superseded")
    for named in re.findall(r"superseded by `([^`]+/)`", status):
        if not os.path.isdir(os.path.join(results, named)):
            errors.append(f"{folder}: superseded by {named}, which is not a folder of results/")
for row in rows:
    if not os.path.isdir(os.path.join(results, row)):
        errors.append(f"{row}: in the index, but not a folder of results/")
for e in errors:
    print("error:", e)
print(f"{len(folders)} folders under results/, {len(rows)} index rows, {len(errors)} errors")
sys.exit(1 if errors else 0)

#!/usr/bin/env python3
"""results/ is data: no file under it is a script or a program.

Fails on a file named *.sh, *.bash, *.py, *.c, *.cc, *.cpp, *.h, *.hpp, *.cl,
*.cu or *.gp, on one with an executable bit, and on one that starts with
"#!". A measurement folder keeps the command lines of its call as text
(its README, call.txt or commands.txt); the drivers live in scripts/.
Usage: check_results_data.py RESULTS_DIR
"""
import os
import stat
import sys

CODE = (".sh", ".bash", ".py", ".c", ".cc", ".cpp", ".h", ".hpp", ".cl", ".cu", ".gp")
results = sys.argv[1]
errors, count = [], 0
for dirpath, dirnames, filenames in os.walk(results):
    dirnames.sort()
    for name in sorted(filenames):
        path = os.path.join(dirpath, name)
        rel = os.path.relpath(path, results)
        count += 1
        if name.lower().endswith(CODE):
            errors.append(f"{rel}: a script or program (move it to scripts/, or keep its text in commands.txt)")
        elif os.stat(path).st_mode & (stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH):
            errors.append(f"{rel}: executable (results/ holds data: chmod -x, or move it to scripts/)")
        else:
            with open(path, "rb") as f:
                if f.read(2) == b"#!":
                    errors.append(f"{rel}: starts with #! (a script: move it to scripts/)")
for e in errors:
    print("error:", e)
print(f"{count} files under results/, {len(errors)} errors")
sys.exit(1 if errors else 0)

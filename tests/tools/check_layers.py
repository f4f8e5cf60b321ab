#!/usr/bin/env python3
"""No #include runs from a lower layer of host/ to a higher one.

Layers, bottom to top (docs/architecture.md): core, problem, io, device, the
backends (reference, opencl, cuda, mpi: none includes another), sim (the
library's Simulation and the registry of backends: with the layers below, the
library libd2q9), serve (the live view, host/serve/, built into libd2q9), app (the d2q9-bgk driver: command line, run, outputs) and
programs (each program's main). A file may include its own layer's headers
and any lower layer's.
Usage: check_layers.py HOST_DIR
"""
import os
import re
import sys

LEVEL = {"core": 0, "problem": 1, "io": 2, "device": 3,
         "reference": 4, "opencl": 4, "cuda": 4, "mpi": 4, "sim": 5, "serve": 6, "app": 7, "programs": 8}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"/]+)/[^"]+"', re.M)

host = sys.argv[1]
problems = []
files = 0
for layer in sorted(os.listdir(host)):
    path = os.path.join(host, layer)
    if not os.path.isdir(path):
        continue
    if layer not in LEVEL:
        problems.append(f"{path}: a folder of host/ that is in no layer (add it to {__file__} and docs/architecture.md)")
        continue
    for root, _, names in os.walk(path):
        for name in sorted(names):
            if not name.endswith((".cpp", ".hpp", ".h")):
                continue
            files += 1
            f = os.path.join(root, name)
            with open(f, encoding="utf-8") as text:
                for lineno, line in enumerate(text, 1):
                    m = INCLUDE.match(line)
                    if not m or m.group(1) not in LEVEL:
                        continue
                    target = m.group(1)
                    up = LEVEL[target] > LEVEL[layer]
                    sideways = LEVEL[target] == LEVEL[layer] and target != layer
                    if up or sideways:
                        problems.append(f"{f}:{lineno}: {layer}/ includes {target}/, a layer "
                                        f"{'above' if up else 'beside'} it")
for p in problems:
    print("error: " + p)
print(f"{files} files of host/ checked, {len(problems)} includes against the layers")
sys.exit(1 if problems or files == 0 else 0)

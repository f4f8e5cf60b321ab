#!/usr/bin/env python3
"""The headers the build stages and installs are the public API's alone.

cmake/stage_headers.cmake stages include/d2q9/*.hpp and every header of host/
they reach under d2q9/internal/; `cmake --install` copies that folder. What a
user's program sees is so a promise: this stages the headers afresh into a
temporary folder and fails where one of them comes from the device layer
(device/), a backend (reference/, opencl/, cuda/, mpi/), the driver (app/,
programs/), or is a header of sim/ or serve/ that is not on PUBLIC below
(docs/architecture.md#the-public-headers). A header that becomes public is
added to PUBLIC on purpose.
Usage: check_staged_headers.py CMAKE SOURCE_DIR
"""
import os
import subprocess
import sys
import tempfile

# The layers whose headers may be public (the problem model, files, core types).
OPEN_LAYERS = {"core", "problem", "io"}
# Of the library's own layers, the headers that are its public face.
PUBLIC = {"sim/simulation.hpp", "sim/measurements.hpp", "sim/steady.hpp", "serve/live_view.hpp"}

cmake, source = sys.argv[1], os.path.abspath(sys.argv[2])
with tempfile.TemporaryDirectory() as out:
    staged_dir = os.path.join(out, "d2q9")
    subprocess.run([cmake, f"-DPUBLIC_DIR={source}/include/d2q9", f"-DHOST_DIR={source}/host",
                    f"-DOUTPUT={staged_dir}", "-P", f"{source}/cmake/stage_headers.cmake"], check=True)
    internal = os.path.join(staged_dir, "internal")
    staged = sorted(os.path.relpath(os.path.join(root, name), internal)
                    for root, _, names in os.walk(internal) for name in names)
    public = sorted(name for name in os.listdir(staged_dir) if name.endswith(".hpp"))

print("public headers: " + " ".join(public))
print(f"staged under d2q9/internal/ ({len(staged)}): " + " ".join(staged))
problems = []
for header in staged:
    layer = header.split("/", 1)[0]
    if layer in OPEN_LAYERS or header in PUBLIC:
        continue
    problems.append(f"d2q9/internal/{header} is staged and installed, but {layer}/ is "
                    + ("the device layer" if layer == "device" else "not public there")
                    + ": a public header reaches it (drop that include, or move what it needs "
                    "below the device layer or into sim/simulation_internal.hpp)")
if not staged:
    problems.append("nothing was staged under d2q9/internal/: the staging or this check is broken")
for p in problems:
    print("error: " + p)
sys.exit(1 if problems else 0)

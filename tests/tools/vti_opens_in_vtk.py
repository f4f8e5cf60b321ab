#!/usr/bin/env python3
"""VTK's own reader (vtkXMLImageDataReader, as ParaView uses) opens the .vti
files a run writes (--vtk FILE.vti and a problem file's final_state.vti), in
float and in double: the grid's extent, each array's name and type, and the
values of final_state.dat to the type's precision.
Usage: vti_opens_in_vtk.py D2Q9_BGK. Fails, saying so, where Python's vtk
(Debian: python3-vtk9, scripts/setup/install-deps.sh) is not installed."""
import math
import os
import subprocess
import sys
import tempfile

try:
    import vtk
    from vtk.util.numpy_support import vtk_to_numpy
except ImportError:
    print("FAIL: Python's vtk is not installed (apt-get install python3-vtk9; scripts/setup/install-deps.sh)")
    sys.exit(1)

NX, NY = 40, 30
PROBLEM = f"""[grid]
nx = {NX}
ny = {NY}
[flow]
steps = 300
viscosity = 0.05
[edges]
left = {{ temperature = 0.5 }}
right = {{ temperature = -0.5 }}
bottom = "wall"
top = {{ wall_velocity = [0.05, 0.0] }}
[heat]
diffusivity = 0.05
gravity = [0.0, -1.0]
expansion = 1e-4
[[obstacle]]
rectangle = {{ from = [12, 8], to = [15, 20] }}
"""

failures = []


def check(what, ok):
    if not ok:
        failures.append(what)
        print("FAIL:", what)


def run(exe, folder, precision):
    problem = os.path.join(folder, "problem.toml")
    with open(problem, "w") as f:
        f.write(PROBLEM)
    out = os.path.join(folder, precision)
    subprocess.run([exe, problem, "-b", "reference", "-p", precision, "-q", "--no-png", "-o", out,
                    "--vtk", "final.vti", "--final-state", "both"], check=True)
    return out


def final_state(path):
    rows = {}
    with open(path) as f:
        for line in f:
            v = line.split()
            rows[(int(v[0]), int(v[1]))] = [float(x) for x in v[2:]]
    return rows


def compare(out, precision, file_name):
    precision = f"{precision} {file_name}"
    reader = vtk.vtkXMLImageDataReader()
    reader.SetFileName(os.path.join(out, file_name))
    reader.Update()
    image = reader.GetOutput()
    check(f"{precision}: dimensions {image.GetDimensions()}", image.GetDimensions() == (NX, NY, 1))
    data = image.GetPointData()
    want_type = vtk.VTK_DOUBLE if precision.startswith("double") else vtk.VTK_FLOAT
    arrays = {}
    for name in ("velocity", "density", "speed", "vorticity", "temperature", "obstacle"):
        a = data.GetArray(name)
        check(f"{precision}: array {name} present", a is not None)
        if a is None:
            continue
        expected = vtk.VTK_UNSIGNED_CHAR if name == "obstacle" else want_type
        check(f"{precision}: {name} of type {a.GetDataTypeAsString()}", a.GetDataType() == expected)
        check(f"{precision}: {name} has one tuple a cell", a.GetNumberOfTuples() == NX * NY)
        arrays[name] = vtk_to_numpy(a)
    if failures:
        return
    text = final_state(os.path.join(out, "final_state.dat"))
    tol = 1e-12 if precision.startswith("double") else 2e-6
    worst = 0.0
    fluid = 0
    for (ii, jj), (ux, uy, speed, pressure, obstacle, temperature) in text.items():
        p = ii + jj * NX  # VTK's point order: x fastest
        check(f"{precision}: obstacle at {ii},{jj}", int(arrays["obstacle"][p]) == int(obstacle))
        if obstacle:
            continue
        fluid += 1
        pairs = [(arrays["velocity"][p][0], ux), (arrays["velocity"][p][1], uy), (arrays["speed"][p], speed),
                 (arrays["density"][p], 3.0 * pressure), (arrays["temperature"][p], temperature)]
        for got, want in pairs:
            worst = max(worst, abs(got - want) / max(abs(want), 1e-3))
    check(f"{precision}: {fluid} fluid cells compared", fluid > NX * NY // 2)
    check(f"{precision}: largest relative difference {worst:.3g} within {tol}", worst <= tol)
    moving = max(abs(v) for v in arrays["speed"])
    check(f"{precision}: the flow moves ({moving:.3g})", moving > 1e-3)
    print(f"{precision}: {fluid} fluid cells, largest relative difference {worst:.3g} (tolerance {tol})")


def main():
    exe = sys.argv[1]
    with tempfile.TemporaryDirectory() as folder:
        for precision in ("float", "double"):
            out = run(exe, folder, precision)
            for name in ("final.vti", "final_state.vti"):
                compare(out, precision, name)
    if failures:
        sys.exit(1)
    print("PASS: VTK's reader opens the .vti files")


if __name__ == "__main__":
    main()

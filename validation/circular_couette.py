#!/usr/bin/env python3
"""Circular Couette flow: a turning cylinder inside a fixed ring, against the analytic profile.

An inner cylinder of radius r1 turns about its centre with surface speed U
(angular_velocity = U / r1; U = 0.02 at r1 = 4 and halved with each halving
of the cell, so that the lattice's compressibility error, ~ U^2, falls as
the grid's does); an outer ring of radius r2 = 2.5 r1 stands
still (a circle with fill = "outside": every cell beyond it is wall). Both
walls are boundary = "interpolated" (docs/curved-walls.md), the moving one
with its momentum where each link meets it. The steady azimuthal velocity is

    u_theta(r) = A r + B / r,   A = -w r1^2 / (r2^2 - r1^2),   B = w r1^2 r2^2 / (r2^2 - r1^2)

The check is the relative L2 error of u_theta over the fluid cells (divided
by U) on three grids, r1 = 4, 8, 16 (--quick: 4, 8), and its observed order
of convergence: at least 1.8 (second order). Omega 1 (viscosity 1/6), run
for 5 viscous times (r2 - r1)^2 / nu.
"""

import math
import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402


def run_grid(args, r1):
    r2 = 2.5 * r1
    n = int(2 * r2) + 4
    c = 0.5 * (n - 1)
    nu = (1.0 / args.omega - 0.5) / 3.0
    speed = args.speed * 4.0 / r1  # diffusive scaling: Mach^2 falls with h^2, as the grid's error does
    w = speed / r1
    steps = int(math.ceil(args.viscous_times * (r2 - r1) ** 2 / nu))
    tables = {
        "grid": {"nx": n, "ny": n},
        "flow": {"steps": steps, "density": 1.0, "omega": args.omega, "accel": 0.0},
        "obstacle": [
            {"boundary": "interpolated", "angular_velocity": w, "circle": {"center": [c, c], "radius": r1}},
            {"boundary": "interpolated", "circle": {"center": [c, c], "radius": r2, "fill": "outside"}},
        ],
    }
    run_dir = os.path.join(args.out, "r%d" % r1)
    run = common.run_solver(args, run_dir, tables, "Circular Couette, r1 = %g (written by validation/circular_couette.py)" % r1)
    field = common.read_final_state(run_dir, n, n)
    a = -w * r1 * r1 / (r2 * r2 - r1 * r1)
    b = w * r1 * r1 * r2 * r2 / (r2 * r2 - r1 * r1)
    squares, cells, profile = 0.0, 0, []
    for j in range(n):
        for i in range(n):
            if field.obstacle[j][i]:
                continue
            x, y = i - c, j - c
            r = math.hypot(x, y)
            theta = (-field.ux[j][i] * y + field.uy[j][i] * x) / r
            exact = a * r + b / r
            squares += (theta - exact) ** 2
            cells += 1
            if j == int(c) and i > c:  # one radius, for the plot
                profile.append((r, theta / speed, exact / speed))
    error = math.sqrt(squares / cells) / speed
    print("r1 = %d: %dx%d, %d steps, L2(u_theta - exact) / U = %.4e" % (r1, n, n, steps, error))
    return {"r1": r1, "r2": r2, "n": n, "steps": steps, "surface_speed": speed, "l2_over_U": error, "command": run["command"],
            "seconds": run["seconds"], "profile": profile}


def main():
    parser = common.make_parser("circular_couette", __doc__.splitlines()[0], precision="double")
    parser.add_argument("--omega", type=float, default=1.0, help="BGK relaxation rate (default 1.0)")
    parser.add_argument("--speed", type=float, default=0.02, help="the inner cylinder's surface speed U at r1 = 4, U * 4 / r1 on finer grids (default 0.02)")
    parser.add_argument("--viscous-times", type=float, default=5.0,
                        help="steps = this * (r2 - r1)^2 / nu, rounded up (default 5)")
    parser.add_argument("--min-order", type=float, default=1.8, help="least observed order (default 1.8)")
    args = common.parse_args(parser)
    os.makedirs(args.out, exist_ok=True)
    radii = [4, 8] if args.quick else [4, 8, 16]
    grids = [run_grid(args, r1) for r1 in radii]
    order = common.observed_order([g["r1"] for g in grids], [g["l2_over_U"] for g in grids])
    print("observed order: %.3f" % order)
    common.write_csv(os.path.join(args.out, "circular_couette.csv"), ["r1", "n", "steps", "l2_over_U"],
                     [(g["r1"], g["n"], g["steps"], g["l2_over_U"]) for g in grids])
    finest = grids[-1]
    common.write_csv(os.path.join(args.out, "profile.csv"), ["r", "u_theta_over_U", "exact_over_U"], finest["profile"])
    body = """set title "Circular Couette flow, r1 = {r1}, r2 = 2.5 r1"
set xlabel "r (cells)"
set ylabel "u_theta / U"
plot "profile.csv" using 1:2 with linespoints lw 2 title "d2q9-bgk", \\
     "profile.csv" using 1:3 with lines dt 2 lc rgb "black" title "A r + B / r"
""".format(r1=finest["r1"])
    common.run_gnuplot(common.write_gnuplot(args.out, "circular_couette", body))
    summary = common.base_summary(args, common.find_exe(args.exe), {
        "omega": args.omega, "surface_speed_at_r1_4": args.speed, "order": order,
        "grids": [{k: v for k, v in g.items() if k != "profile"} for g in grids]})
    checks = []
    common.check(checks, "observed_order", order, args.min_order, kind="min")
    common.check(checks, "finest_l2_over_U", finest["l2_over_U"], 0.01)
    common.finish(args, summary, checks)


if __name__ == "__main__":
    common.main(main)

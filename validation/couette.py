#!/usr/bin/env python3
"""Plane Couette flow: a sliding top wall against the analytic linear profile.

The grid is periodic in x (nx columns, 4 by default) with a static wall in
row 0 and a wall moving at wall_velocity [U, 0] in row ny-1 (bounce-back
with the wall's momentum). Both walls lie half a cell inside their rows, at
y = 0.5 and y = ny - 1.5, so the channel is h = ny - 2 cells wide and the
steady profile is

    u(y) = U * (y - 0.5) / h                                  (cell centres y = j)

The measured profile is the column average of ux in each fluid row; the
check is the largest |u - u_exact| over the fluid rows, divided by U.

Full run: h = 64; --quick: h = 16. Target: largest deviation <= 0.5% of U;
--quick: <= 1e-4 of U (measured 3.5e-5: as tight as the grid allows).
"""

import math
import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402


def main():
    parser = common.make_parser("couette", __doc__.splitlines()[0])
    parser.add_argument("--h", type=int, default=None, help="channel width in cells (default 64; --quick: 16)")
    parser.add_argument("--nx", type=int, default=4, help="columns (default 4)")
    parser.add_argument("--omega", type=float, default=1.0, help="BGK relaxation rate (default 1.0)")
    parser.add_argument("--lid", type=float, default=0.05, help="the top wall's speed U (default 0.05)")
    parser.add_argument("--viscous-times", type=float, default=1.5,
                        help="steps = this * h^2 / nu, rounded up (default 1.5)")
    parser.add_argument("--tolerance", type=float, default=None,
                        help="largest allowed deviation / U (default 0.005; --quick: 1e-4, measured 3.5e-5)")
    args = common.parse_args(parser)
    h = args.h or (16 if args.quick else 64)
    if args.tolerance is None:
        args.tolerance = 1e-4 if args.quick else 0.005
    if h < 2:
        raise common.RunError("--h must be at least 2")
    exe = common.find_exe(args.exe)
    os.makedirs(args.out, exist_ok=True)

    rho = 1.0
    nu = (1.0 / args.omega - 0.5) / 3.0
    ny = h + 2
    steps = int(math.ceil(args.viscous_times * h * h / nu))
    tables = {
        "grid": {"nx": args.nx, "ny": ny},
        "flow": {"steps": steps, "density": rho, "omega": args.omega},
        "edges": {"bottom": "wall", "top": {"wall_velocity": [args.lid, 0.0]}},
    }
    run_dir = os.path.join(args.out, "h%d" % h)
    run, field, ys, ours, exact, drift = common.channel_profile(
        args, run_dir, tables, "Couette validation, h = %d (written by validation/couette.py)" % h,
        lambda j: args.lid * (j - 0.5) / h)
    max_dev = common.max_abs_diff(ours, exact) / args.lid
    worst = max(range(len(ys)), key=lambda k: abs(ours[k] - exact[k]))
    l2 = common.rel_l2(ours, exact)
    uy_max = max(abs(common.row_average(field, "y", j)) for j in range(1, ny - 1)) / args.lid
    print("h = %d: ny = %d, steps = %d, max |u - exact| / U = %.4e (row %d), relative L2 = %.4e, max |v| / U = %.2e"
          % (h, ny, steps, max_dev, int(ys[worst]), l2, uy_max))

    common.write_csv(os.path.join(args.out, "couette.csv"), ["y_over_h", "u_over_U", "exact_over_U"],
                     [((y - 0.5) / h, u / args.lid, e / args.lid) for y, u, e in zip(ys, ours, exact)])
    # The analytic points every few rows, so the symbols stay apart.
    every = max(1, h // 16)
    body = """set title "Couette flow, h = {h}, omega = {omega}, U = {lid}"
set xlabel "u / U"
set ylabel "(y - 0.5) / h"
set key top left
plot "couette.csv" using 2:1 with lines lw 2 title "d2q9-bgk", \\
     "couette.csv" every {every} using 3:1 with points pt 6 ps 1.2 lc rgb "black" title "analytic"
""".format(h=h, omega=args.omega, lid=args.lid, every=every)
    common.run_gnuplot(common.write_gnuplot(args.out, "couette", body))

    summary = common.base_summary(args, exe, {
        "h": h, "nx": args.nx, "ny": ny, "steps": steps, "omega": args.omega, "viscosity": nu, "density": rho,
        "lid_velocity": args.lid,
        "wall_position": "half a cell inside rows 0 and ny-1: y = 0.5 and y = ny - 1.5, h = ny - 2",
        "max_deviation_over_U": max_dev, "worst_row": int(ys[worst]), "relative_l2": l2,
        "max_abs_v_over_U": uy_max, "steady_drift": drift,
        "command": run["command"], "seconds": run["seconds"]})
    checks = []
    common.check(checks, "max_deviation_over_U", max_dev, args.tolerance)
    common.finish(args, summary, checks)


if __name__ == "__main__":
    common.main(main)

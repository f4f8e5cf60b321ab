#!/usr/bin/env python3
"""Plane Poiseuille flow: a body-force-driven channel against the analytic parabola.

The grid is periodic in x (nx columns, 4 by default: the flow is the same in
every column) with static walls in rows 0 and ny-1. Half-way bounce-back puts
the walls half a cell inside those rows, at y = 0.5 and y = ny - 1.5, so the
channel is h = ny - 2 cells wide, and the steady profile of a uniform force F
(Guo forcing, no pressure gradient) is

    u(y) = F / (2 rho nu) * (y - 0.5) * (ny - 1.5 - y)        (cell centres y = j)

with peak u_max = F h^2 / (8 rho nu) on the centre line. For each h the force
is F = 8 rho nu u_max / h^2, so u_max (and the Mach number) stays fixed while
the grid is refined. The measured profile is the column average of ux in each
fluid row; the error is the relative L2 norm over the fluid rows, and the
observed order is the least-squares slope of log(error) against log(h).

Full run: h = 16, 32, 64, 128 at omega = 1; targets: L2 <= 1% at h = 64 and an
order within 0.2 of 2. --quick: h = 16 and 32; L2 <= 6e-4 at h = 32 and an
order within 0.1 of 2 (measured 4.45e-4 and 2.0008: as tight as these grids
allow, so that a 2% error in the viscosity or the force fails).
"""

import math
import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402


def main():
    parser = common.make_parser("poiseuille", __doc__.splitlines()[0], precision="double")
    parser.add_argument("--h", default=None,
                        help="comma-separated channel widths (default 16,32,64,128; --quick: 16,32)")
    parser.add_argument("--nx", type=int, default=4, help="columns (default 4)")
    parser.add_argument("--omega", type=float, default=1.0, help="BGK relaxation rate (default 1.0)")
    parser.add_argument("--umax", type=float, default=0.02, help="peak velocity of the analytic profile (default 0.02)")
    parser.add_argument("--viscous-times", type=float, default=1.5,
                        help="steps = this * h^2 / nu, rounded up (default 1.5: the slowest transient "
                             "exp(-pi^2 nu t / h^2) has decayed below 4e-7)")
    args = common.parse_args(parser)
    hs = [int(x) for x in (args.h or ("16,32" if args.quick else "16,32,64,128")).split(",")]
    if len(hs) < 2 or any(h < 2 for h in hs):
        raise common.RunError("--h needs at least two widths of 2 or more")
    hs = sorted(set(hs))
    exe = common.find_exe(args.exe)
    os.makedirs(args.out, exist_ok=True)

    rho = 1.0
    nu = (1.0 / args.omega - 0.5) / 3.0
    results = []
    for h in hs:
        ny = h + 2
        force = 8.0 * rho * nu * args.umax / (h * h)
        steps = int(math.ceil(args.viscous_times * h * h / nu))
        run_dir = os.path.join(args.out, "h%d" % h)
        tables = {
            "grid": {"nx": args.nx, "ny": ny},
            "flow": {"steps": steps, "density": rho, "omega": args.omega, "body_force": [force, 0.0]},
            "edges": {"bottom": "wall", "top": "wall"},
        }
        run, _, ys, ours, exact, drift = common.channel_profile(
            args, run_dir, tables, "Poiseuille validation, h = %d (written by validation/poiseuille.py)" % h,
            lambda j: force / (2.0 * rho * nu) * (j - 0.5) * (ny - 1.5 - j))
        err = common.rel_l2(ours, exact)
        max_err = common.max_abs_diff(ours, exact) / args.umax
        # Bounce-back's error here is a uniform shift of the parabola; in units of F.
        offset = sum(u - e for u, e in zip(ours, exact)) / len(ours) / force
        results.append({"h": h, "nx": args.nx, "ny": ny, "steps": steps, "body_force": force,
                        "l2_error": err, "max_error_over_umax": max_err, "offset_over_F": offset,
                        "centre_velocity": max(ours), "steady_drift": drift,
                        "command": run["command"], "seconds": run["seconds"]})
        print("h = %4d: ny = %d, steps = %d, F = %.6g, relative L2 error = %.4e, max |u - exact| / u_max = %.4e"
              % (h, ny, steps, force, err, max_err), flush=True)
        common.write_csv(os.path.join(args.out, "poiseuille_h%d.csv" % h),
                         ["y_over_h", "u_over_umax", "exact_over_umax"],
                         [((y - 0.5) / h, u / args.umax, e / args.umax) for y, u, e in zip(ys, ours, exact)])

    order = common.observed_order([r["h"] for r in results], [r["l2_error"] for r in results])
    pair_orders = []
    for a, b in zip(results, results[1:]):
        pair_orders.append({"h": [a["h"], b["h"]],
                            "order": math.log(a["l2_error"] / b["l2_error"]) / math.log(b["h"] / a["h"])})
    common.write_csv(os.path.join(args.out, "poiseuille_convergence.csv"),
                     ["h", "steps", "l2_error", "max_error_over_umax"],
                     [(r["h"], r["steps"], r["l2_error"], r["max_error_over_umax"]) for r in results])
    print("observed order (least squares over h = %s): %.3f" % (",".join(str(h) for h in hs), order))
    # Half-way bounce-back with Guo forcing shifts the BGK Poiseuille profile by
    # F (16 (tau - 1/2)^2 - 3) / (8 (tau - 1/2)) (rho = 1): 0.25 F at omega = 1,
    # none at tau = 1/2 + sqrt(3/16). Reported, not checked (see README.md).
    t = 1.0 / args.omega - 0.5
    expected_offset = (16.0 * t * t - 3.0) / (8.0 * t)
    print("profile offset (mean of u - exact) / F: %s; half-way bounce-back with Guo forcing gives %.4f"
          % (", ".join("%.4f (h=%d)" % (r["offset_over_F"], r["h"]) for r in results), expected_offset))

    # Plot: the profiles (lines) over the analytic values at the coarsest grid's
    # cell centres (symbols), and the error against h with a slope -2 guide.
    lines = ", \\\n     ".join('"poiseuille_h%d.csv" using 2:1 with lines lw 2 title "d2q9-bgk, h = %d"' % (h, h)
                               for h in hs)
    e0, h0 = results[0]["l2_error"], results[0]["h"]
    body = """set multiplot layout 1,2 title "Poiseuille flow, omega = {omega}, u_max = {umax}"
set xlabel "u / u_max"
set ylabel "(y - 0.5) / h"
set key center left
plot {lines}, \\
     "poiseuille_h{h0}.csv" using 3:1 with points pt 6 ps 1.2 lc rgb "black" title "analytic (h = {h0})"
set logscale xy
set xlabel "h (cells)"
set ylabel "relative L2 error"
set key top right
plot "poiseuille_convergence.csv" using 1:3 with linespoints pt 7 lw 2 title "d2q9-bgk (order {order:.2f})", \\
     {e0!r} * ({h0}.0 / x)**2 with lines dt 2 lc rgb "gray" title "slope -2"
unset multiplot
""".format(omega=args.omega, umax=args.umax, lines=lines, h0=h0, order=order, e0=e0)
    gp = common.write_gnuplot(args.out, "poiseuille", body, width=1100, height=500)
    common.run_gnuplot(gp)

    summary = common.base_summary(args, exe, {
        "omega": args.omega, "viscosity": nu, "density": rho, "umax": args.umax, "nx": args.nx,
        "wall_position": "half a cell inside rows 0 and ny-1: y = 0.5 and y = ny - 1.5, h = ny - 2",
        "runs": results, "order": order, "pair_orders": pair_orders,
        "expected_offset_over_F": expected_offset})
    checks = []
    if args.quick:
        target_h = 32 if 32 in hs else hs[-1]
        # As tight as the grids allow: measured 4.454e-4 and 2.0008 (omega 1, double).
        common.check(checks, "l2_error(h=%d)" % target_h, next(r["l2_error"] for r in results if r["h"] == target_h),
                     6e-4)
        common.check(checks, "order", order, 1.9, "min")
        common.check(checks, "order", order, 2.1, "max")
    else:
        target_h = 64 if 64 in hs else hs[-1]
        common.check(checks, "l2_error(h=%d)" % target_h, next(r["l2_error"] for r in results if r["h"] == target_h),
                     0.01)
        common.check(checks, "order", order, 1.8, "min")
        common.check(checks, "order", order, 2.2, "max")
    common.finish(args, summary, checks)


if __name__ == "__main__":
    common.main(main)

#!/usr/bin/env python3
"""Onset of Rayleigh-Benard convection between plates: the critical Rayleigh number 1708 from Nu(Ra).

Geometry. Plates in rows 0 and ny-1, the bottom hot (`bottom = { temperature
= 0.5 }`), the top cold (`top = { temperature = -0.5 }`); left and right
periodic. Anti-bounce-back puts each plate's surface half a cell inside its
row, so the layer is H = ny - 2 cells deep. The domain is nx = round(2.016 H)
cells wide: one critical wavelength lambda_c = 2 pi / 3.117 H = 2.016 H, one
pair of rolls. Gravity down, [heat] rayleigh = Ra with length = H and
temperature_difference = 1, prandtl = 0.71; the viscosity keeps the
buoyancy velocity nu sqrt(Ra / Pr) / H at --u (default 0.1).

Seed. A periodic layer started uniform stays exactly uniform in x (every
column does the same arithmetic), so convection needs a seed the problem
file can hold: the left half of the bottom row is an obstacle held at
0.5 + delta instead of 0.5 (delta = 1e-5 by default, --seed), a step in the
plate's temperature whose first Fourier mode is the rolls'. It is an
imperfection of the bifurcation of relative size delta: measured at H = 16,
Ra 1800, Nu - 1 changed by 3e-5 from delta 1e-6 to 1e-5 (0.04%) and by 3e-4
to 1e-4. (A tilted gravity is no seed here: in a periodic layer its
horizontal part only drives a shear flow, uniform in x.) The heat is
measured on the top plate, which is uniform: Nu = -Nu(top).

Method. The onset is a supercritical pitchfork: below Ra_c the layer
conducts (Nu = 1 exactly), above it Nu - 1 grows linearly in
epsilon = (Ra - Ra_c) / Ra_c at first, with a negative curvature that is
already large at epsilon = 0.2 (measured: a straight line through
Ra = 1800..2600 meets Nu = 1 at 1621, 5% low). So each run goes until steady
(--until-steady, default 1e-7; double precision) at Ra = --ra-list (default
1800, 2000, 2200, 2400, above the onset), a parabola is fitted to Nu - 1
against Ra by least squares, and its root nearest 1708 is Ra_c. A run
below the onset (--below, default 1500) checks conduction: |Nu - 1| <= 1e-3.
The straight line through the two lowest Ra is reported too.

Reference. The linear stability of a layer between rigid, isothermal plates:
Ra_c = 1707.76, wavenumber a_c = 3.117 / H (Pellew & Southwell, Proc. R.
Soc. Lond. A 176 (1940) 312-343; Reid & Harris, Phys. Fluids 1 (1958)
102-110; S. Chandrasekhar, Hydrodynamic and Hydromagnetic Stability, 1961,
Ch. II, Table III: 1707.762 at a = 3.117).

Checks. |Ra_c - 1707.76| / 1707.76 <= 3%; |Nu - 1| <= 1e-3 below the
onset; every run reached steady; Nu above the onset increasing with Ra; the
energy balance |Nu(bottom) - Nu(top)| / Nu(top) <= 1e-3 (the bottom plate's
two parts' heat over all its faces).

Full run (default): H = 32 (65 x 34 cells). --quick: H = 16 (32 x 18), about
25 s on PoCL (2 shared cores): measured Ra_c 1694 (-0.8%), Nu(1500) = 1 to
5e-6; checked within the same 3%.
"""

import argparse
import json
import math
import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402

RA_C = 1707.76        # rigid-rigid plates, a_c = 3.117 (Chandrasekhar 1961, Ch. II)
WAVELENGTH = 2.016    # 2 pi / 3.117, in units of H
PRANDTL = 0.71
RA_C_TOL = 0.03
CONDUCTION_TOL = 1e-3
BALANCE_TOL = 1e-3
CITATION = ("Ra_c = 1707.76 at a_c = 3.117 for rigid isothermal plates: Pellew & Southwell, Proc. R. Soc. Lond. A "
            "176 (1940) 312-343; Reid & Harris, Phys. Fluids 1 (1958) 102-110; S. Chandrasekhar, Hydrodynamic and "
            "Hydromagnetic Stability (1961), Ch. II")


def quadratic_fit(xs, ys):
    """Least-squares y = c0 + c1 s + c2 s^2 with s = (x - RA_C) / 1000; returns (c0, c1, c2)."""
    s = [(x - RA_C) / 1000.0 for x in xs]
    a = [[sum(t ** (i + j) for t in s) for j in range(3)] + [sum(y * t ** i for t, y in zip(s, ys))]
         for i in range(3)]
    for i in range(3):
        for k in range(i + 1, 3):
            f = a[k][i] / a[i][i]
            a[k] = [p - f * q for p, q in zip(a[k], a[i])]
    c = [0.0] * 3
    for i in reversed(range(3)):
        c[i] = (a[i][3] - sum(a[i][j] * c[j] for j in range(i + 1, 3))) / a[i][i]
    return c


def quadratic_root(c):
    """The root of the fitted parabola nearest RA_C, as a Rayleigh number (nan when it has none)."""
    c0, c1, c2 = c
    if abs(c2) < 1e-14:
        return RA_C - 1000.0 * c0 / c1 if c1 != 0.0 else float("nan")
    disc = c1 * c1 - 4.0 * c2 * c0
    if disc < 0:
        return float("nan")
    roots = [(-c1 + sg * math.sqrt(disc)) / (2.0 * c2) for sg in (1.0, -1.0)]
    return RA_C + 1000.0 * min(roots, key=abs)


def run_case(args, ra, H, out_dir):
    nx, ny = int(round(WAVELENGTH * H)), H + 2
    nu = args.u * H / math.sqrt(ra / PRANDTL)
    alpha = nu / PRANDTL
    steps = int(math.ceil(args.diffusive_times * H * H / alpha))
    print("Rayleigh-Benard: Ra %g, H = %d, %d x %d cells, nu = %.6g, alpha = %.6g, at most %d steps"
          % (ra, H, nx, ny, nu, alpha, steps), flush=True)
    tables = {
        "grid": {"nx": nx, "ny": ny},
        "flow": {"steps": steps, "viscosity": nu, "collision": "trt", "magic": 0.25},
        "edges": {"left": "periodic", "right": "periodic", "bottom": {"temperature": 0.5},
                  "top": {"temperature": -0.5}},
        "heat": {"prandtl": PRANDTL, "rayleigh": ra, "length": float(H), "temperature_difference": 1.0,
                 "gravity": [0.0, 1.0 if args.reverse_gravity else -1.0], "collision": args.collision},
        # The seed: the bottom plate's left half a little hotter.
        "obstacle": [{"rectangle": {"from": [0, 0], "to": [nx // 2 - 1, 0]}, "temperature": 0.5 + args.seed}],
    }
    comment = ("Rayleigh-Benard layer, Ra %g, Pr %g, H = ny - 2 = %d, one critical wavelength wide; the bottom's "
               "left half held %g warmer as the seed (written by validation/rayleigh_benard.py)"
               % (ra, PRANDTL, H, args.seed))
    run = common.run_solver(args, out_dir, tables, comment,
                            options=["--until-steady", repr(args.until_steady), "--summary-json", "summary_run.json"])
    with open(os.path.join(out_dir, "summary_run.json")) as f:
        solver = json.load(f)
    walls = solver["heat"]["walls"]
    if "top" not in walls or "bottom" not in walls or "obstacle" not in walls:
        raise common.RunError("summary lacks the top, bottom or seed wall's heat: %s" % sorted(walls))
    nu_top = -walls["top"]["nusselt"]
    heat_bottom = walls["bottom"]["heat_in"] + walls["obstacle"]["heat_in"]
    faces_bottom = walls["bottom"]["faces"] + walls["obstacle"]["faces"]
    nu_bottom = heat_bottom / faces_bottom * H / alpha
    field = common.read_final_state(out_dir, nx, ny, heat=True)
    u_max = max(math.hypot(field.ux[j][i], field.uy[j][i]) for j in range(1, ny - 1) for i in range(nx))
    steady = solver.get("until_steady", {})
    res = {"ra": ra, "H": H, "nx": nx, "ny": ny, "viscosity": nu, "diffusivity": alpha, "max_steps": steps,
           "steps_run": solver.get("steps_run"), "steady": bool(steady.get("steady")),
           "steady_message": steady.get("message"), "nusselt": nu_top, "nusselt_bottom": nu_bottom,
           "balance": abs(nu_bottom - nu_top) / abs(nu_top), "max_speed_over_alpha_H": u_max * H / alpha,
           "command": run["command"], "seconds": run["seconds"]}
    print("Ra %g: Nu %.6f (bottom %.6f), largest speed %.3g alpha / H; %s"
          % (ra, nu_top, nu_bottom, res["max_speed_over_alpha_H"], res["steady_message"]), flush=True)
    mid = ny // 2
    common.write_csv(os.path.join(out_dir, "midplane.csv"), ["x_over_H", "uy_over_alpha_H", "T"],
                     [((i + 0.5) / H, field.uy[mid][i] * H / alpha, field.temperature[mid][i]) for i in range(nx)])
    return res


def main():
    parser = common.make_parser("rayleigh_benard", __doc__.splitlines()[0], precision="double")
    parser.add_argument("--h", type=int, default=None, help="layer depth H = ny - 2 in cells (default 32; 16 with --quick)")
    parser.add_argument("--ra-list", default="1800,2000,2200,2400",
                        help="Rayleigh numbers above the onset to fit (default 1800,2000,2200,2400)")
    parser.add_argument("--below", type=float, default=1500.0,
                        help="a Rayleigh number below the onset, checked to conduct (default 1500; 0: none)")
    parser.add_argument("--u", type=float, default=0.1,
                        help="buoyancy velocity nu sqrt(Ra / Pr) / H in lattice units; sets the viscosity (default 0.1)")
    parser.add_argument("--seed", type=float, default=1e-5,
                        help="how much warmer the bottom plate's left half is held (default 1e-5)")
    parser.add_argument("--collision", choices=["bgk", "trt"], default="bgk",
                        help="the temperature lattice's collision (default bgk)")
    parser.add_argument("--until-steady", type=float, default=1e-7,
                        help="d2q9-bgk --until-steady tolerance (default 1e-7)")
    parser.add_argument("--diffusive-times", type=float, default=40.0,
                        help="the most steps, in diffusive times H^2 / alpha (default 40)")
    parser.add_argument("--reverse-gravity", action="store_true", help=argparse.SUPPRESS)  # to see the checks fail
    args = common.parse_args(parser)
    H = args.h or (16 if args.quick else 32)
    if H < 8:
        raise common.RunError("--h must be at least 8")
    ras = sorted(float(r) for r in args.ra_list.split(","))
    if len(ras) < 3 or ras[0] <= RA_C:
        raise common.RunError("--ra-list needs at least three Rayleigh numbers above %g" % RA_C)
    if args.below and args.below >= RA_C:
        raise common.RunError("--below must lie below %g" % RA_C)
    if args.out == os.path.join(common.REPO_ROOT, "results", "validation", "rayleigh_benard"):
        args.out = os.path.join(args.out, "quick" if args.quick else "h%d" % H)
    exe = common.find_exe(args.exe)
    os.makedirs(args.out, exist_ok=True)

    above = [run_case(args, ra, H, os.path.join(args.out, "ra%g" % ra)) for ra in ras]
    below = run_case(args, args.below, H, os.path.join(args.out, "ra%g" % args.below)) if args.below else None

    ys = [r["nusselt"] - 1.0 for r in above]
    coeffs = quadratic_fit(ras, ys)
    ra_c = quadratic_root(coeffs)
    slope = (ys[1] - ys[0]) / (ras[1] - ras[0])
    ra_c_line = ras[0] - ys[0] / slope if slope > 0 else float("nan")
    print("critical Rayleigh number: %.1f from the parabola (%+.2f%% off %.2f); %.1f from the line through "
          "Ra %g and %g" % (ra_c, 100 * (ra_c - RA_C) / RA_C, RA_C, ra_c_line, ras[0], ras[1]), flush=True)

    rows = [(r["ra"], r["nusselt"], r["nusselt_bottom"], r["steps_run"]) for r in ([below] if below else []) + above]
    common.write_csv(os.path.join(args.out, "rayleigh_benard.csv"), ["ra", "nusselt", "nusselt_bottom", "steps"], rows)
    fit = ["%.10g" % c for c in coeffs]
    body = """set title "Rayleigh-Benard onset, H = {H}, Pr = 0.71: Ra_c = {rac:.1f} (theory 1707.8)"
set xlabel "Ra"
set ylabel "Nu - 1"
set key top left
s(x) = (x - {ra0}) / 1000.0
fit_curve(x) = {c0} + {c1} * s(x) + {c2} * s(x)**2
set xrange [1400:{xmax}]
set yrange [-0.05:*]
set arrow from {ra0},graph 0 to {ra0},graph 1 nohead dashtype 2
plot "rayleigh_benard.csv" using 1:($2 - 1) with points pt 7 ps 1.4 title "d2q9-bgk, steady Nu", \\
     fit_curve(x) with lines lw 2 title "least-squares parabola (above the onset)", \\
     0 with lines lc rgb "gray" notitle
""".format(H=H, rac=ra_c, ra0=RA_C, c0=fit[0], c1=fit[1], c2=fit[2], xmax=ras[-1] + 100)
    common.run_gnuplot(common.write_gnuplot(args.out, "rayleigh_benard", body))

    summary = common.base_summary(args, exe, {
        "geometry": "plates in rows 0 (T = +0.5) and ny-1 (T = -0.5), surfaces half a cell inside: H = ny - 2; "
                    "periodic in x over nx = round(2.016 H); seed: bottom row's left half at 0.5 + seed",
        "H": H, "prandtl": PRANDTL, "buoyancy_velocity": args.u, "seed": args.seed,
        "temperature_collision": args.collision, "reference": CITATION, "ra_c_theory": RA_C,
        "ra_c": ra_c, "ra_c_rel_error": (ra_c - RA_C) / RA_C, "fit_nu_minus_1": {"variable": "(Ra - 1707.76) / 1000",
                                                                                "coefficients": coeffs},
        "ra_c_line_two_lowest": ra_c_line, "runs_above": above, "run_below": below,
    })
    checks = []
    common.check(checks, "ra_c_rel_error", abs(ra_c - RA_C) / RA_C, RA_C_TOL)
    if below:
        common.check(checks, "conduction_at_ra%g_abs_nu_minus_1" % below["ra"], abs(below["nusselt"] - 1.0),
                     CONDUCTION_TOL)
    common.check(checks, "nu_increases_with_ra", min(b - a for a, b in zip(ys, ys[1:])), 0.0, kind="min")
    runs = above + ([below] if below else [])
    common.check(checks, "worst_energy_balance", max(r["balance"] for r in runs), BALANCE_TOL)
    common.check(checks, "all_steady", float(all(r["steady"] for r in runs)), 1.0, kind="min")
    common.finish(args, summary, checks)


if __name__ == "__main__":
    common.main(main)

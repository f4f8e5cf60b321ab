#!/usr/bin/env python3
"""Differentially heated square cavity against de Vahl Davis (1983): the hot wall's mean Nusselt number.

Geometry. The grid has n x n cells; the outer ring of cells is walls. Column 0
is the hot wall, `left = { temperature = 0.5 }`, column n-1 the cold wall,
`right = { temperature = -0.5 }`, rows 0 and n-1 are plain (adiabatic)
walls, "wall" (their corners are theirs). Half-way bounce-back for the flow
and anti-bounce-back for the temperature put every wall's surface half a
cell inside its row or column, on the face it shares with the first fluid
cell: the cavity is L = n - 2 cells across (lattice 0.5 to n - 1.5) and cell
(i, j) sits at x = (i - 0.5) / L, y = (j - 0.5) / L. Gravity points down
([heat] rayleigh = Ra with length = L and temperature_difference = 1, so
g beta = Ra nu alpha / L^3), prandtl = 0.71 (air), T0 = 0 (the mean).

Scales. The buoyancy velocity U = sqrt(g beta dT L) = nu sqrt(Ra / Pr) / L is
kept at --u (default 0.1, a Mach number of 0.17 at most) by the viscosity
nu = U L / sqrt(Ra / Pr). The flow collides with TRT (Lambda 1/4); the
temperature with --collision (BGK or TRT, [heat] collision). The run goes
until steady (--until-steady, default 1e-7 on the mean speed; double
precision by default, since float's slow mass drift keeps the mean speed
changing by about 1e-5 per 10,000 steps), at most --transits L / U steps.

Reference. G. de Vahl Davis, Natural convection of air in a square cavity:
a bench mark numerical solution, Int. J. Numer. Meth. Fluids 3 (1983)
249-264, Table IV: the average Nusselt number Nu = 1.118 (Ra 1e3), 2.243
(1e4), 4.519 (1e5), 8.800 (1e6) (the mean over the cavity of the horizontal
heat flux; at steady state it equals the hot wall's mean, which is what the
solver measures: Nu = heat into the fluid per wall face * L / (alpha dT),
summary JSON heat.walls.left.nusselt; the cold wall's is negative).

Checks. |Nu(left) - Nu_dVD| / Nu_dVD <= 1% at the default grids (n = 66 at
Ra 1e3, 130 at 1e4 and 1e5, 258 at 1e6); the energy balance
|Nu(left) + Nu(right)| / Nu(left) <= 1e-3 (what the hot wall puts in, the
cold one takes out: the run is steady and the adiabatic walls leak nothing);
the sense of the circulation (hot fluid rises along the hot wall: the mean
vertical velocity in the fluid column next to it is positive, next to the
cold wall negative; a gravity of the wrong sign turns it the other way with
the same Nusselt number); and the run reached steady. u_max on the vertical
centreline and v_max on the horizontal one, in units alpha / L, are
reported only.

--convergence runs --grids (default L = 32, 64, 128 for the chosen Ra) and
reports the observed order of |Nu - Nu_dVD| (the reference's own error, below
1% at Ra 1e6 and 0.1% at Ra 1e3 by its author, limits how far that order
holds); the finest grid is checked as above.

--quick: Ra 1e4 on n = 42 (L = 40), double, at most 300 L / U steps (about
6 s on PoCL, 2 shared cores): measured Nu 2.2540, +0.49% off 2.243; checked
within 0.75%, the energy balance within 1e-3 and the circulation's sense, so
that no buoyancy (Nu 1), an adiabatic or insulating hot wall, or gravity
reversed fails.
"""

import argparse
import json
import math
import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402

CITATION = ("G. de Vahl Davis, Natural convection of air in a square cavity: a bench mark numerical solution, "
            "Int. J. Numer. Meth. Fluids 3 (1983) 249-264, Table IV (average Nusselt number)")
# de Vahl Davis (1983), Table IV: the average Nusselt number, Pr = 0.71.
NU_DVD = {1e3: 1.118, 1e4: 2.243, 1e5: 4.519, 1e6: 8.800}
PRANDTL = 0.71
# Default grid (cells across, walls included) per Rayleigh number.
FULL_N = {1e3: 66, 1e4: 130, 1e5: 130, 1e6: 258}
NU_TOL = 0.01          # relative error of Nu(left) against de Vahl Davis
BALANCE_TOL = 1e-3     # |Nu(left) + Nu(right)| / Nu(left)
# Measured on this grid: Nu 2.25396 (+0.49%), balance 2e-14, steady after 34,800 steps (PoCL, double).
QUICK = {"ra": 1e4, "n": 42, "nu_tol": 0.0075}


def parse_ra(text):
    if text == "all":
        return sorted(NU_DVD)
    out = []
    for part in text.split(","):
        v = float(part)
        if v not in NU_DVD:
            raise common.RunError("--ra takes 1e3, 1e4, 1e5, 1e6 or all, not %s" % part)
        out.append(v)
    return out


def run_case(args, ra, n, out_dir):
    """One cavity run; returns the measured numbers."""
    L = n - 2
    nu = args.u * L / math.sqrt(ra / PRANDTL)
    alpha = nu / PRANDTL
    steps = int(math.ceil(args.transits * L / args.u))
    omega = 1.0 / (3.0 * nu + 0.5)
    omega_t = 1.0 / (3.0 * alpha + 0.5)
    print("heated cavity: Ra %g, n = %d (L = %d), U = %g, nu = %.6g (omega %.5f), alpha = %.6g (omega_T %.5f), "
          "at most %d steps, temperature %s" % (ra, n, L, args.u, nu, omega, alpha, omega_t, steps, args.collision),
          flush=True)
    heat = {"prandtl": PRANDTL, "rayleigh": ra, "length": float(L), "temperature_difference": 1.0,
            "collision": args.collision, "gravity": [0.0, -1.0 if not args.reverse_gravity else 1.0]}
    if args.collision == "trt":
        heat["magic"] = args.magic
    tables = {
        "grid": {"nx": n, "ny": n},
        "flow": {"steps": steps, "viscosity": nu, "collision": args.flow_collision},
        "edges": {"left": {"temperature": 0.5}, "right": {"temperature": -0.5}, "bottom": "wall", "top": "wall"},
        "heat": heat,
    }
    if args.flow_collision == "trt":
        tables["flow"]["magic"] = 0.25
    comment = ("Differentially heated cavity (de Vahl Davis 1983), Ra %g, Pr %g, L = n - 2 = %d "
               "(written by validation/heated_cavity.py)" % (ra, PRANDTL, L))
    run = common.run_solver(args, out_dir, tables, comment,
                            options=["--until-steady", repr(args.until_steady), "--summary-json", "summary_run.json"])
    with open(os.path.join(out_dir, "summary_run.json")) as f:
        solver = json.load(f)
    walls = solver["heat"]["walls"]
    if "left" not in walls or "right" not in walls:
        raise common.RunError("summary has no Nusselt number for the left and right walls: %s" % sorted(walls))
    nu_left, nu_right = walls["left"]["nusselt"], walls["right"]["nusselt"]
    steady = solver.get("until_steady", {})
    field = common.read_final_state(out_dir, n, n, heat=True)
    scale = L / alpha  # velocities in units alpha / L
    mid = (n - 1) / 2.0  # the centre lies between cells (n even) or on one
    lo, t = int(math.floor(mid)), mid - math.floor(mid)

    def at_mid_column(j):
        return (1 - t) * field.ux[j][lo] + t * field.ux[j][min(lo + 1, n - 2)]

    def at_mid_row(i):
        return (1 - t) * field.uy[lo][i] + t * field.uy[min(lo + 1, n - 2)][i]

    u_line = [(j - 0.5) / L for j in range(1, n - 1)], [at_mid_column(j) * scale for j in range(1, n - 1)]
    v_line = [(i - 0.5) / L for i in range(1, n - 1)], [at_mid_row(i) * scale for i in range(1, n - 1)]
    ju = max(range(len(u_line[1])), key=lambda k: u_line[1][k])
    iv = max(range(len(v_line[1])), key=lambda k: v_line[1][k])
    rise_hot = sum(field.uy[j][1] for j in range(1, n - 1)) / (n - 2) * scale
    rise_cold = sum(field.uy[j][n - 2] for j in range(1, n - 1)) / (n - 2) * scale
    ref = NU_DVD[ra]
    res = {
        "ra": ra, "n": n, "L": L, "viscosity": nu, "diffusivity": alpha, "omega": omega, "omega_T": omega_t,
        "max_steps": steps, "steps_run": solver.get("steps_run"), "steady": bool(steady.get("steady")),
        "steady_message": steady.get("message"),
        "nusselt_left": nu_left, "nusselt_right": nu_right, "nusselt_dvd": ref,
        "nusselt_error": (nu_left - ref) / ref, "balance": abs(nu_left + nu_right) / abs(nu_left),
        "u_max": u_line[1][ju], "u_max_y": u_line[0][ju], "v_max": v_line[1][iv], "v_max_x": v_line[0][iv],
        "mean_rise_hot_wall": rise_hot, "mean_rise_cold_wall": rise_cold,
        "command": run["command"], "seconds": run["seconds"],
    }
    print("Ra %g, L = %d: Nu(left) %.5f, Nu(right) %.5f, de Vahl Davis %.3f: error %+.3f%%, balance %.2e; "
          "u_max %.3f at y = %.3f, v_max %.3f at x = %.3f (alpha / L); %s"
          % (ra, L, nu_left, nu_right, ref, 100 * res["nusselt_error"], res["balance"], res["u_max"],
             res["u_max_y"], res["v_max"], res["v_max_x"], res["steady_message"]), flush=True)
    # Profiles for the plot: T along the horizontal centreline, u and v along the centrelines.
    temp_line = [(1 - t) * field.temperature[lo][i] + t * field.temperature[min(lo + 1, n - 2)][i]
                 for i in range(1, n - 1)]
    common.write_csv(os.path.join(out_dir, "centrelines.csv"), ["s", "u_on_x_half", "v_on_y_half", "T_on_y_half"],
                     zip(u_line[0], u_line[1], v_line[1], temp_line))
    return res


def main():
    parser = common.make_parser("heated_cavity", __doc__.splitlines()[0], precision="double")
    parser.add_argument("--ra", default=None, help="Rayleigh number(s): 1e3, 1e4, 1e5, 1e6, a comma list, or all "
                        "(default 1e5; 1e4 with --quick)")
    parser.add_argument("--n", type=int, default=None,
                        help="cells across, walls included (L = n - 2); default 66 at Ra 1e3, 130 at 1e4 and 1e5, "
                             "258 at 1e6, 42 with --quick")
    parser.add_argument("--u", type=float, default=0.1,
                        help="buoyancy velocity sqrt(g beta dT L) in lattice units; sets the viscosity (default 0.1)")
    parser.add_argument("--collision", choices=["bgk", "trt"], default="bgk",
                        help="the temperature lattice's collision, [heat] collision (default bgk)")
    parser.add_argument("--magic", type=float, default=0.25, help="[heat] magic with --collision trt (default 0.25)")
    parser.add_argument("--flow-collision", choices=["bgk", "trt", "regularised"], default="trt",
                        help="the flow's collision (default trt, Lambda 1/4)")
    parser.add_argument("--until-steady", type=float, default=1e-7,
                        help="d2q9-bgk --until-steady tolerance on the mean speed (default 1e-7)")
    parser.add_argument("--transits", type=float, default=None,
                        help="the most steps, in buoyancy times L / U (default 600; 300 with --quick)")
    parser.add_argument("--convergence", action="store_true",
                        help="run the grids of --grids and report the observed order of the Nusselt number's error")
    parser.add_argument("--grids", default="32,64,128", help="cavity sizes L for --convergence (default 32,64,128)")
    parser.add_argument("--reverse-gravity", action="store_true", help=argparse.SUPPRESS)  # to see the check fail
    args = common.parse_args(parser)
    if args.quick:
        if args.ra not in (None, "1e4") or args.convergence:
            raise common.RunError("--quick runs Ra 1e4 on one grid only")
        ras, nu_tol = [QUICK["ra"]], QUICK["nu_tol"]
    else:
        ras, nu_tol = parse_ra(args.ra or "1e5"), NU_TOL
    if args.transits is None:
        args.transits = 300.0 if args.quick else 600.0
    if not 0.0 < args.u <= 0.2:
        raise common.RunError("--u must lie in (0, 0.2]")
    if args.convergence:
        if len(ras) != 1:
            raise common.RunError("--convergence takes one Rayleigh number")
        grids = [int(g) + 2 for g in args.grids.split(",")]
        if len(grids) < 2 or sorted(grids) != grids:
            raise common.RunError("--grids needs at least two increasing sizes")
    if args.out == os.path.join(common.REPO_ROOT, "results", "validation", "heated_cavity"):
        args.out = os.path.join(args.out, "quick" if args.quick else
                                ("convergence" if args.convergence else "ra" + "-".join("%g" % r for r in ras)))
    exe = common.find_exe(args.exe)
    os.makedirs(args.out, exist_ok=True)

    results = []
    for ra in ras:
        if args.convergence:
            for n in grids:
                results.append(run_case(args, ra, n, os.path.join(args.out, "ra%g_n%d" % (ra, n))))
        else:
            n = args.n or (QUICK["n"] if args.quick else FULL_N[ra])
            if n < 10:
                raise common.RunError("--n must be at least 10")
            results.append(run_case(args, ra, n, os.path.join(args.out, "ra%g_n%d" % (ra, n))))

    order = None
    if args.convergence:
        errors = [abs(r["nusselt_error"]) for r in results]
        hs = [float(r["L"]) for r in results]  # cells across: error ~ L^-order
        if all(e > 0 for e in errors):
            order = common.observed_order(hs, errors)
            print("observed order of |Nu - Nu_dVD| over L = %s: %.2f" % (args.grids, order))

    common.write_csv(os.path.join(args.out, "heated_cavity.csv"),
                     ["ra", "n", "L", "nusselt_left", "nusselt_right", "nusselt_dvd", "error", "balance", "steps"],
                     [(r["ra"], r["n"], r["L"], r["nusselt_left"], r["nusselt_right"], r["nusselt_dvd"],
                       r["nusselt_error"], r["balance"], r["steps_run"]) for r in results])
    last = results[-1]
    rel = os.path.relpath(os.path.join(args.out, "ra%g_n%d" % (last["ra"], last["n"]), "centrelines.csv"), args.out)
    body = """set multiplot layout 1,2 title "Differentially heated cavity, Ra = {ra:g}, Pr = 0.71, {n} x {n} cells (L = {L}): Nu = {nu:.4f} (de Vahl Davis {ref})"
set xlabel "position / L"
set ylabel "velocity / (alpha / L)"
set key top right
plot "{csv}" using 1:2 with lines lw 2 title "u on x = 0.5 (against y)", \\
     "{csv}" using 1:3 with lines lw 2 title "v on y = 0.5 (against x)"
set ylabel "T"
set key top right
plot "{csv}" using 1:4 with lines lw 2 title "T on y = 0.5 (against x)"
unset multiplot
""".format(ra=last["ra"], n=last["n"], L=last["L"], nu=last["nusselt_left"], ref=last["nusselt_dvd"], csv=rel)
    common.run_gnuplot(common.write_gnuplot(args.out, "heated_cavity", body, width=1100, height=500))

    summary = common.base_summary(args, exe, {
        "geometry": "hot wall column 0 (T = +0.5), cold wall column n-1 (T = -0.5), adiabatic rows 0 and n-1; "
                    "wall surfaces half a cell inside: L = n - 2",
        "prandtl": PRANDTL, "buoyancy_velocity": args.u, "temperature_collision": args.collision,
        "flow_collision": args.flow_collision, "until_steady": args.until_steady,
        "reference": CITATION, "runs": results, "observed_order": order,
    })
    checks = []
    for r in results if not args.convergence else results[-1:]:
        tag = "ra%g_L%d" % (r["ra"], r["L"])
        common.check(checks, tag + "_nusselt_rel_error", abs(r["nusselt_error"]), nu_tol)
        common.check(checks, tag + "_energy_balance", r["balance"], BALANCE_TOL)
        common.check(checks, tag + "_rise_at_hot_wall", r["mean_rise_hot_wall"], 0.0, kind="min")
        common.check(checks, tag + "_sink_at_cold_wall", -r["mean_rise_cold_wall"], 0.0, kind="min")
        common.check(checks, tag + "_steady", 1.0 if r["steady"] else 0.0, 1.0, kind="min")
    common.finish(args, summary, checks)


if __name__ == "__main__":
    common.main(main)

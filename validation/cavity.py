#!/usr/bin/env python3
"""Lid-driven cavity against Ghia, Ghia & Shin (1982): centreline profiles and the primary vortex.

Geometry. The grid has n x n cells; column 0, column n-1 and row 0 are static
walls and row n-1 is the lid, a wall moving at wall_velocity [U, 0] (the two
top corner cells stay static walls). Half-way bounce-back puts every wall's
surface half a cell inside its row or column, on the face it shares with the
first fluid cell. So the cavity is L = n - 2 cells across, from lattice x =
0.5 to x = n - 1.5 (the same in y), and cell (i, j) sits at the cavity
coordinates

    x = (i - 0.5) / L,   y = (j - 0.5) / L      (i, j = 1 .. n-2)

with the lid at y = 1. The Reynolds number is Re = U L / nu with this L.

Profiles. u / U along the vertical centreline x = 0.5 and v / U along the
horizontal centreline y = 0.5 (linear interpolation between the two middle
columns or rows when n is even), extended by the wall values (u = 0 at y = 0,
u = U at the lid y = 1; v = 0 at x = 0 and x = 1), are interpolated linearly
at Ghia's points (Tables I and II, validation/ghia1982.py; their end points
on the walls are left out). The check is the largest |ours - Ghia| / U.
A published value marked suspect in ghia1982.SUSPECT is reported but left out
of the maximum.

Primary vortex. The stream function psi(x, y) = integral of u dy from the
bottom wall (psi = 0 there; trapezoidal rule on the cell centres, the first
half cell from the wall with u rising linearly from 0), divided by U L. Its
minimum over the interior cells, refined by a parabola through the neighbours
in x and in y, is the vortex centre; the check is its distance from Ghia's
centre in units of L. psi_min is reported beside Ghia's.

Full runs (grid n, steps = transit times * L / U; --n and --steps override):
  Re 100:  n = 130 (L = 128),  40 transit times (51,200 steps)
  Re 400:  n = 130 (L = 128),  80 transit times (102,400 steps)
  Re 1000: n = 258 (L = 256), 150 transit times (384,000 steps)
Targets: largest deviation <= 0.02 U (Re 100, 400), <= 0.03 U (Re 1000);
vortex centre within 0.01 L.

Subgrid model. --smagorinsky C runs the cavity with the Smagorinsky model
(docs/collision.md) and a second time without it (run_without_model/), and
checks how little the model changes a resolved flow: the largest difference
of u / U and v / U between the two runs over every cell of both centrelines,
<= 0.005 U (MODEL_TOL). The Ghia checks apply to the run with the model.
--quick: Re 100 on n = 34 (L = 32) for 6,400 steps (20 transit times):
deviation <= 0.015 U and vortex centre within 0.01 L (measured 0.0092 U and
0.0045 L: as tight as the grid allows), so that a broken lid or wall, or a
2% change of the lid's pull, fails in CI within seconds.
"""

import copy
import math
import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402
import ghia1982  # noqa: E402

# Per Reynolds number: default grid (cells across, walls included), transit
# times L/U to run, and the tolerances (deviation / U, vortex distance / L).
FULL = {
    100: {"n": 130, "transits": 40, "dev_tol": 0.02, "vortex_tol": 0.01},
    400: {"n": 130, "transits": 80, "dev_tol": 0.02, "vortex_tol": 0.01},
    1000: {"n": 258, "transits": 150, "dev_tol": 0.03, "vortex_tol": 0.01},
}
# Measured on this grid: deviation 0.0092 U, vortex centre 0.0045 L off Ghia's.
QUICK = {"re": 100, "n": 34, "transits": 20, "dev_tol": 0.015, "vortex_tol": 0.01}
# --smagorinsky: the largest change of the centreline profiles / U that the model may make.
MODEL_TOL = 0.005


def centreline(field, comp, at, n, L, lid):
    """Velocity component comp ('x': u along the vertical line x = at; 'y': v along the horizontal line y = at).

    Returns (coordinates, values / lid) from wall to wall, the wall values included.
    """
    pos = at * L + 0.5  # lattice position of the line (column or row index, fractional)
    lo = int(math.floor(pos))
    t = pos - lo
    coords, values = [0.0], [0.0]
    for k in range(1, n - 1):
        if comp == "x":  # walk up column pos: row k
            a, b = field.ux[k][lo], field.ux[k][min(lo + 1, n - 2)]
        else:  # walk along row pos: column k
            a, b = field.uy[lo][k], field.uy[min(lo + 1, n - 2)][k]
        coords.append((k - 0.5) / L)
        values.append(((1.0 - t) * a + t * b) / lid)
    coords.append(1.0)
    values.append(1.0 if comp == "x" else 0.0)  # the lid moves at U; the side walls are at rest
    return coords, values


def compare(coords, values, ref_points, ref_values, suspect):
    """Our profile at the reference's interior points: rows (point, ref, ours, deviation, suspect)."""
    rows = []
    for p, r in sorted(zip(ref_points, ref_values)):
        if p <= 0.0 or p >= 1.0:
            continue  # wall points: equal by construction
        ours = common.interp_linear(coords, values, p)
        rows.append((p, r, ours, abs(ours - r), 1 if p in suspect else 0))
    return rows


def stream_function(field, n, L, lid):
    """psi[j][i] / (U L) at the fluid cell centres: integral of u dy from the bottom wall."""
    psi = [[0.0] * n for _ in range(n)]
    for i in range(1, n - 1):
        acc = 0.25 * field.ux[1][i]  # wall at half a cell below row 1, u linear from 0 there
        psi[1][i] = acc
        for j in range(2, n - 1):
            acc += 0.5 * (field.ux[j - 1][i] + field.ux[j][i])
            psi[j][i] = acc
    scale = 1.0 / (lid * L)
    return [[v * scale for v in row] for row in psi]


def vortex_centre(psi, n, L):
    """(x, y, psi_min) of the stream function's minimum over the interior cells, refined by parabolas."""
    best = None
    for j in range(2, n - 2):
        for i in range(2, n - 2):
            if best is None or psi[j][i] < psi[best[1]][best[0]]:
                best = (i, j)
    i, j = best
    di, vx = common.parabolic_vertex(psi[j][i - 1], psi[j][i], psi[j][i + 1])
    dj, vy = common.parabolic_vertex(psi[j - 1][i], psi[j][i], psi[j + 1][i])
    psi_min = vx + vy - psi[j][i]
    return (i + di - 0.5) / L, (j + dj - 0.5) / L, psi_min


def ghia_series(csv, using_checked, using_suspect, any_suspect):
    """gnuplot series of Ghia's checked points (circles) and of a suspect published value (red cross)."""
    out = '"%s" using %s with points pt 6 ps 1.3 lc rgb "black" title "Ghia et al. (1982)"' % (csv, using_checked)
    if any_suspect:
        out += ', \\\n     "%s" using %s with points pt 2 ps 1.6 lc rgb "red" title "Ghia, suspect value (not checked)"' % (
            csv, using_suspect)
    return out


def effect_of_model(args, plain_tables, comment, n, L, with_model):
    """Runs the cavity without the subgrid model; the largest |with - without| / U on both centrelines."""
    plain_dir = os.path.join(args.out, "run_without_model")
    common.run_solver(args, plain_dir, plain_tables, comment + ", without the subgrid model")
    plain = common.read_final_state(plain_dir, n, n)
    without = centreline(plain, "x", 0.5, n, L, args.lid)[1] + centreline(plain, "y", 0.5, n, L, args.lid)[1]
    worst = max(abs(a - b) for a, b in zip(with_model, without))
    print("subgrid model (C = %g): largest change of the centreline profiles %.5f U" % (args.smagorinsky, worst))
    return worst


def main():
    parser = common.make_parser("cavity", __doc__.splitlines()[0])
    parser.add_argument("--re", type=int, choices=ghia1982.REYNOLDS, default=None,
                        help="Reynolds number U L / nu (default 100)")
    parser.add_argument("--n", type=int, default=None,
                        help="cells across, walls included (cavity L = n - 2); default 130 at Re 100 and 400, "
                             "258 at Re 1000, 34 with --quick")
    parser.add_argument("--lid", type=float, default=0.1, help="lid speed U in lattice units (default 0.1)")
    parser.add_argument("--steps", type=int, default=None, help="time steps (default: transit times * L / U)")
    parser.add_argument("--transits", type=float, default=None,
                        help="run this many transit times L / U (default 40 at Re 100, 80 at Re 400, "
                             "150 at Re 1000, 20 with --quick)")
    parser.add_argument("--smagorinsky", type=float, default=0.0,
                        help="the Smagorinsky constant C (problem file's smagorinsky): run with the subgrid model, "
                             "and again without it, and check the model changes the profiles by <= %g U "
                             "(default 0: no model, one run)" % MODEL_TOL)
    args = common.parse_args(parser)
    if not 0.0 <= args.smagorinsky <= 1.0:
        raise common.RunError("--smagorinsky must lie in [0, 1]")
    if args.quick:
        if args.re not in (None, QUICK["re"]):
            raise common.RunError("--quick runs Re 100 only")
        cfg = dict(QUICK)
    else:
        re = args.re or 100
        cfg = dict(FULL[re], re=re)
    re = cfg["re"]
    n = args.n or cfg["n"]
    if n < 8:
        raise common.RunError("--n must be at least 8")
    L = n - 2
    transits = args.transits or cfg["transits"]
    steps = args.steps or int(math.ceil(transits * L / args.lid))
    if args.out == os.path.join(common.REPO_ROOT, "results", "validation", "cavity"):
        args.out = os.path.join(args.out, "quick" if args.quick else "re%d" % re)
    exe = common.find_exe(args.exe)
    os.makedirs(args.out, exist_ok=True)

    nu = args.lid * L / re
    omega = 1.0 / (3.0 * nu + 0.5)
    print("cavity: Re %d, n = %d (L = %d), U = %g, nu = %.6g, omega = %.6f, %d steps (%.1f transit times)"
          % (re, n, L, args.lid, nu, omega, steps, steps * args.lid / L), flush=True)
    tables = {
        "grid": {"nx": n, "ny": n},
        "flow": {"steps": steps, "reynolds": float(re), "velocity": args.lid, "length": L},
        "edges": {"left": "wall", "right": "wall", "bottom": "wall", "top": {"wall_velocity": [args.lid, 0.0]}},
    }
    plain_tables = copy.deepcopy(tables)
    if args.smagorinsky > 0:
        tables["flow"]["smagorinsky"] = args.smagorinsky
    run_dir = os.path.join(args.out, "run")
    comment = "Lid-driven cavity, Re %d, L = n - 2 = %d (written by validation/cavity.py)" % (re, L)
    run = common.run_solver(args, run_dir, tables, comment)
    field = common.read_final_state(run_dir, n, n)
    drift = common.steady_drift(common.read_av_vels(run_dir))

    suspect = ghia1982.SUSPECT.get(re, {})
    ys, us = centreline(field, "x", 0.5, n, L, args.lid)
    xs, vs = centreline(field, "y", 0.5, n, L, args.lid)
    u_rows = compare(ys, us, ghia1982.Y, ghia1982.U[re], suspect.get("u", []))
    v_rows = compare(xs, vs, ghia1982.X, ghia1982.V[re], suspect.get("v", []))
    dev_u = max(r[3] for r in u_rows if not r[4])
    dev_v = max(r[3] for r in v_rows if not r[4])
    worst_u = max((r for r in u_rows if not r[4]), key=lambda r: r[3])
    worst_v = max((r for r in v_rows if not r[4]), key=lambda r: r[3])
    suspect_rows = [{"profile": name, "at": r[0], "ghia": r[1], "ours": r[2], "deviation": r[3]}
                    for name, rows in (("u", u_rows), ("v", v_rows)) for r in rows if r[4]]
    psi = stream_function(field, n, L, args.lid)
    vx, vy, psi_min = vortex_centre(psi, n, L)
    ref = ghia1982.PRIMARY_VORTEX[re]
    vortex_dist = math.hypot(vx - ref["x"], vy - ref["y"])

    print("u on x = 0.5: largest |u - Ghia| / U = %.4f at y = %.4f (Ghia %.5f, ours %.5f)"
          % (dev_u, worst_u[0], worst_u[1], worst_u[2]))
    print("v on y = 0.5: largest |v - Ghia| / U = %.4f at x = %.4f (Ghia %.5f, ours %.5f)"
          % (dev_v, worst_v[0], worst_v[1], worst_v[2]))
    for s in suspect_rows:
        print("suspect Ghia value (not checked): %s at %.4f: Ghia %.5f, ours %.5f, |difference| %.4f"
              % (s["profile"], s["at"], s["ghia"], s["ours"], s["deviation"]))
    print("primary vortex: (%.4f, %.4f), Ghia (%.4f, %.4f): distance %.4f L; psi_min %.5f, Ghia %.5f"
          % (vx, vy, ref["x"], ref["y"], vortex_dist, psi_min, ref["psi"]))
    print("steady drift (relative change of the mean speed over the last 10%% of steps): %.2e" % drift)
    model_effect = None
    if args.smagorinsky > 0:
        model_effect = effect_of_model(args, plain_tables, comment, n, L, us + vs)

    common.write_csv(os.path.join(args.out, "cavity_u.csv"), ["y", "u_over_U"], zip(ys, us))
    common.write_csv(os.path.join(args.out, "cavity_v.csv"), ["x", "v_over_U"], zip(xs, vs))
    common.write_csv(os.path.join(args.out, "cavity_ghia_u.csv"), ["y", "ghia_u_over_U", "ours", "deviation", "suspect"],
                     u_rows)
    common.write_csv(os.path.join(args.out, "cavity_ghia_v.csv"), ["x", "ghia_v_over_U", "ours", "deviation", "suspect"],
                     v_rows)

    body = """set multiplot layout 1,2 title "Lid-driven cavity, Re = {re}, {n} x {n} cells (L = {L}), U = {lid}, {steps} steps"
set xlabel "u / U"
set ylabel "y / L"
set key bottom right
plot "cavity_u.csv" using 2:1 with lines lw 2 title "d2q9-bgk, x = 0.5", \\
     {ghia_u}
set xlabel "x / L"
set ylabel "v / U"
set key bottom left
plot "cavity_v.csv" using 1:2 with lines lw 2 title "d2q9-bgk, y = 0.5", \\
     {ghia_v}
unset multiplot
""".format(re=re, n=n, L=L, lid=args.lid, steps=steps,
           ghia_u=ghia_series("cavity_ghia_u.csv", "($5 == 0 ? $2 : NaN):1", "($5 == 1 ? $2 : NaN):1",
                              bool(suspect.get("u"))),
           ghia_v=ghia_series("cavity_ghia_v.csv", "1:($5 == 0 ? $2 : NaN)", "1:($5 == 1 ? $2 : NaN)",
                              bool(suspect.get("v"))))
    common.run_gnuplot(common.write_gnuplot(args.out, "cavity", body, width=1100, height=500))

    summary = common.base_summary(args, exe, {
        "reynolds": re, "n": n, "L": L,
        "geometry": "walls half a cell inside rows/columns 0 and n-1: cavity from lattice 0.5 to n - 1.5, "
                    "L = n - 2; cell (i, j) at ((i - 0.5) / L, (j - 0.5) / L)",
        "lid_velocity": args.lid, "viscosity": nu, "omega": omega, "steps": steps,
        "transit_times": steps * args.lid / L,
        "reference": ghia1982.CITATION,
        "max_deviation_u_over_U": dev_u, "worst_u_at_y": worst_u[0],
        "max_deviation_v_over_U": dev_v, "worst_v_at_x": worst_v[0],
        "max_deviation_over_U": max(dev_u, dev_v),
        "suspect_reference_points": suspect_rows,
        "vortex": {"x": vx, "y": vy, "psi_min": psi_min, "ghia_x": ref["x"], "ghia_y": ref["y"],
                   "ghia_psi_min": ref["psi"], "distance_over_L": vortex_dist},
        "steady_drift": drift, "command": run["command"], "seconds": run["seconds"],
        "smagorinsky": args.smagorinsky, "model_effect_over_U": model_effect})
    checks = []
    common.check(checks, "max_deviation_over_U", max(dev_u, dev_v), cfg["dev_tol"])
    common.check(checks, "vortex_distance_over_L", vortex_dist, cfg["vortex_tol"])
    if model_effect is not None:
        common.check(checks, "model_effect_over_U", model_effect, MODEL_TOL)
    common.finish(args, summary, checks)


if __name__ == "__main__":
    common.main(main)

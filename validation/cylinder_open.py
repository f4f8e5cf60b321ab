#!/usr/bin/env python3
"""A cylinder in open flow (uniform inflow, periodic sides, absorbing outlet) at Re 20, 40 and 100 against the literature.

References (the values are the issue's; see "Confirmed" below):
  * S. C. R. Dennis and G.-Z. Chang, "Numerical solutions for steady flow
    past a circular cylinder at Reynolds numbers up to 100", J. Fluid Mech.
    42 (1970) 471-489: Re 20 Cd 2.045, L/D 0.94; Re 40 Cd 1.522, L/D 2.35.
  * B. Fornberg, "A numerical study of steady viscous flow past a circular
    cylinder", J. Fluid Mech. 98 (1980) 819-855: Re 20 Cd 2.0001, L/D 0.91;
    Re 40 Cd 1.498, L/D 2.24.
  * D. J. Tritton, "Experiments on the flow past a circular cylinder at low
    Reynolds numbers", J. Fluid Mech. 6 (1959) 547-567: Re 20 Cd about 2.22
    (experiment, read from his curve; reported, not checked).
  * C. H. K. Williamson, "Vortex dynamics in the cylinder wake", Annu. Rev.
    Fluid Mech. 28 (1996) 477-539: St about 0.164 at Re 100.
  * C. Liu, X. Zheng and C. H. Sung, "Preconditioned multigrid methods for
    unsteady incompressible flows", J. Comput. Phys. 139 (1998) 35-57:
    Re 100 St 0.165, Cd 1.350 +- 0.012, Cl +- 0.339.
  Confirmed: none of these numbers could be checked against the papers
  themselves from this machine (the search tool found no copy of them). A
  third-party note in a public repository quotes the Re 40 wake lengths
  2.24 (Fornberg) and 2.35 (Dennis & Chang) and the ranges Cd 2.00-2.09,
  L/D 0.91-0.94 (Re 20) and Cd 1.50-1.58 (Re 40), consistent with the
  values above (a secondary source); everything else is as the issue states
  it, unconfirmed here.

Set-up (the issue's). A cylinder of diameter D = N cells (--cells, default
20), its centre 15 D behind the inlet column (x = 0 at column 0) and a
quarter cell above the row ny/2 (cy = ny/2 + 0.25: the flow is not exactly
symmetric about a row, so that Re 100 sheds without waiting for round-off),
in a domain nx = 50 D by ny = 30 D. Bottom and top periodic (blockage
D / (ny) = 3.3%, an infinite column of cylinders 30 D apart), left
{ inlet_velocity = [U, 0] } with U = 0.05 (--u), right
{ outlet_density = 1, sponge = W } with W = 5 D columns (--sponge; 0: none,
the reflecting outlet), optionally an inlet sponge (--inlet-sponge, default
0). The cylinder is a curved wall (boundary = "interpolated", --boundary),
the collision TRT with Lambda 1/4 (--collision, --magic). nu = U D / Re. The
inflow rises over [flow] inlet_ramp = 50 D/U steps, and the run lasts
150 D/U steps (--transits; re100 300 D/U, for the shedding to saturate):
60,000 steps on 1000 x 600 cells at N = 20, a GPU's job (the script prints
the command).

Measurements (from forces.csv's cylinder_Fx, cylinder_Fy with rho = 1, U,
D = N: Cd = 2 Fx / (rho U^2 D), Cl = 2 Fy / (rho U^2 D); the solver's own
Cd/Cl columns are only compared), over the last 40% of the run (the window):
  * re20, re40 (steady): mean Cd; the drag's swing (max - min) / mean over
    the window (the issue's target: below 0.5% with the sponge; a reflecting
    outlet left 8.8% at Re 20); drift = |mean Cd over the last 20% - mean over
    the 20% before| / mean; the recirculation length L/D from
    final_state.dat: u_x on the wake centre line y = cy (linear between rows
    ny/2 and ny/2 + 1, weights 3/4 and 1/4), from the rear surface
    x = cx + D/2 (the circle's, for either boundary) to where u_x turns
    positive (linear interpolation between columns); mean Cl (reported).
  * re100 (periodic): St = f D / U from the upward crossings of Cl through
    its mean over the window (a hysteresis of a quarter of the amplitude,
    linear interpolation in time; f = 1 / mean spacing); mean Cd, Cd's
    amplitude (max - min) / 2, the lift amplitude (the mean over whole periods
    of each period's (max - min) / 2); periodicity: the spread of the
    per-period lift maxima.
  * steady_drift: the relative change of the mean speed (av_vels.dat) over
    the last 10% of the steps, as in every validation script.

Checks. Full runs: each value inside the published spread (the smallest to
the largest published value) widened by an allowance, which is this script's
choice, not a published number: 5% on Cd and St, 10% on L/D, 15% on the
lift amplitude. Why: the domain is not unbounded. Its blockage D/H = 3.3%
(periodic sides: an infinite column of cylinders 30 D apart, which confines
less than walls would) and the uniform inflow imposed only 15 D upstream
both speed up the flow past the body, raising Cd and St by an amount of the
order of the blockage; the wake length and the lift amplitude are more
sensitive (the computations at Re 40 differ among themselves by 5% in L/D).
A lattice of N = 20 adds its own few per cent (Schaefer-Turek at N = 20 with
the curved wall: see README.md). Tritton's experimental Cd is reported, not
checked (an experiment read from a curve, with its own end effects). Plus:
re20/re40 swing <= 0.5% and drift <= 1e-3; re100 periodicity <= 2%.

--quick: the CTest-sized version, re20 on N = 8 cells in a 30 D x 16 D
domain (cylinder 10 D behind the inlet, a 5 D sponge), U = 0.1 (half the
steps of U = 0.05), inlet ramp 25 D/U, 80 D/U steps (6,400 steps on
240 x 128 cells). Checked against what this grid itself gives (measured:
grid_values below), not the literature: Cd within 1%, L/D within 3%; the
swing <= 0.1% (measured 1.2e-4; the reflecting outlet, --quick --sponge 0,
gives 0.47 and fails it); drift <= 1e-3. Other cases with --quick, or other
options, get sanity bounds (the literature's spread widened by 15% for Cd
and St, 25% for L/D, 40% for the lift amplitude).

--from-dir DIR analyses the outputs of a finished run in DIR (problem.toml,
forces.csv, final_state.dat, av_vels.dat), e.g. one copied from a GPU
machine, without running the solver; the options must describe that run
(its problem.toml is compared with the one they give).
"""

import math
import os
import shlex
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402
from schafer_turek import (check_from_dir, decimate, lift_crossings, mean, read_cylinder_coefficients,  # noqa: E402
                           window_means)

WINDOW_FRACTION = 0.4  # analyse the last 40% of the run

# Published values per case and quantity: {source: value}.
LITERATURE = {
    "re20": {
        "cd": {"Dennis & Chang 1970": 2.045, "Fornberg 1980": 2.0001},
        "recirculation_length": {"Dennis & Chang 1970": 0.94, "Fornberg 1980": 0.91},
    },
    "re40": {
        "cd": {"Dennis & Chang 1970": 1.522, "Fornberg 1980": 1.498},
        "recirculation_length": {"Dennis & Chang 1970": 2.35, "Fornberg 1980": 2.24},
    },
    "re100": {
        "st": {"Williamson 1996": 0.164, "Liu, Zheng & Sung 1998": 0.165},
        "cd": {"Liu, Zheng & Sung 1998": 1.350},
        "cl_amplitude": {"Liu, Zheng & Sung 1998": 0.339},
    },
}
REPORTED = {  # published, not checked
    "re20": {"cd": {"Tritton 1959 (experiment)": 2.22}},
    "re100": {"cd_amplitude": {"Liu, Zheng & Sung 1998": 0.012}},
}
CITATIONS = {
    "Dennis & Chang 1970": "S. C. R. Dennis and G.-Z. Chang, J. Fluid Mech. 42 (1970) 471-489",
    "Fornberg 1980": "B. Fornberg, J. Fluid Mech. 98 (1980) 819-855",
    "Tritton 1959 (experiment)": "D. J. Tritton, J. Fluid Mech. 6 (1959) 547-567",
    "Williamson 1996": "C. H. K. Williamson, Annu. Rev. Fluid Mech. 28 (1996) 477-539",
    "Liu, Zheng & Sung 1998": "C. Liu, X. Zheng and C. H. Sung, J. Comput. Phys. 139 (1998) 35-57",
}
# Allowance around the published spread (relative): full runs, and the sanity bounds of --quick.
ALLOWANCE = {"cd": 0.05, "st": 0.05, "recirculation_length": 0.10, "cl_amplitude": 0.15}
SANITY = {"cd": 0.15, "st": 0.15, "recirculation_length": 0.25, "cl_amplitude": 0.40}
CASES = {"re20": {"re": 20.0, "steady": True}, "re40": {"re": 40.0, "steady": True},
         # Shedding from a quarter cell's asymmetry reaches its final amplitude
         # after about 150 D/U (at 150 the lift still grew by 77% per period's max).
         "re100": {"re": 100.0, "steady": False, "transits": 300.0}}
DEFAULTS = {"cells": 20, "u": 0.05, "length": 50.0, "width": 30.0, "centre": 15.0, "sponge_d": 5.0,
            "ramp": 50.0, "transits": 150.0}
QUICK = {"cells": 8, "u": 0.1, "length": 30.0, "width": 16.0, "centre": 10.0, "sponge_d": 5.0,
         "ramp": 25.0, "transits": 80.0}
# What the --quick grid gives (float, PoCL, commit 359efc7; options at their --quick defaults), per
# (case, boundary, collision): its own discretisation and domain error, so the check can be tight.
GRID_VALUES = {("re20", "interpolated", "trt"): {"cd": 2.21191, "recirculation_length": 0.901443}}
GRID_TOLERANCE = {"cd": 0.01, "recirculation_length": 0.03}
SWING_LIMIT = {"full": 5e-3, "quick": 1e-3}
DRIFT_LIMIT = 1e-3
PERIODICITY_LIMIT = 0.02
LABELS = {"cd": "Cd (mean)", "recirculation_length": "L/D", "st": "St", "cl_amplitude": "Cl amplitude",
          "cd_amplitude": "Cd amplitude"}


# ---------------------------------------------------------------------------
# Set-up
# ---------------------------------------------------------------------------

def setup(args):
    """Grid, flow, cylinder, steps and the problem tables the options give."""
    cfg = CASES[args.case_name]
    base = QUICK if args.quick else DEFAULTS
    N = args.cells or base["cells"]
    if N < 4:
        raise common.RunError("--cells must be at least 4")
    U = args.u if args.u is not None else base["u"]
    if not 0.0 < U < 0.2:
        raise common.RunError("--u must be in (0, 0.2) (lattice units; Mach number U sqrt(3))")
    length = args.length or base["length"]
    width = args.width or base["width"]
    centre = args.centre or base["centre"]
    nx, ny = int(round(length * N)), int(round(width * N))
    if ny % 2:
        ny += 1
    sponge = args.sponge if args.sponge is not None else int(round(base["sponge_d"] * N))
    if sponge < 0 or args.inlet_sponge < 0:
        raise common.RunError("--sponge and --inlet-sponge take a number of columns >= 0")
    cx = centre * N
    cy = ny / 2.0 + 0.25
    r = 0.5 * N
    if cx - r - 2 < args.inlet_sponge or cx + r + 2 * N > nx - sponge:
        raise common.RunError("the cylinder (x = %g to %g) overlaps a sponge or leaves no wake room before the "
                              "outlet's (from column %d)" % (cx - r, cx + r, nx - sponge))
    nu = U * N / cfg["re"]
    omega = 1.0 / (3.0 * nu + 0.5)
    transits = args.transits or (None if args.quick else cfg.get("transits")) or base["transits"]
    steps = args.steps or int(math.ceil(transits * N / U))
    ramp_d = args.ramp if args.ramp is not None else base["ramp"]
    ramp = int(math.ceil(ramp_d * N / U))
    flow = {"steps": steps, "viscosity": nu, "collision": args.collision}
    if args.magic is not None:
        if args.collision != "trt":
            raise common.RunError("--magic is for --collision trt only")
        flow["magic"] = args.magic
    if ramp > 0:
        flow["inlet_ramp"] = ramp
    left = {"inlet_velocity": [U, 0.0]}
    if args.inlet_sponge:
        left["sponge"] = args.inlet_sponge
    right = {"outlet_density": 1.0}
    if sponge:
        right["sponge"] = sponge
    tables = {
        "grid": {"nx": nx, "ny": ny},
        "flow": flow,
        "edges": {"left": left, "right": right, "bottom": "periodic", "top": "periodic"},
        # common.write_problem writes "[<name>]": this name makes it the array-of-tables header [[obstacle]].
        "[obstacle]": {"name": "cylinder", "boundary": args.boundary,
                       "circle": {"center": [float(cx), float(cy)], "radius": float(r)}},
        "forces": {"velocity": U, "length": N},
    }
    return {"case": args.case_name, "cfg": cfg, "re": cfg["re"], "N": N, "U": U, "nx": nx, "ny": ny,
            "length_d": nx / float(N), "width_d": ny / float(N), "centre_d": centre, "cx": cx, "cy": cy, "r": r,
            "nu": nu, "omega": omega, "steps": steps, "transits": steps * U / N, "ramp": ramp,
            "ramp_d": ramp * U / N, "sponge": sponge, "inlet_sponge": args.inlet_sponge, "tables": tables}


def comment_for(s):
    return ("Cylinder in open flow, Re %g, D = %d cells, %g D x %g D (written by validation/cylinder_open.py)"
            % (s["re"], s["N"], s["length_d"], s["width_d"]))


def at_quick_defaults(args):
    """The options the --quick grid values were measured with (the sponges aside: they do not move the mean)."""
    return (args.quick and args.cells is None and args.u is None and args.length is None and args.width is None
            and args.centre is None and args.ramp is None and args.transits is None and args.steps is None
            and args.magic is None)


def bounds_for(args, s):
    """{quantity: (lower, upper, what)} of the checked values."""
    lit = LITERATURE[s["case"]]
    out = {}
    key = (s["case"], args.boundary, args.collision)
    if at_quick_defaults(args) and key in GRID_VALUES:
        for name, v in GRID_VALUES[key].items():
            tol = GRID_TOLERANCE[name]
            out[name] = (v * (1 - tol), v * (1 + tol), "this grid's value %.6g +- %g%%" % (v, 100 * tol))
        return out
    widen = SANITY if args.quick else ALLOWANCE
    for name, values in lit.items():
        lo, hi = min(values.values()), max(values.values())
        a = widen[name]
        out[name] = (lo * (1 - a), hi * (1 + a), "published %.6g-%.6g widened by %g%%%s"
                     % (lo, hi, 100 * a, " (sanity, --quick)" if args.quick else ""))
    return out


# ---------------------------------------------------------------------------
# Reading and analysing the run's outputs
# ---------------------------------------------------------------------------

def read_forces(run_dir, s):
    """forces.csv: (steps completed, Cd, Cl, largest |ours - solver's| of Cd and Cl or None); C = 2 F / (U^2 D)."""
    return read_cylinder_coefficients(run_dir, s["steps"], s["U"], s["N"])


def wake_line(run_dir, s):
    """u_x / U on the wake centre line y = cy behind the cylinder, from final_state.dat:
    [(x from the cylinder's centre in D, u_x / U, both cells fluid)], or None without final_state.dat."""
    if not os.path.exists(os.path.join(run_dir, "final_state.dat")):
        return None
    field = common.read_final_state(run_dir, s["nx"], s["ny"])
    j0 = int(math.floor(s["cy"]))
    w1 = s["cy"] - j0
    out = []
    for i in range(int(math.floor(s["cx"])), s["nx"]):
        fluid = field.obstacle[j0][i] == 0 and field.obstacle[j0 + 1][i] == 0
        u = (1.0 - w1) * field.ux[j0][i] + w1 * field.ux[j0 + 1][i]
        out.append(((i - s["cx"]) / s["N"], u / s["U"], fluid))
    return out


def recirculation_length(line, s):
    """L/D: from the rear surface x = cx + r to where u_x on the centre line turns positive."""
    x_s = 0.5  # the rear surface, in D from the centre
    fluid = [(x, u) for x, u, ok in line if ok and x > x_s]
    if not fluid:
        return float("nan")
    if fluid[0][1] >= 0.0:
        return 0.0
    for (xa, ua), (xb, ub) in zip(fluid, fluid[1:]):
        if ub >= 0.0:
            return xa + (xb - xa) * (-ua) / (ub - ua) - x_s
    return float("nan")


def analyse_steady(t, cd, cl, s):
    steps = s["steps"]
    t0 = steps * (1.0 - WINDOW_FRACTION)
    half = steps * WINDOW_FRACTION / 2.0
    w = [c for tt, c in zip(t, cd) if tt > t0]
    m = mean(w)
    last, before = window_means(t, cd, steps - half, steps), window_means(t, cd, t0, steps - half)
    return {"window_from_step": t0, "cd": m, "cd_min": min(w), "cd_max": max(w),
            "swing": (max(w) - min(w)) / m, "cd_drift": abs(last - before) / abs(last),
            "cl": window_means(t, cl, t0, steps)}


def analyse_periodic(t, cd, cl, s):
    steps = s["steps"]
    t0 = steps * (1.0 - WINDOW_FRACTION)
    idx = [k for k, tt in enumerate(t) if tt > t0]
    wt, wcd, wcl = [t[k] for k in idx], [cd[k] for k in idx], [cl[k] for k in idx]
    nan = float("nan")
    res = {"window_from_step": t0, "cd": mean(wcd), "cd_amplitude": 0.5 * (max(wcd) - min(wcd)),
           "cl_mean": mean(wcl), "st": nan, "period_steps": nan, "periods": 0, "cl_amplitude": nan,
           "cl_max_spread": nan, "period_spread": nan, "swing": (max(wcd) - min(wcd)) / mean(wcd)}
    amp = 0.5 * (max(wcl) - min(wcl))
    if amp < 1e-3:
        print("re100: no shedding: Cl varies by +-%.2e over the last %d%% of the run" % (amp, 100 * WINDOW_FRACTION))
        return res
    level, ups = lift_crossings(wt, wcl, amp)
    res["cl_mean"], res["crossings"] = level, len(ups)
    if len(ups) < 3:
        print("re100: only %d upward crossings of mean Cl in the analysed part: no period" % len(ups))
        return res
    periods = [b - a for a, b in zip(ups, ups[1:])]
    period = (ups[-1] - ups[0]) / (len(ups) - 1)
    per_max, per_amp = [], []
    for a, b in zip(ups, ups[1:]):
        seg = [c for tt, c in zip(wt, wcl) if a <= tt < b]
        per_max.append(max(seg))
        per_amp.append(0.5 * (max(seg) - min(seg)))
    whole = [c for tt, c in zip(wt, wcd) if ups[0] <= tt < ups[-1]]
    res.update({"period_steps": period, "periods": len(periods),
                "period_spread": (max(periods) - min(periods)) / period,
                "st": s["N"] / (period * s["U"]), "cl_amplitude": mean(per_amp),
                "cl_max_spread": (max(per_max) - min(per_max)) / abs(mean(per_max)),
                "cd": mean(whole), "cd_amplitude": 0.5 * (max(whole) - min(whole))})
    return res


# ---------------------------------------------------------------------------
# Output
# ---------------------------------------------------------------------------

def describe(name, value, lo, hi, what):
    if value is None or not math.isfinite(value):
        return "  %-14s %-10s [%.5g, %.5g]  no value (%s)" % (LABELS.get(name, name), "-", lo, hi, what)
    inside = "inside" if lo <= value <= hi else "OUTSIDE"
    return "  %-14s %-10.5g [%.5g, %.5g]  %s (%s)" % (LABELS.get(name, name), value, lo, hi, inside, what)


def write_plot(out, s, bounds, steady, args):
    title = "Cylinder in open flow, Re %g, D = %d (%d x %d), %s, %s wall, sponge %d/%d, %d steps" % (
        s["re"], s["N"], s["nx"], s["ny"], args.collision, args.boundary, s["inlet_sponge"], s["sponge"], s["steps"])
    x0 = s["steps"] * (1.0 - WINDOW_FRACTION) * s["U"] / s["N"]
    cd_lo, cd_hi = bounds["cd"][0], bounds["cd"][1]
    body = 'set multiplot layout 2,2 title "%s"\nset xlabel "t U / D"\n' % title
    body += ('set ylabel "Cd"\nset yrange [%g:%g]\n'
             'plot "cylinder_open_forces.csv" using 2:3 with lines lw 2 title "Cd", '
             '%g with lines dt 2 lc rgb "gray" title "checked bounds", %g with lines dt 2 lc rgb "gray" notitle\n'
             % (0.8 * cd_lo, 1.2 * cd_hi, cd_lo, cd_hi))
    body += ('set ylabel "Cd"\nset xrange [%g:*]\nset yrange [*:*]\n'
             'plot "cylinder_open_forces.csv" using 2:3 with lines lw 2 title "Cd, the analysed window"\n'
             'set xrange [*:*]\n' % x0)
    body += ('set ylabel "Cl"\nplot "cylinder_open_forces.csv" using 2:4 with lines lw 1 title "Cl"\n')
    if steady:
        lo, hi = bounds["recirculation_length"][0], bounds["recirculation_length"][1]
        body += ('set xlabel "(x - cx) / D on the wake centre line"\nset ylabel "u_x / U"\nset xrange [0:%g]\n'
                 'set arrow from %g, graph 0 to %g, graph 1 nohead dt 2 lc rgb "gray"\n'
                 'set arrow from %g, graph 0 to %g, graph 1 nohead dt 2 lc rgb "gray"\n'
                 'plot "cylinder_open_wake.csv" using 1:2 with linespoints pt 7 ps 0.4 title '
                 '"u_x / U (checked L/D bounds dashed)", 0 with lines lc rgb "black" notitle\n'
                 % (max(4.0, 2.5 * hi), 0.5 + lo, 0.5 + lo, 0.5 + hi, 0.5 + hi))
    else:
        body += ('set ylabel "Cl"\nset xrange [%g:*]\n'
                 'plot "cylinder_open_forces.csv" using 2:4 with lines lw 1 title "Cl, the analysed window"\n' % x0)
    body += "unset multiplot\n"
    common.run_gnuplot(common.write_gnuplot(out, "cylinder_open", body, width=1400, height=900))


def gpu_command(args):
    """The command that runs this case on an NVIDIA GPU with a CUDA build, the log holding the summary."""
    opts = ["--case", args.case_name]
    for flag, value in (("--cells", args.cells), ("--u", args.u), ("--sponge", args.sponge),
                        ("--inlet-sponge", args.inlet_sponge or None), ("--collision", args.collision),
                        ("--boundary", args.boundary), ("--magic", args.magic), ("--transits", args.transits),
                        ("--steps", args.steps), ("--length", args.length), ("--width", args.width),
                        ("--centre", args.centre), ("--ramp", args.ramp)):
        if value is not None and not (flag == "--collision" and value == "trt") and \
                not (flag == "--boundary" and value == "interpolated"):
            opts += [flag, str(value)]
    name = "cylinder-open-%s%s" % (args.case_name, "-sponge%s" % args.sponge if args.sponge is not None else "")
    return ("python3 validation/cylinder_open.py %s --backend cuda --exe build/d2q9-bgk --out results/validation/"
            "cylinder_open/%s 2>&1 | tee %s.log" % (" ".join(shlex.quote(o) for o in opts), name[len("cylinder-open-"):],
                                                    name))


# ---------------------------------------------------------------------------

def main():
    parser = common.make_parser("cylinder_open", __doc__.splitlines()[0])
    parser.add_argument("--case", dest="case_name", choices=sorted(CASES), default="re20",
                        help="re20, re40 (steady) or re100 (vortex shedding); default re20")
    parser.add_argument("--cells", type=int, default=None, help="cells per diameter D (default 20; --quick 8)")
    parser.add_argument("--u", type=float, default=None, help="inflow velocity U, lattice units (default 0.05; "
                        "--quick 0.1)")
    parser.add_argument("--sponge", type=int, default=None,
                        help="outlet sponge columns (default 5 D; 0: none, the reflecting outlet)")
    parser.add_argument("--inlet-sponge", type=int, default=0, help="inlet sponge columns (default 0)")
    parser.add_argument("--collision", choices=["bgk", "trt", "regularised"], default="trt",
                        help="[flow] collision (default trt)")
    parser.add_argument("--magic", type=float, default=None, help="TRT's magic parameter ([flow] magic; TRT only)")
    parser.add_argument("--boundary", choices=["staircase", "interpolated"], default="interpolated",
                        help="the cylinder's wall: the circle (interpolated bounce-back; default) or its cells' "
                             "staircase")
    parser.add_argument("--transits", type=float, default=None,
                        help="run this many D/U (default 150, re100 300; --quick 80)")
    parser.add_argument("--steps", type=int, default=None, help="time steps (overrides --transits)")
    parser.add_argument("--ramp", type=float, default=None,
                        help="inlet ramp in D/U (default 50; --quick 25; 0: none)")
    parser.add_argument("--length", type=float, default=None, help="domain length nx / D (default 50; --quick 30)")
    parser.add_argument("--width", type=float, default=None, help="domain width ny / D (default 30; --quick 16)")
    parser.add_argument("--centre", type=float, default=None,
                        help="the cylinder's centre behind the inlet, in D (default 15; --quick 10)")
    parser.add_argument("--from-dir", default=None,
                        help="analyse the outputs already in this run folder (problem.toml, forces.csv, "
                             "final_state.dat, av_vels.dat) instead of running d2q9-bgk")
    args = common.parse_args(parser)
    if args.out == os.path.join(common.REPO_ROOT, "results", "validation", "cylinder_open"):
        args.out = os.path.join(args.out, args.case_name + ("-quick" if args.quick else ""))
    s = setup(args)
    cfg = s["cfg"]
    steady = cfg["steady"]
    bounds = bounds_for(args, s)
    os.makedirs(args.out, exist_ok=True)
    gpu = gpu_command(args)

    print("cylinder_open %s: Re %g, D = %d cells, %d x %d cells (%g D x %g D, blockage D/H = %.2f%%), centre "
          "(%g, %g) = %g D behind the inlet, U = %g, nu = %.6g, omega = %.6f (%s, %s wall), sponges %d (inlet) / "
          "%d (outlet) columns, inlet ramp %d steps (%g D/U), %d steps (%g D/U)"
          % (s["case"], s["re"], s["N"], s["nx"], s["ny"], s["length_d"], s["width_d"], 100.0 / s["width_d"],
             s["cx"], s["cy"], s["centre_d"], s["U"], s["nu"], s["omega"], args.collision, args.boundary,
             s["inlet_sponge"], s["sponge"], s["ramp"], s["ramp_d"], s["steps"], s["transits"]), flush=True)
    cell_steps = float(s["nx"]) * s["ny"] * s["steps"]
    if not args.from_dir and cell_steps > 2e10:
        print("note: %.2g cell updates: a GPU's run (hours on a few CPU cores). On an NVIDIA GPU with a CUDA "
              "build:\n    %s\n  then copy its run folder back and analyse it here with the same options and\n"
              "    --from-dir results/validation/cylinder_open/%s/run" % (cell_steps, gpu, gpu.split("cylinder_open/")[1]
                                                                         .split(" ")[0]), flush=True)

    if args.from_dir:
        run_dir = os.path.abspath(args.from_dir)
        check_from_dir(run_dir, s, args.out, comment_for(s), "--case, --cells, --u, --sponge, --steps, ...")
        exe = None
        run = {"command": "(from %s)" % run_dir, "seconds": None}
        print("from-dir: analysing %s" % run_dir)
    else:
        exe = common.find_exe(args.exe)
        run_dir = os.path.join(args.out, "run")
        if not args.reuse and os.path.exists(os.path.join(run_dir, "forces.csv")):
            os.remove(os.path.join(run_dir, "forces.csv"))
        run = common.run_solver(args, run_dir, s["tables"], comment_for(s))

    t, cd, cl, solver_diff = read_forces(run_dir, s)
    line = wake_line(run_dir, s)
    if steady:
        res = analyse_steady(t, cd, cl, s)
        res["recirculation_length"] = recirculation_length(line, s) if line else None
        values = {"cd": res["cd"], "recirculation_length": res["recirculation_length"]}
        print("%s: over the last %d%% (from step %d): mean Cd %.6g (min %.6g, max %.6g), swing %.3e, drift %.2e, "
              "mean Cl %.3e, L/D %s" % (s["case"], 100 * WINDOW_FRACTION, res["window_from_step"], res["cd"],
                                        res["cd_min"], res["cd_max"], res["swing"], res["cd_drift"], res["cl"],
                                        "%.4f" % res["recirculation_length"] if line else "- (no final_state.dat)"))
    else:
        res = analyse_periodic(t, cd, cl, s)
        values = {"st": res["st"], "cd": res["cd"], "cl_amplitude": res["cl_amplitude"]}
        print("re100: over the last %d%% (from step %d): %d periods of %.2f steps (spread %.2e): St %.5g; mean Cd "
              "%.5g +- %.4g; Cl mean %.3e +- %.4g; per-period max Cl spread %.2e"
              % (100 * WINDOW_FRACTION, res["window_from_step"], res["periods"], res["period_steps"],
                 res["period_spread"], res["st"], res["cd"], res["cd_amplitude"], res["cl_mean"],
                 res["cl_amplitude"], res["cl_max_spread"]))
    av_path = os.path.join(run_dir, "av_vels.dat")
    drift = common.steady_drift(common.read_av_vels(run_dir)) if os.path.exists(av_path) else None
    if drift is not None:
        print("steady drift (relative change of the mean speed over the last 10%% of steps): %.2e" % drift)
    if solver_diff is not None:
        print("solver's own Cd/Cl columns: largest |ours - theirs| = %.2e" % solver_diff)

    print("published values:")
    table = []
    for name, pubs in list(LITERATURE[s["case"]].items()) + list(REPORTED.get(s["case"], {}).items()):
        v = values.get(name, res.get(name))
        for src, p in pubs.items():
            checked = name in LITERATURE[s["case"]] and src in LITERATURE[s["case"]][name]
            dev = (v - p) / p if v is not None and math.isfinite(v) else float("nan")
            print("  %-14s ours %-10.5g %-28s %-8.5g (%+.2f%%)%s" % (LABELS.get(name, name), v if v is not None
                  else float("nan"), src, p, 100 * dev, "" if checked else "  reported, not checked"))
            table.append((name, v if v is not None else float("nan"), src, p, dev,
                          "spread" if checked else "not checked"))
    print("checked bounds:")
    for name, (lo, hi, what) in bounds.items():
        print(describe(name, values.get(name), lo, hi, what))

    # Files: the coefficients against time (decimated), the wake line, the comparison.
    conv = s["U"] / s["N"]
    common.write_csv(os.path.join(args.out, "cylinder_open_forces.csv"), ["steps", "t_U_over_D", "Cd", "Cl"],
                     decimate([(int(tt), tt * conv, a, b) for tt, a, b in zip(t, cd, cl)], 20000))
    if line:
        common.write_csv(os.path.join(args.out, "cylinder_open_wake.csv"), ["x_minus_cx_over_D", "ux_over_U"],
                         [(x, u) for x, u, ok in line if ok])
    common.write_csv(os.path.join(args.out, "cylinder_open_results.csv"),
                     ["quantity", "value", "source", "published", "relative_difference", "note"], table)
    write_plot(args.out, s, bounds, steady, args)

    summary = common.base_summary(args, exe, {
        "case_description": "cylinder in open flow, Re %g" % s["re"],
        "references": {k: CITATIONS[k] for k in CITATIONS},
        "literature": LITERATURE[s["case"]], "reported_literature": REPORTED.get(s["case"], {}),
        "literature_confirmed": "none against the papers themselves (no copy found); Re 40 L/D 2.24 and 2.35 and the Re 20 "
                                "L/D range 0.91-0.94 match a third-party compilation; the rest as the issue states",
        "allowance": ALLOWANCE, "sanity_allowance_quick": SANITY,
        "bounds": {k: {"lower": lo, "upper": hi, "what": w} for k, (lo, hi, w) in bounds.items()},
        "reynolds": s["re"], "cells_per_diameter": s["N"], "nx": s["nx"], "ny": s["ny"],
        "domain_over_D": [s["length_d"], s["width_d"]], "blockage": 1.0 / s["width_d"],
        "cylinder": {"cx": s["cx"], "cy": s["cy"], "radius": s["r"], "centre_behind_inlet_over_D": s["centre_d"]},
        "geometry": "x = 0 at the inlet column 0; bottom and top periodic; cylinder cells (i - cx)^2 + (j - cy)^2 "
                    "<= r^2, cy = ny/2 + 0.25; wake line y = cy (rows ny/2, ny/2 + 1 weighted 3/4, 1/4)",
        "u_lattice": s["U"], "viscosity": s["nu"], "omega": s["omega"], "collision": args.collision,
        "magic": args.magic, "boundary": args.boundary, "sponge_outlet": s["sponge"],
        "sponge_inlet": s["inlet_sponge"], "inlet_ramp": s["ramp"], "inlet_ramp_over_D_U": s["ramp_d"],
        "steps": s["steps"], "t_U_over_D": s["transits"], "window": "last %d%% of the steps" % (100 * WINDOW_FRACTION),
        "coefficients": "Cd = 2 Fx / (rho U^2 D), Cl = 2 Fy / (rho U^2 D), rho = 1, from forces.csv",
        "solver_coefficients_max_difference": solver_diff, "values": values, "analysis": res,
        "steady_drift": drift, "from_dir": args.from_dir, "gpu_command": gpu,
        "command": run["command"], "seconds": run["seconds"]})
    checks = []
    for name, (lo, hi, what) in bounds.items():
        v = values.get(name)
        v = float("nan") if v is None else v
        common.check(checks, name, v, lo, "min")
        common.check(checks, name, v, hi, "max")
    if steady:
        common.check(checks, "cd_swing", res["swing"], SWING_LIMIT["quick" if args.quick else "full"])
        common.check(checks, "cd_drift", res["cd_drift"], DRIFT_LIMIT)
    else:
        common.check(checks, "cl_max_spread", res["cl_max_spread"], PERIODICITY_LIMIT)
    common.finish(args, summary, checks)


if __name__ == "__main__":
    common.main(main)

#!/usr/bin/env python3
"""Conduction from a suddenly heated wall at omega_T near 2: BGK rings on the temperature lattice, TRT does not.

Geometry. A 1D conduction problem: the grid is nx x 3 cells, periodic in y
(bottom and top), column 0 a wall held at T = 1 (`left = { temperature =
1.0 }`) and column nx-1 one held at T = 0; every fluid cell starts at T = 0
([heat] initial). No gravity: the flow stays at rest and the temperature
only diffuses, with diffusivity alpha = --diffusivity (default 0.001, so
omega_T = 1 / (3 alpha + 0.5) = 1.988, the relaxation time 0.503). The wall
surfaces lie half a cell inside columns 0 and nx-1 (anti-bounce-back), so
the slab is L = nx - 2 wide and the steady profile is the line
T(x) = 1 - (x - 0.5) / L at cell x.

Why. Near omega_T = 2 BGK leaves the D2Q5 lattice's even non-equilibrium
modes almost undamped (each step multiplies them by 1 - omega_T = -0.988):
the jump at the wall excites them and they ring, alternating sign from step
to step, and the temperature leaves [0, 1], which the heat equation's
maximum principle forbids. TRT ([heat] collision = "trt", magic = Lambda =
1/4) relaxes the even part at omega_T+ with (1/omega_T+ - 1/2)(1/omega_T -
1/2) = Lambda, and the odd part (the flux, which sets alpha) at omega_T
(docs/heat.md; I. Ginzburg, Adv. Water Resour. 28 (2005) 1171-1195, on TRT
for advection-diffusion).

Measured. The transient is sampled by runs of --sample-steps steps (pairs
N, N+1): the maximum-principle violation max(T - 1, -T, 0) over the fluid
cells and samples, and the step-to-step swing |T(N+1) - T(N)| of the cell
next to the hot wall. Then each collision runs --steady-steps on a slab of
L = --steady-l cells and the largest |T - line| is taken.

Checks. TRT's violation <= 1e-6 and <= 3% of BGK's; TRT's swing at the wall
<= 3% of BGK's (measured 0.66%: TRT's is the real rise of T, not ringing); BGK does ring (violation >= 0.01: else this check shows
nothing); both reach the line within 1e-5.

Full: L = 100, samples up to 2,001 steps, the steady slab L = 32 for
2,000,000 steps. --quick: L = 40, samples N = 20, 50, 100, 200 (and N+1),
the steady slab L = 16 for 400,000 steps; about 15 s on PoCL (2 shared
cores), double. Measured: BGK violation 0.252 (T = -0.252 at step 21; at
step 100 T = -0.153 two cells from the wall), swing 0.348; TRT violation 0,
swing 2.3e-3 (steps 20 to 21); steady within 1.2e-7 (BGK) and 1.3e-7 (TRT).
"""

import argparse
import math
import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402

TRT_VIOLATION_TOL = 1e-6
RATIO_TOL = 0.03
BGK_RINGS = 0.01
STEADY_TOL = 1e-5
FULL = {"l": 100, "samples": [20, 50, 100, 200, 500, 1000, 2000], "steady_l": 32, "steady_steps": 2000000}
QUICK = {"l": 40, "samples": [20, 50, 100, 200], "steady_l": 16, "steady_steps": 400000}


def tables_for(args, collision, L, steps):
    if args.bgk_only:
        collision = "bgk"  # what a TRT that is not applied gives
    heat = {"diffusivity": args.diffusivity, "collision": collision, "initial": 0.0}
    if collision == "trt":
        heat["magic"] = args.magic
    return {
        "grid": {"nx": L + 2, "ny": 3},
        "flow": {"steps": steps, "viscosity": 0.1},
        "edges": {"left": {"temperature": 1.0}, "right": {"temperature": 0.0}, "bottom": "periodic", "top": "periodic"},
        "heat": heat,
    }


def profile(args, collision, L, steps, run_dir):
    comment = ("1D conduction from a wall held at 1, %s on the temperature lattice, alpha %g, L = nx - 2 = %d "
               "(written by validation/thermal_ringing.py)" % (collision, args.diffusivity, L))
    common.run_solver(args, run_dir, tables_for(args, collision, L, steps), comment)
    field = common.read_final_state(run_dir, L + 2, 3, heat=True)
    return [field.temperature[1][i] for i in range(1, L + 1)]  # row 1, fluid columns 1 .. L


def main():
    parser = common.make_parser("thermal_ringing", __doc__.splitlines()[0], precision="double")
    parser.add_argument("--diffusivity", type=float, default=0.001, help="thermal diffusivity alpha (default 0.001)")
    parser.add_argument("--magic", type=float, default=0.25, help="TRT's Lambda on the temperature (default 0.25)")
    parser.add_argument("--l", type=int, default=None, help="slab width L = nx - 2 of the transient (default 100; 40 with --quick)")
    parser.add_argument("--sample-steps", default=None,
                        help="comma list of N: runs of N and N + 1 steps (default 20,50,...,2000; 20,50,100,200 with --quick)")
    parser.add_argument("--steady-l", type=int, default=None, help="slab width of the steady runs (default 32; 16 with --quick)")
    parser.add_argument("--steady-steps", type=int, default=None,
                        help="steps of the steady runs (default 2,000,000; 400,000 with --quick)")
    parser.add_argument("--bgk-only", action="store_true", help=argparse.SUPPRESS)  # to see the checks fail
    args = common.parse_args(parser)
    cfg = dict(QUICK if args.quick else FULL)
    L = args.l or cfg["l"]
    samples = [int(s) for s in args.sample_steps.split(",")] if args.sample_steps else cfg["samples"]
    steady_l = args.steady_l or cfg["steady_l"]
    steady_steps = args.steady_steps or cfg["steady_steps"]
    if L < 4 or steady_l < 4 or min(samples) < 1:
        raise common.RunError("--l and --steady-l must be at least 4, --sample-steps positive")
    if args.out == os.path.join(common.REPO_ROOT, "results", "validation", "thermal_ringing"):
        args.out = os.path.join(args.out, "quick" if args.quick else "full")
    exe = common.find_exe(args.exe)
    os.makedirs(args.out, exist_ok=True)
    omega_t = 1.0 / (3.0 * args.diffusivity + 0.5)
    print("thermal ringing: alpha %g (omega_T %.5f), L = %d, samples at %s (+1), steady L = %d for %d steps"
          % (args.diffusivity, omega_t, L, samples, steady_l, steady_steps), flush=True)

    results, sample_rows, profiles = {}, [], {}
    for collision in ("bgk", "trt"):
        violation, swing, worst = 0.0, 0.0, None
        for n in samples:
            a = profile(args, collision, L, n, os.path.join(args.out, "%s_%d" % (collision, n)))
            b = profile(args, collision, L, n + 1, os.path.join(args.out, "%s_%d" % (collision, n + 1)))
            for steps, t in ((n, a), (n + 1, b)):
                v = max(0.0, max(t) - 1.0, -min(t))
                sample_rows.append((collision, steps, max(t), min(t), v, t[0]))
                if v >= violation:
                    violation, worst = v, steps
                profiles[(collision, steps)] = t
            swing = max(swing, abs(b[0] - a[0]))
        line = [1.0 - (i - 0.5) / steady_l for i in range(1, steady_l + 1)]
        t = profile(args, collision, steady_l, steady_steps, os.path.join(args.out, "%s_steady" % collision))
        steady_dev = max(abs(x - y) for x, y in zip(t, line))
        results[collision] = {"violation": violation, "violation_at_step": worst, "swing_next_to_wall": swing,
                              "steady_max_deviation": steady_dev}
        print("%s: largest maximum-principle violation %.4g (at step %s), swing of T next to the wall %.4g, "
              "steady profile within %.3g of the line" % (collision, violation, worst, swing, steady_dev), flush=True)

    common.write_csv(os.path.join(args.out, "thermal_ringing_samples.csv"),
                     ["collision", "steps", "T_max", "T_min", "violation", "T_next_to_wall"], sample_rows)
    show = max(s for s in samples if s <= 100) if any(s <= 100 for s in samples) else samples[0]
    common.write_csv(os.path.join(args.out, "thermal_ringing_profiles.csv"),
                     ["x", "bgk_%d" % show, "bgk_%d" % (show + 1), "trt_%d" % show, "trt_%d" % (show + 1)],
                     [(i + 1 - 0.5, profiles[("bgk", show)][i], profiles[("bgk", show + 1)][i],
                       profiles[("trt", show)][i], profiles[("trt", show + 1)][i]) for i in range(min(L, 20))])
    body = """set title "Conduction from a wall held at T = 1, alpha = {alpha} (omega_T = {om:.4f}), steps {a} and {b}"
set xlabel "distance from the hot wall (cells)"
set ylabel "T"
set key top right
plot "thermal_ringing_profiles.csv" using 1:2 with linespoints lw 2 title "BGK, step {a}", \\
     "thermal_ringing_profiles.csv" using 1:3 with linespoints lw 2 title "BGK, step {b}", \\
     "thermal_ringing_profiles.csv" using 1:4 with linespoints lw 2 title "TRT (Lambda {magic}), step {a}", \\
     "thermal_ringing_profiles.csv" using 1:5 with linespoints lw 2 title "TRT, step {b}", \\
     0 with lines lc rgb "gray" notitle
""".format(alpha=args.diffusivity, om=omega_t, a=show, b=show + 1, magic=args.magic)
    common.run_gnuplot(common.write_gnuplot(args.out, "thermal_ringing", body))

    bgk, trt = results["bgk"], results["trt"]
    summary = common.base_summary(args, exe, {
        "geometry": "nx x 3, periodic in y; column 0 held at T = 1, column nx-1 at T = 0, surfaces half a cell "
                    "inside (L = nx - 2); initial T = 0; no gravity",
        "diffusivity": args.diffusivity, "omega_T": omega_t, "magic": args.magic, "L": L,
        "sample_steps": samples, "steady_L": steady_l, "steady_steps": steady_steps, "results": results,
    })
    checks = []
    common.check(checks, "trt_violation", trt["violation"], TRT_VIOLATION_TOL)
    common.check(checks, "trt_over_bgk_violation", trt["violation"] / max(bgk["violation"], 1e-300), RATIO_TOL)
    common.check(checks, "trt_over_bgk_swing_next_to_wall", trt["swing_next_to_wall"] / max(bgk["swing_next_to_wall"],
                                                                                             1e-300), RATIO_TOL)
    common.check(checks, "bgk_violation_rings", bgk["violation"], BGK_RINGS, kind="min")
    common.check(checks, "bgk_steady_deviation", bgk["steady_max_deviation"], STEADY_TOL)
    common.check(checks, "trt_steady_deviation", trt["steady_max_deviation"], STEADY_TOL)
    common.finish(args, summary, checks)


if __name__ == "__main__":
    common.main(main)

#!/usr/bin/env python3
"""Drag and Strouhal number of a cylinder in open flow against the Reynolds number.

One problem per Re, built in code (a dict with the problem file's
structure): a cylinder of D cells in a channel with periodic sides, a
velocity inlet and an absorbing outlet (validation/cylinder_open.py's
set-up). Cd is the mean drag coefficient over the run's last quarter; St =
f D / U from the lift's upward crossings of its mean over the last half
(none where the wake does not shed). One picture: Cd and St against Re.

    PYTHONPATH=build/python python3 examples/python/reynolds_sweep.py          # a few minutes on a GPU
    PYTHONPATH=build/python python3 examples/python/reynolds_sweep.py --quick  # coarse, for a CPU (PoCL)
"""
import argparse
import math
import time

import numpy as np

import d2q9


def cylinder_problem(re, cells, u, transits, ramp):
    """The open cylinder at Reynolds number `re`, D = `cells`, inflow `u` (rising over `ramp` D/U)."""
    nx, ny = int(30 * cells), int(16 * cells)
    cx, cy = 10.0 * cells, ny / 2 + 0.25  # a quarter cell off the middle row: shedding starts sooner
    return {
        "grid": {"nx": nx, "ny": ny},
        "flow": {"steps": int(math.ceil(transits * cells / u)), "viscosity": u * cells / re, "collision": "trt",
                 "inlet_ramp": int(math.ceil(ramp * cells / u))},
        "edges": {"left": {"inlet_velocity": [u, 0.0]}, "right": {"outlet_density": 1.0, "sponge": 5 * cells},
                  "bottom": "periodic", "top": "periodic"},
        "obstacle": [{"name": "cylinder", "boundary": "interpolated",
                      "circle": {"center": [cx, cy], "radius": cells / 2.0}}],
        "forces": {"velocity": u, "length": cells},
    }


def strouhal(cl, cells, u):
    """f D / U from the upward crossings of the lift's mean in the second half; None if it does not oscillate."""
    half = cl[len(cl) // 2:]
    swing = half - half.mean()
    if np.abs(swing).max() < 1e-3:
        return None
    up = np.nonzero((swing[:-1] < 0) & (swing[1:] >= 0))[0]
    if len(up) < 3:
        return None
    period = (up[-1] - up[0]) / (len(up) - 1)
    return cells / (period * u)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="D = 8 cells, 60 transits: seconds per Re on a CPU")
    ap.add_argument("--re", type=float, nargs="+", help="the Reynolds numbers (default 20 40 60 80 100 150)")
    ap.add_argument("--backend", default="opencl")
    ap.add_argument("--out", default="reynolds_sweep.png", help="the picture")
    args = ap.parse_args()
    # The inflow rises over 25 D/U steps (validation/cylinder_open.py's quick set-up): a sudden start at
    # U = 0.1 on a coarse grid blows up at Re 100.
    cells, u, transits, ramp = (8, 0.1, 60, 25) if args.quick else (20, 0.05, 200, 50)
    res = args.re or ([40, 100] if args.quick else [20, 40, 60, 80, 100, 150])

    rows = []
    for re in res:
        t0 = time.time()
        sim = d2q9.Simulation(cylinder_problem(re, cells, u, transits, ramp), backend=args.backend)
        sim.step(sim.params["steps"])
        body = sim.forces()["cylinder"]
        cd = float(body["cd"][-len(body["cd"]) // 4:].mean())
        st = strouhal(body["cl"], cells, u)
        rows.append((re, cd, st))
        print(f"Re {re:6.1f}: Cd {cd:.4f}, St {'%.4f' % st if st else 'none (no shedding)'}"
              f"  ({sim.params['nx']}x{sim.params['ny']}, {sim.steps_done} steps, {time.time() - t0:.1f} s)",
              flush=True)
        if not math.isfinite(cd) or cd <= 0:
            raise SystemExit(f"error: Re {re}: the drag coefficient {cd} is not a positive number")

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, (ax_cd, ax_st) = plt.subplots(1, 2, figsize=(10, 4))
    ax_cd.plot([r[0] for r in rows], [r[1] for r in rows], "o-")
    ax_cd.set_xlabel("Re")
    ax_cd.set_ylabel("mean drag coefficient Cd")
    shed = [r for r in rows if r[2]]
    ax_st.plot([r[0] for r in shed], [r[2] for r in shed], "s-")
    ax_st.set_xlabel("Re")
    ax_st.set_ylabel("Strouhal number St")
    ax_st.set_xlim(ax_cd.get_xlim())
    fig.suptitle(f"cylinder in open flow, D = {cells} cells" + (" (quick: coarse)" if args.quick else ""))
    fig.tight_layout()
    fig.savefig(args.out, dpi=100)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()

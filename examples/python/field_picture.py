#!/usr/bin/env python3
"""The vorticity behind a cylinder, drawn from Simulation.fields().

    PYTHONPATH=build/python python3 examples/python/field_picture.py          # inputs/examples/cylinder.toml, 8000 steps
    PYTHONPATH=build/python python3 examples/python/field_picture.py --quick  # 1500 steps
"""
import argparse
import os

import numpy as np

import d2q9

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--problem", default=os.path.join(HERE, "../../inputs/examples/cylinder.toml"))
    ap.add_argument("--steps", type=int, help="default 8000 (--quick: 1500)")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--backend", default="opencl")
    ap.add_argument("--out", default="field_picture.png")
    args = ap.parse_args()
    steps = args.steps or (1500 if args.quick else 8000)

    sim = d2q9.Simulation(args.problem, backend=args.backend)
    sim.step(steps)
    fields = sim.fields()
    w = fields["vorticity"]
    solid = (fields["ux"] == 0) & (fields["uy"] == 0) & (w == 0)
    if not np.isfinite(w).all() or np.abs(w).max() == 0:
        raise SystemExit("error: the vorticity is not a finite, non-zero field")

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    limit = np.percentile(np.abs(w), 99)
    fig, ax = plt.subplots(figsize=(10, 10 * w.shape[0] / w.shape[1] + 0.8))
    ax.imshow(np.ma.masked_where(solid, w), origin="lower", cmap="RdBu_r", vmin=-limit, vmax=limit)
    ax.set_title(f"vorticity after {sim.steps_done} steps ({sim.params['nx']}x{sim.params['ny']})")
    ax.set_axis_off()
    fig.tight_layout()
    fig.savefig(args.out, dpi=100)
    print(f"wrote {args.out}: vorticity from {w.min():.4g} to {w.max():.4g}")


if __name__ == "__main__":
    main()

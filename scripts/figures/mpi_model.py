#!/usr/bin/env python3
"""The halo-cost model of docs/mpi.md ("A model of the halo's cost"): reads
scripts/device/mpi_scaling.sh's CSV, fits each launch's fixed overhead on the 2-GPU
points, checks it against the 4-GPU points, and predicts 8 and 64 GPUs on
InfiniBand (nodes of --gpus-per-node GPUs, the slabs in rank order, so that
only the slab edges between nodes cross the network).

    scripts/figures/mpi_model.py OUT/scaling/mpi_scaling.csv [--ib-gbit 200] [--gpus 8,64] ...

Per launch (H steps: blocked's steps per launch, 1 for the one-step kernels)
each rank updates its C cells H times and sends H edge rows each way, all
nine speeds for blocked (three for the one-step kernels):

    compute   Tc = C H / R1                 R1: one GPU's rate (cells/s), measured
    bytes     B  = H nx speeds value_bytes  each way, each slab edge
    transfer  Tx = latency + B / link       device to device (CUDA IPC) on one host;
                 = 2 B / pcie + latency + B / network    across hosts (staged:
                                            device -> host, MPI, host -> device)
    hidden    behind the interior: Ti = Tc (1 - 2 E / R), E the rows of the
              edge bands (one tile or work-group row each side), R the slab's rows
    launch    T  = Tc + a + max(0, Tx - Ti)

a is what a launch costs beyond its cells and its exposed transfer (the edge
bands' separate small launches, waits between the streams, the handshake,
host work per group of the slab): a = a0 + k C, least squares over the
2-GPU points of every size (strong and weak: slabs of several sizes),
checked on the 4-GPU points, which the fit has not seen, then carried to
more GPUs, where each rank still has two neighbours. Efficiency: strong T1 / (N TN), weak T1 / TN (T per
step). Only the points whose status is "ok" are read.
"""
import argparse
import csv
import re
import sys
from collections import defaultdict

VALUE_BYTES = {"float": 4, "double": 8, "fp16s": 2, "fp16c": 2}


def launch_shape(launch):
    """(steps per launch, edge-band rows, speeds each halo row carries) from the CSV's launch column."""
    m = re.match(r"blocked-(\d+)-(\d+)x(\d+)", launch or "")
    if m:
        return int(m.group(1)), int(m.group(3)), 9
    return 1, 1, 3  # fused, fused-rows: one step, one halo row of the three crossing speeds


class Link:
    def __init__(self, args):
        self.args = args

    def transfer_s(self, bytes_each_way, across_hosts, staged):
        a = self.args
        if across_hosts:
            # Across hosts the halo rows are staged: device -> pinned host, the network, host -> device.
            return (2 * bytes_each_way / (a.pcie_gbyte * 1e9) + a.network_latency_us * 1e-6 +
                    bytes_each_way / (a.ib_gbit / 8 * 1e9 * a.nic_share))
        if staged:
            return 2 * bytes_each_way / (a.pcie_gbyte * 1e9) + a.host_latency_us * 1e-6 + bytes_each_way / (a.shm_gbyte * 1e9)
        return a.peer_latency_us * 1e-6 + bytes_each_way / (a.peer_gbyte * 1e9)


def model_launch_s(point, r1, a_s, link, across_hosts, staged):
    """(launch time, compute, exposed transfer) for `point` = dict(nx, rows, H, edge_rows, speeds, value_bytes)."""
    cells = point["nx"] * point["rows"]
    tc = cells * point["H"] / r1
    b = point["H"] * point["nx"] * point["speeds"] * point["value_bytes"]
    tx = link.transfer_s(b, across_hosts, staged)
    interior = tc * max(0.0, 1 - 2 * point["edge_rows"] / point["rows"])
    exposed = max(0.0, tx - interior)
    return tc + a_s + exposed, tc, exposed


def note(text):
    """Notes go to stderr: stdout stays one CSV."""
    print("# " + text, file=sys.stderr)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("csv", help="mpi_scaling.csv from scripts/device/mpi_scaling.sh")
    p.add_argument("--gpus", default="8,64", help="GPU counts to predict (default 8,64)")
    p.add_argument("--gpus-per-node", type=int, default=4, help="GPUs per host of the predicted machine (default 4)")
    p.add_argument("--ib-gbit", type=float, default=200, help="network link per NIC, Gbit/s (default 200: HDR InfiniBand)")
    p.add_argument("--nic-share", type=float, default=1.0,
                   help="fraction of a NIC each node-crossing slab edge gets (1: a NIC per GPU, as on DGX H100; "
                        "0.5 where the two edges of a node share one)")
    p.add_argument("--network-latency-us", type=float, default=10, help="MPI over the network, per message (default 10)")
    p.add_argument("--pcie-gbyte", type=float, default=25, help="device <-> pinned host, GB/s each way (default 25: PCIe 5 x16 in practice)")
    p.add_argument("--peer-gbyte", type=float, default=150, help="device to device on one host, GB/s each way (default 150: NVLink, per neighbour)")
    p.add_argument("--peer-latency-us", type=float, default=10, help="a launch's peer copies and marks (default 10)")
    p.add_argument("--shm-gbyte", type=float, default=10, help="MPI through shared memory, GB/s (default 10; host staging on one host)")
    p.add_argument("--host-latency-us", type=float, default=20, help="host staging on one host: waits and MPI (default 20)")
    args = p.parse_args()
    link = Link(args)
    predict = [int(n) for n in args.gpus.split(",") if n]

    rows = [r for r in csv.DictReader(open(args.csv)) if r.get("status") == "ok" and r.get("seconds")]
    if not rows:
        sys.exit("error: %s has no finished points (status ok)" % args.csv)
    groups = defaultdict(list)
    for r in rows:
        groups[(r["backend"], r["precision"])].append(r)

    out = csv.writer(sys.stdout)
    note("per launch, in microseconds: Tc its cells' compute at one GPU's rate, a its overhead "
         "(a0 + k cells, fitted on the 2-GPU points), x its exposed transfer; efficiency measured and modelled")
    out.writerow(["backend", "precision", "size", "scaling", "gpus", "halos", "H", "Tc_us", "a_us", "x_us",
                  "eff_measured", "eff_model", "use"])
    for (backend, precision), pts in sorted(groups.items()):
        vbytes = VALUE_BYTES.get(precision, 4)
        base = {}  # size -> (seconds per step on one GPU, launch shape)
        for r in pts:
            if int(r["gpus"]) == 1:
                base[int(r["size"])] = (float(r["seconds"]) / int(r["steps"]), launch_shape(r["launch"]))
        measured = [r for r in pts if int(r["gpus"]) > 1 and int(r["size"]) in base]
        if not measured:
            note("%s %s: no multi-GPU point with its one-GPU baseline" % (backend, precision))
            continue

        def point(size, kind, n):
            H, edge_rows, speeds = base[size][1]
            ny = size if kind == "strong" else size * n
            return {"nx": size, "rows": ny / n, "H": H, "edge_rows": edge_rows, "speeds": speeds, "value_bytes": vbytes}

        def rate(size):
            return size * size / base[size][0]

        def efficiency(size, kind, n, t_step):
            t1 = base[size][0]
            return t1 / (n * t_step) if kind == "strong" else t1 / t_step

        # The overhead per launch beyond compute and exposed transfer, a = a0 + k C (C: cells per rank),
        # least squares over the 2-GPU points (strong and weak, every size: several slab sizes).
        fit_pts = []
        for r in measured:
            size, kind, n = int(r["size"]), r["scaling"], int(r["gpus"])
            if n != 2:
                continue
            pt = point(size, kind, n)
            t_launch = float(r["seconds"]) / int(r["steps"]) * pt["H"]
            _, tc, x = model_launch_s(pt, rate(size), 0.0, link, False, r.get("halos") in ("host-staging", "host-shared", "host-shared-copied"))
            fit_pts.append((pt["nx"] * pt["rows"], t_launch - tc - x))
        if not fit_pts:
            note("%s %s: no 2-GPU point to fit the overhead on" % (backend, precision))
            continue
        cs = [c for c, _ in fit_pts]
        mean_c = sum(cs) / len(cs)
        mean_o = sum(o for _, o in fit_pts) / len(fit_pts)
        var = sum((c - mean_c) ** 2 for c in cs)
        k = sum((c - mean_c) * (o - mean_o) for c, o in fit_pts) / var if var > 0 else 0.0
        a0 = mean_o - k * mean_c
        note("%s %s: a = %.1f us + %.3g us per million cells of the slab (%d points)" % (
            backend, precision, a0 * 1e6, k * 1e12, len(fit_pts)))

        def overhead(pt):
            return max(0.0, a0 + k * pt["nx"] * pt["rows"])

        halos_here = measured[0].get("halos", "")
        for r in sorted(measured, key=lambda r: (int(r["size"]), r["scaling"], int(r["gpus"]))):
            size, kind, n = int(r["size"]), r["scaling"], int(r["gpus"])
            pt = point(size, kind, n)
            a = overhead(pt)
            t_model, tc, x = model_launch_s(pt, rate(size), a, link, False, r.get("halos") in ("host-staging", "host-shared", "host-shared-copied"))
            t_meas = float(r["seconds"]) / int(r["steps"])
            out.writerow([backend, precision, size, kind, n, r.get("halos", ""), pt["H"], "%.1f" % (tc * 1e6),
                          "%.1f" % (a * 1e6), "%.1f" % (x * 1e6), "%.3f" % efficiency(size, kind, n, t_meas),
                          "%.3f" % efficiency(size, kind, n, t_model / pt["H"]), "fit" if n == 2 else "check"])
        for size in sorted(base):
            for kind in ("strong", "weak"):
                for n in predict:
                    across = n > args.gpus_per_node
                    pt = point(size, kind, n)
                    if pt["rows"] < 2 * pt["edge_rows"]:
                        out.writerow([backend, precision, size, kind, n, "", pt["H"], "", "", "", "", "",
                                      "too few rows per GPU"])
                        continue
                    a = overhead(pt)
                    t_model, tc, x = model_launch_s(pt, rate(size), a, link, across, halos_here in ("host-staging", "host-shared", "host-shared-copied"))
                    where = ("InfiniBand %g Gb/s between hosts of %d GPUs" % (args.ib_gbit, args.gpus_per_node)
                             if across else "one host")
                    out.writerow([backend, precision, size, kind, n, "staged across hosts" if across else halos_here,
                                  pt["H"], "%.1f" % (tc * 1e6), "%.1f" % (a * 1e6), "%.1f" % (x * 1e6), "",
                                  "%.3f" % efficiency(size, kind, n, t_model / pt["H"]), "predict (%s)" % where])

if __name__ == "__main__":
    main()

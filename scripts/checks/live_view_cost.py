#!/usr/bin/env python3
"""What serving the live view costs (docs/live-view.md#what-serving-costs):
one problem run without --serve, with --serve and no page, and with --serve
and a client making the page's requests (status and a picture every 0.4 s,
forces and probes every 2 s), the three alternated ROUNDS times; MLUPS from
each run's --summary-json, printed per run and as medians.

Usage: live_view_cost.py D2Q9_BGK PROBLEM.toml OUT_DIR [--rounds N] [--extra "-b cuda ..."]
                         [--launcher "mpirun -np 2"]
The page's last picture of each page run is kept as OUT_DIR/page_<round>/picture.png.
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import threading
import time
import urllib.request


def page_requests(url, stop, count, picture):
    """The page's requests until `stop` is set; the last picture's bytes into picture[0]."""
    base, token = url.split("/?token=")
    tick = 0
    while not stop.is_set():
        paths = ["/api/status", "/api/picture?field=speed&width=440"]
        if tick % 5 == 0:
            paths += ["/api/forces", "/api/probes"]
        for path in paths:
            try:
                body = urllib.request.urlopen(base + path + ("&" if "?" in path else "?") + "token=" + token,
                                              timeout=10).read()
                count[0] += 1
                if "picture" in path:
                    picture[0] = body
            except OSError:
                pass
        tick += 1
        time.sleep(0.4)


def run(bgk, problem, out, mode, extra, launcher):
    """One run in `mode` (plain, served, page), started by `launcher` (e.g.
    mpirun and its arguments; empty: none): its MLUPS and the requests made."""
    args = launcher + [bgk, "--no-png", "-q", "--summary-json", "summary.json", "-o", out, problem] + extra
    if mode != "plain":
        args += ["--serve", "0"]
    proc = subprocess.Popen(args, stderr=subprocess.PIPE, text=True)
    stop, count, picture = threading.Event(), [0], [None]
    if mode != "plain":
        url = None
        while url is None:  # a launcher may print lines of its own first
            line = proc.stderr.readline()
            if not line:
                raise SystemExit(f"error: {mode} run printed no 'serving' line")
            m = re.search(r"serving (http://\S+)", line)
            url = m and m.group(1)
        if mode == "page":
            threading.Thread(target=page_requests, args=(url, stop, count, picture), daemon=True).start()
    proc.wait()
    stop.set()
    if picture[0]:
        with open(os.path.join(out, "picture.png"), "wb") as f:
            f.write(picture[0])
    if proc.returncode != 0:
        raise SystemExit(f"error: {mode} run failed ({proc.returncode}): {proc.stderr.read()}")
    with open(os.path.join(out, "summary.json")) as f:
        return json.load(f)["mlups"], count[0]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("bgk", help="the d2q9-bgk to measure")
    parser.add_argument("problem", help="a problem file (.toml): a few seconds of steps")
    parser.add_argument("out", help="folder for the runs' outputs")
    parser.add_argument("--rounds", type=int, default=3, help="times each mode runs, alternated (default 3)")
    parser.add_argument("--extra", default="", help="more d2q9-bgk arguments, space-separated (e.g. \"-b cuda\")")
    parser.add_argument("--launcher", default="", help="what starts d2q9-bgk, space-separated (e.g. \"mpirun -np 2\": "
                        "rank 0 serves)")
    a = parser.parse_args()
    os.makedirs(a.out, exist_ok=True)
    results = {"plain": [], "served": [], "page": []}
    for r in range(a.rounds):
        for mode in results:
            mlups, requests = run(a.bgk, a.problem, os.path.join(a.out, f"{mode}_{r}"), mode, a.extra.split(),
                                  a.launcher.split())
            results[mode].append(mlups)
            print(f"{mode:7s} round {r}: {mlups:.2f} MLUPS, {requests} requests", flush=True)
    for mode, values in results.items():
        print(f"{mode:7s} {' '.join('%.2f' % v for v in values)}  median {statistics.median(values):.2f}")


if __name__ == "__main__":
    main()

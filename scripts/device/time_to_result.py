#!/usr/bin/env python3
# Whole-process wall time of default coursework runs, first (empty caches: ours
# and NVIDIA's, through a fresh HOME and CUDA_CACHE_PATH) and twice warm, an
# old build against a new one, alternately per problem, with md5s of the outputs.
# Builds in .dev/old/ and .dev/new/ (d2q9-bgk with its cl/ beside it), extra
# libraries in .dev/lib/; writes $OUT/gpu_times.json.
# Usage, from the repository root: scripts/device/time_to_result.py [PROBLEMS [BACKENDS]]
#   e.g. scripts/device/time_to_result.py 128x128,1024x1024 cuda,opencl
import json, os, subprocess, sys, tempfile, time, hashlib
if sys.argv[1:2] in (["-h"], ["--help"]):
    print("".join(l[2:] for l in open(__file__).readlines()[1:8]), end="")
    sys.exit(0)
OUT = os.environ.get("OUT", "/tmp/out")
probs = sys.argv[1].split(",") if len(sys.argv) > 1 else ["128x128", "128x256", "256x256", "1024x1024"]
backends = sys.argv[2].split(",") if len(sys.argv) > 2 else ["cuda", "opencl"]
versions = ["old", "new"]
rows = []
keep = []
def md5(p):
    return hashlib.md5(open(p, "rb").read()).hexdigest()[:10]
for backend in backends:
    for p in probs:
        for v in versions:
            home = tempfile.mkdtemp()
            for pas in ["cold", "warm", "warm2"]:
                out = tempfile.mkdtemp()
                env = dict(os.environ, HOME=home, D2Q9_CACHE_DIR=home + "/d2q9", CUDA_CACHE_PATH=home + "/nv",
                           LD_LIBRARY_PATH=os.getcwd() + "/.dev/lib")
                cmd = [".dev/%s/d2q9-bgk" % v, "-q", "--no-png", "-b", backend, "-o", out, "--summary-json", out + "/s.json",
                       "inputs/input_%s.params" % p, "inputs/obstacles_%s.dat" % p]
                t0 = time.monotonic()
                r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                wall = time.monotonic() - t0
                if r.returncode != 0:
                    print("FAIL", backend, v, p, pas, r.stderr.strip()[-400:], flush=True)
                    continue
                s = json.load(open(out + "/s.json"))
                row = dict(backend=backend, version=v, problem=p, run=pas, wall_s=round(wall, 3), loop_s=s["elapsed_s"],
                           setup_s=s.get("setup_s"), times=s.get("times"), variant=s.get("kernel_variant"),
                           reason=s.get("launch_reason"), device=s["device"], commit=s["program"]["commit"],
                           final_state=md5(out + "/final_state.dat"), av_vels=md5(out + "/av_vels.dat"))
                rows.append(row)
                print("%-6s %-3s %-9s %-5s wall %6.3f s  loop %6.3f s  setup %6.3f  %s fs=%s av=%s" % (
                    backend, v, p, pas, wall, s["elapsed_s"], s.get("setup_s", 0), s.get("kernel_variant"),
                    row["final_state"], row["av_vels"]), flush=True)
json.dump(rows, open(OUT + "/gpu_times.json", "w"), indent=1)

#!/bin/bash
# Probes' cost by interval: the open cylinder of real_problems.py (curved
# wall, TRT, sponge, forces, 20 probes) at GRID for STEPS steps, with probes
# every 1, 2, 4, 20 steps and none, OLD_BUILD against NEW_BUILD alternately
# (each build with its own lib/), ROUNDS rounds. One line per run appended to
# OUT/every.txt: build, interval, round, the printed loop time, md5 prefix of
# probes.csv, whole-process wall seconds.
# Usage: probe_intervals.sh OLD_BUILD NEW_BUILD OUT [BACKEND] [GRID] [STEPS] [ROUNDS]
#   defaults: cuda 1000x600 20000 2
case "${1:-}" in -h|--help) sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0 ;; esac
set -u
[ $# -ge 3 ] || { echo "usage: $0 OLD_BUILD NEW_BUILD OUT [BACKEND] [GRID] [STEPS] [ROUNDS]" >&2; exit 2; }
OLD=$1 NEW=$2 OUT=$3 BACKEND=${4:-cuda} GRID=${5:-1000x600} STEPS=${6:-20000} ROUNDS=${7:-2}
mkdir -p "$OUT"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
nx=${GRID%x*} ny=${GRID#*x}
for every in none 20 4 2 1; do
  python3 - "$nx" "$ny" "$STEPS" "$every" > "$work/every-$every.toml" <<'PY'
import sys
nx, ny, steps, every = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
D, U, cx, cy = 20, 0.05, 0.3 * nx, ny / 2 + 0.3
print(f"""[grid]
nx = {nx}
ny = {ny}
[flow]
steps = {steps}
viscosity = {U * D / 20!r}
collision = "trt"
inlet_ramp = 400
[edges]
left = {{ inlet_velocity = [{U}, 0.0] }}
right = {{ outlet_density = 1.0, sponge = 100 }}
[[obstacle]]
name = "cylinder"
boundary = "interpolated"
circle = {{ center = [{cx}, {cy}], radius = {D / 2} }}
[forces]
velocity = {U}
length = {D}""")
if every != "none":
    print(f"[probes]\nevery = {every}")
    print("".join(f"w{i} = [{i}, {int(cy)}]\n" for i in range(int(cx) + 11, int(cx) + 90, 4)), end="")
PY
done
for round in $(seq 1 "$ROUNDS"); do
  for every in none 20 4 2 1; do
    for which in old new; do
      B=$OLD; [ $which = new ] && B=$NEW
      rm -rf "$work/out" && mkdir -p "$work/out"
      t0=$(date +%s.%N)
      LD_LIBRARY_PATH=$B/lib:${LD_LIBRARY_PATH:-} "$B/d2q9-bgk" -b "$BACKEND" --no-png -o "$work/out" \
        "$work/every-$every.toml" > "$work/stdout.txt" 2>&1
      t1=$(date +%s.%N)
      echo "$which every=$every round $round: $(awk '/^Elapsed time/ {print $3}' "$work/stdout.txt") $(md5sum "$work/out/probes.csv" 2>/dev/null | cut -c1-12) wall $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')" >> "$OUT/every.txt"
    done
  done
done

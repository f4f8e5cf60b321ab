#!/usr/bin/env bash
# Writes the four coursework problems into a folder (default: inputs/ of the repo).
# Usage: scripts/setup/make_inputs.sh [DIR]
case "${1:-}" in -h|--help) sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0 ;; esac
set -euo pipefail
dir=${1:-"$(cd "$(dirname "$0")/../.." && pwd)/inputs"}
mkdir -p "$dir"

# params NX NY ITERS ACCEL: reynolds_dim 10, density 0.1, omega 1.85 throughout.
params() {
  echo "$1 $2 $3 10 0.1 $4 1.85" >"$dir/input_$1x$2.params"
}

# Blocked cells as 'x y 1', row by row from y = 0.
# obstacles NX NY box [COLUMN]: every edge cell, plus one full-height column if given.
# obstacles NX NY channel ROW: columns 0 and nx-1 over the full height, plus row ROW.
obstacles() {
  awk -v nx="$1" -v ny="$2" -v shape="$3" -v extra="${4:--1}" 'BEGIN {
    for (y = 0; y < ny; y++)
      for (x = 0; x < nx; x++) {
        side = (x == 0 || x == nx - 1)
        if (shape == "box") blocked = side || y == 0 || y == ny - 1 || x == extra
        else blocked = side || y == extra
        if (blocked) printf "%d %d 1\n", x, y
      }
  }' >"$dir/obstacles_$1x$2.dat"
}

params 128 128 40000 0.005;   obstacles 128 128 box
params 128 256 40000 0.005;   obstacles 128 256 channel 127
params 256 256 80000 0.005;   obstacles 256 256 box
params 1024 1024 20000 0.01;  obstacles 1024 1024 box 341

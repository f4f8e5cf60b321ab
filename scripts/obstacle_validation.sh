#!/bin/sh
# The Schafer-Turek cylinder benchmarks (validation/schafer_turek.py) over
# grids and collision operators, on one GPU: each run's outputs go to
# $OUT/validation/<case>-N<cells>-<collision>/, with a log line per run in
# $OUT/validation/runs.txt. The plots are made afterwards on any machine
# with gnuplot: validation/schafer_turek.py ... --from-dir that folder.
# Usage, from the repository root: scripts/obstacle_validation.sh EXE BACKEND "CASE:N:OP ..."
#   e.g. scripts/obstacle_validation.sh .dev/new/d2q9-bgk cuda "2d-1:20:bgk 2d-1:20:trt 2d-2:40:trt"
set -u
exe=$1 backend=$2 runs=$3
out=${OUT:-/tmp/out}/validation
mkdir -p "$out"
for run in $runs; do
  case=${run%%:*} rest=${run#*:} cells=${rest%%:*} op=${rest#*:}
  dir=$out/$case-N$cells-$op
  start=$(date +%s)
  python3 validation/schafer_turek.py --exe "$exe" --backend "$backend" --case "$case" --cells "$cells" \
    --collision "$op" --out "$dir" > "$dir.log" 2>&1
  status=$?
  end=$(date +%s)
  echo "$case N=$cells $op exit $status $((end - start)) s: $(grep -E '^(PASS|FAIL|error)' "$dir.log" | head -1)" | tee -a "$out/runs.txt"
done

#!/bin/sh
# The Schafer-Turek cylinder benchmarks (validation/schafer_turek.py) over
# grids, collision operators, inlet speeds and cylinder walls, on one GPU:
# each run's outputs go to $OUT/validation/<case>-N<cells>-<op>-um<um>-<wall>/,
# with a log line per run in $OUT/validation/runs.txt. The plots are made
# afterwards on any machine with gnuplot: validation/schafer_turek.py ...
# --from-dir that folder.
# Usage, from the repository root: scripts/device/obstacle_validation.sh EXE BACKEND "CASE:N:OP[:UM[:WALL]] ..."
#   OP: bgk, trt (Lambda 1/4), trt316 (Lambda 3/16) or regularised; UM: the
#   inlet's peak (default 0.1); WALL: staircase (default) or interpolated.
#   e.g. scripts/device/obstacle_validation.sh .dev/new/d2q9-bgk cuda "2d-1:20:bgk 2d-1:40:trt316:0.05:interpolated"
case "${1:-}" in -h|--help) sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0 ;; esac
set -u
exe=$1 backend=$2 runs=$3
out=${OUT:-/tmp/out}/validation
mkdir -p "$out"
for run in $runs; do
  IFS=: read -r case cells op um wall <<EOF2
$run
EOF2
  um=${um:-0.1} wall=${wall:-staircase}
  collision="--collision $op"
  [ "$op" = trt316 ] && collision="--collision trt --magic 0.1875"
  dir=$out/$case-N$cells-$op-um$um-$wall
  start=$(date +%s)
  python3 validation/schafer_turek.py --exe "$exe" --backend "$backend" --case "$case" --cells "$cells" \
    $collision --um "$um" --boundary "$wall" --out "$dir" > "$dir.log" 2>&1
  status=$?
  end=$(date +%s)
  echo "$run exit $status $((end - start)) s: $(grep -E '^(PASS|FAIL|error)' "$dir.log" | head -1)" | tee -a "$out/runs.txt"
done

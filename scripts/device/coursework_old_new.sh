#!/bin/bash
# The coursework problems, OLD_BUILD against NEW_BUILD alternately: for each
# problem and backend a first run of each (round 0: its kernel not yet in
# the cache, which starts empty), then ROUNDS rounds of old and new, each a
# whole process timed with `date` around it. One CSV line per run is
# appended to OUT_CSV as it comes: problem, backend, old|new, round, wall
# seconds, the program's loop seconds, md5 prefixes of av_vels.dat and
# final_state.dat, the start of the Launch: line. The runs' outputs and
# caches go to a temporary folder, removed at the end.
# Usage (repository root): coursework_old_new.sh OLD_BUILD NEW_BUILD OUT_CSV [PROBLEMS] [BACKENDS] [ROUNDS]
#   PROBLEMS default "128x128 128x256 256x256 1024x1024", BACKENDS "cuda opencl", ROUNDS 3.
#   OLD_BUILD may be NEW_BUILD: the same build twice.
case "${1:-}" in -h|--help) sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0 ;; esac
OLD=$1 NEW=$2 CSV=$3
PROBLEMS=${4:-128x128 128x256 256x256 1024x1024} BACKENDS=${5:-cuda opencl} ROUNDS=${6:-3}
[ -n "$CSV" ] || { echo "usage: $0 OLD_BUILD NEW_BUILD OUT_CSV [PROBLEMS] [BACKENDS] [ROUNDS]" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for p in $PROBLEMS; do
  for b in $BACKENDS; do
    for round in $(seq 0 $ROUNDS); do
      for which in old new; do
        B=$OLD; [ $which = new ] && B=$NEW
        out=$work/run-$which; rm -rf $out; mkdir -p $out
        # Each build its own kernel cache (ours, and NVIDIA's compute cache).
        t0=$(date +%s.%N)
        D2Q9_CACHE_DIR=$work/cache-$which CUDA_CACHE_PATH=$work/cuda-cache-$which LD_LIBRARY_PATH=$B/lib \
          $B/d2q9-bgk inputs/input_$p.params inputs/obstacles_$p.dat -b $b --no-png -o $out > $out/stdout.txt
        t1=$(date +%s.%N)
        loop=$(grep "^Elapsed time" $out/stdout.txt | awk '{print $3}')
        launch=$(grep "^Launch" $out/stdout.txt | head -1 | cut -c1-60 | tr ',' ';')
        sums=$(md5sum < $out/av_vels.dat | cut -c1-12),$(md5sum < $out/final_state.dat | cut -c1-12)
        echo "$p,$b,$which,$round,$(awk "BEGIN{printf \"%.3f\", $t1 - $t0}"),$loop,$sums,$launch" >> $CSV
      done
    done
  done
done

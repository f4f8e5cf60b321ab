# Sourced by this folder's sweep calls (tiles_call.sh, aa_call.sh,
# steps_call.sh): one d2q9-bench process of the blocked kernel, its box
# lines (and any error) prefixed with LABEL and the backend, appended to
# $BENCH_LOG as they come.
# bench LABEL BUILD BACKEND PRECISIONS SIZES [TILE STEPS LOCAL]   (TILE: WxH, or auto)
bench() {
  local label=$1 B=$2 be=$3 p=$4 sizes=$5
  local args="-b $be -p $p --kernel-variant blocked --no-coursework --sizes $sizes --min-seconds 0.25 --copy-mib 256 -o /tmp/csv"
  [ -n "$6" ] && args="$args --tile $6 --block-steps $7 --local-size $8x1"
  LD_LIBRARY_PATH=$B/lib timeout 150 $B/d2q9-bench $args 2>&1 | grep -E "^box_|error" |
    sed "s/^/$label $be /" >> $BENCH_LOG
}

#!/usr/bin/env bash
# One d2q9-bench process into a results folder, recorded: the command line,
# commit and device appended to OUT/call.txt, the printed output to
# OUT/NAME.log, the CSV and JSON to OUT/csv-NAME/. Sweeps (tiles, steps,
# variants, precisions, sizes) are one call of this per configuration.
#   scripts/device/bench_sweep.sh OUT BUILD NAME [d2q9-bench options...]
# e.g. scripts/device/bench_sweep.sh results/nvidia-h100/tiles build tile-28 -b cuda -p float \
#        --kernel-variant blocked --tile 28x28 --block-steps 4 --sizes 4096,8192 --no-coursework
# TIMEOUT_S (default 300) bounds the process. Writes only below OUT.
case "${1:-}" in -h|--help) sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0 ;; esac
set -uo pipefail
[ $# -ge 3 ] || { echo "usage: $0 OUT BUILD NAME [d2q9-bench options...]" >&2; exit 2; }
out=$(realpath -m "$1") build=$(cd "$2" && pwd) name=$3
cd "$(dirname "$0")/../.."
shift 3
source scripts/device/call_record.sh
record_call "$out" "$build" "$0 $out $build $name $*"
LD_LIBRARY_PATH=$build/lib timeout "${TIMEOUT_S:-300}" "$build/d2q9-bench" "$@" -o "$out/csv-$name" > "$out/$name.log" 2>&1
status=$?
echo "$name: exit $status" >> "$out/call.txt"
exit $status

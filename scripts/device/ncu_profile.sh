#!/usr/bin/env bash
# Nsight Compute on one launch of a step kernel inside d2q9-bench (CUDA):
# the report to OUT/ncu_NAME.txt, its headline lines (shape, instructions,
# issue rate, occupancy, DRAM, duration) appended to OUT/ncu_summary.txt, the
# call to OUT/call.txt.
#   scripts/device/ncu_profile.sh OUT BUILD NAME [d2q9-bench options...]
# e.g. scripts/device/ncu_profile.sh results/nvidia-h100/x build float -p float --kernel-variant blocked --sizes 4096
# KERNEL (default propagate_rebound_collide_blocked) names the kernel, SKIP
# (default 10) the launches passed over first. Writes only below OUT.
case "${1:-}" in -h|--help) sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0 ;; esac
set -uo pipefail
[ $# -ge 3 ] || { echo "usage: $0 OUT BUILD NAME [d2q9-bench options...]" >&2; exit 2; }
out=$(realpath -m "$1") build=$(cd "$2" && pwd) name=$3
cd "$(dirname "$0")/../.."
shift 3
command -v ncu > /dev/null || { echo "error: ncu (Nsight Compute) not found" >&2; exit 1; }
source scripts/device/call_record.sh
record_call "$out" "$build" "$0 $out $build $name $*"
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
LD_LIBRARY_PATH=$build/lib timeout "${TIMEOUT_S:-120}" ncu --clock-control none -k "regex:${KERNEL:-propagate_rebound_collide_blocked}" \
  --launch-skip "${SKIP:-10}" --launch-count 1 --section SpeedOfLight --section Occupancy --section LaunchStats \
  --section SchedulerStats --metrics smsp__inst_executed.sum,smsp__thread_inst_executed.sum \
  "$build/d2q9-bench" -b cuda --no-coursework --min-seconds 0.05 --copy-mib 256 "$@" -o "$scratch" \
  > "$out/ncu_$name.txt" 2>&1
status=$?
{
  echo "== ncu_$name.txt (exit $status)"
  grep -E "Block Size|Grid Size|smsp__inst_executed.sum|Issued Warp Per|Achieved Occupancy|Theoretical Occupancy|Block Limit Shared|Block Limit Reg|Registers Per|DRAM Throughput|Duration|Static Shared" \
    "$out/ncu_$name.txt" | sed 's/  */ /g'
} >> "$out/ncu_summary.txt"
exit $status

#!/usr/bin/env bash
# The figures of the README's performance table, on a GPU machine, into one
# results folder: the coursework problems (first run and 3 warm rounds,
# scripts/device/coursework_old_new.sh) and the 8192^2 closed box in every
# precision with the default launch (d2q9-bench), CUDA and OpenCL. Then, on
# any machine: scripts/figures/readme_table.py --write OUT.
#   scripts/device/current_figures.sh OUT BUILD [OLD_BUILD]
# BUILD holds d2q9-bgk and d2q9-bench (and lib/ where they were linked so);
# with OLD_BUILD the coursework runs it against BUILD alternately (the
# table shows BUILD's), else BUILD against itself. BACKENDS (default
# "cuda opencl"), PROBLEMS (default the four), SIZES (default 4096,8192) and
# BENCH_OPTIONS (more d2q9-bench options) narrow it for a quick try, e.g. on
# a CPU: BACKENDS=opencl PROBLEMS=128x128 SIZES=256 BENCH_OPTIONS="--copy-mib 1040".
# Writes only below OUT: call.txt, coursework.csv,
# bench-BACKEND.log, csv-BACKEND/. Where NVIDIA's OpenCL is not registered,
# run scripts/setup/register_nvidia_icd.sh first.
case "${1:-}" in -h|--help) sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0 ;; esac
set -uo pipefail
[ $# -ge 2 ] || { echo "usage: $0 OUT BUILD [OLD_BUILD]" >&2; exit 2; }
out=$(realpath -m "$1") new=$(cd "$2" && pwd) old=$(cd "${3:-$2}" && pwd)
cd "$(dirname "$0")/../.."  # the inputs/ the coursework runs read
backends=${BACKENDS:-cuda opencl}
source scripts/device/call_record.sh
record_call "$out" "$new" "$0 $*"
bash scripts/device/coursework_old_new.sh "$old" "$new" "$out/coursework.csv" "${PROBLEMS:-128x128 128x256 256x256 1024x1024}" \
  "$backends" 3
for b in $backends; do
  LD_LIBRARY_PATH=$new/lib "$new/d2q9-bench" -b $b -p float,fp16s,fp16c,double --kernel-variant auto --no-coursework \
    --sizes "${SIZES:-4096,8192}" --min-seconds 0.3 ${BENCH_OPTIONS:-} -o "$out/csv-$b" > "$out/bench-$b.log" 2>&1
  echo "d2q9-bench $b: exit $?" | tee -a "$out/call.txt"
done

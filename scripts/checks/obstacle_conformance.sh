#!/bin/sh
# Issue #26's operators and outputs on a GPU against the serial reference:
# final_state.dat byte for byte (the arithmetic contract), forces.csv and
# probes.csv to the order of summation, for each collision operator,
# precision, backend and launch variant. Usage, from the repository root:
#   scripts/checks/obstacle_conformance.sh EXE PROBLEM > OUT/conformance.txt
# PROBLEM: a problem file whose collision reads COLLISION (replaced by each
# operator), e.g. results/nvidia-h100/obstacle-conformance/problem.toml,
# problem-ramp.toml or problem-curved.toml. BACKENDS (default "cuda opencl")
# narrows it (BACKENDS=opencl on a CPU). Writes only to standard output (its
# runs go to a temporary folder, removed at the end).
case "${1:-}" in -h|--help) sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0 ;; esac
[ $# -eq 2 ] || { echo "usage: $0 EXE PROBLEM" >&2; exit 2; }
exe=$1
problem=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
compare() {  # largest |a - b| / largest |a| over the numeric columns of two CSV files
  python3 - "$1" "$2" <<'PY'
import sys
a = [l.split(",")[1:] for l in open(sys.argv[1]).read().split("\n")[1:] if l]
b = [l.split(",")[1:] for l in open(sys.argv[2]).read().split("\n")[1:] if l]
if len(a) != len(b): print("rows differ"); sys.exit()
scale = max(abs(float(x)) for r in a for x in r) or 1
print("%.1e" % (max(abs(float(x) - float(y)) for r, s in zip(a, b) for x, y in zip(r, s)) / scale))
PY
}
for op in bgk trt regularised; do
  sed "s/COLLISION/$op/" "$problem" > "$work/$op.toml"
  for p in float fp16s double; do
    ref=$work/ref-$op-$p
    # --final-state text: a problem file's run writes final_state.vti unless asked.
    "$exe" -q --no-png --final-state text -b reference -p $p -o "$ref" "$work/$op.toml" || { echo "reference $op $p failed"; continue; }
    for b in ${BACKENDS:-cuda opencl}; do
      for v in fused blocked split; do
        out=$work/$b-$op-$p-$v
        if ! "$exe" -q --no-png --final-state text -b $b -p $p --kernel-variant $v -o "$out" "$work/$op.toml" 2> "$out.err"; then
          echo "$op $p $b $v: FAILED $(tail -1 "$out.err")"; continue
        fi
        same=$(cmp -s "$ref/final_state.dat" "$out/final_state.dat" && echo identical || echo DIFFERENT)
        echo "$op $p $b $v: final_state.dat $same; forces.csv $(compare "$ref/forces.csv" "$out/forces.csv"); probes.csv $(compare "$ref/probes.csv" "$out/probes.csv")"
      done
    done
  done
done

#!/bin/bash
# The empty box, OLD_BUILD's d2q9-bench against NEW_BUILD's alternately, in
# separate processes: ROUNDS rounds of old then new per precision, each line
# of the benchmark's CSV appended to OUT_CSV with the build, round and
# precision in front (old/new speed as a ratio of one call's medians).
# Usage: box_old_new.sh OLD_BUILD NEW_BUILD OUT_CSV [ROUNDS] [d2q9-bench options...]
#   ROUNDS default 3; options default "-b cuda -p float --sizes 8192", the
#   launch the decision's (--kernel-variant auto). Each build's lib/ is put on
#   LD_LIBRARY_PATH for its own processes.
case "${1:-}" in -h|--help) sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0 ;; esac
set -u
[ $# -ge 3 ] || { echo "usage: $0 OLD_BUILD NEW_BUILD OUT_CSV [ROUNDS] [d2q9-bench options...]" >&2; exit 2; }
OLD=$1 NEW=$2 CSV=$3 ROUNDS=${4:-3}
shift $(( $# >= 4 ? 4 : 3 ))
options=("$@")
[ ${#options[@]} -gt 0 ] || options=(-b cuda -p float --sizes 8192)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for round in $(seq 1 "$ROUNDS"); do
  for which in old new; do
    B=$OLD; [ $which = new ] && B=$NEW
    rm -rf "$work/csv"
    LD_LIBRARY_PATH=$B/lib:${LD_LIBRARY_PATH:-} "$B/d2q9-bench" --no-coursework --kernel-variant auto "${options[@]}" \
      -o "$work/csv" > "$work/log.txt" 2>&1 || { echo "$which,$round,FAILED: $(tail -1 "$work/log.txt")" >> "$CSV"; continue; }
    for f in "$work"/csv/*.csv; do
      [ -f "$CSV" ] || { head -1 "$f" | sed 's/^/build,round,/' > "$CSV"; }
      tail -n +2 "$f" | sed "s/^/$which,$round,/" >> "$CSV"
    done
  done
done

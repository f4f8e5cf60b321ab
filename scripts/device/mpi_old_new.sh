#!/usr/bin/env bash
# Builds against each other under mpirun, alternately, on one GPU host: the
# A/B loop the results' MPI device calls (issue 44 and 45, calls 2-16) each
# wrote out again. Each point is a fresh process; one CSV line per point is
# appended as it comes, so a call cut short keeps what it had.
#
#   scripts/device/mpi_old_new.sh bench OUT [options] -- d2q9-mpi-bench options...
#   scripts/device/mpi_old_new.sh run   OUT [options] -- d2q9-bgk options... PROBLEM
#
# bench: BUILD/d2q9-mpi-bench with the options given; OUT/bench.csv gets round,
#   build, ranks, env, rc, seconds, mlups, launch, halos (the bench's last CSV
#   row), OUT/halo-times.txt its 'halo times' lines (with --halo-times).
# run: BUILD/d2q9-bgk on a problem, outputs to a temporary folder with
#   --summary-json; OUT/runs.csv gets round, build, ranks, env, rc, loop_s,
#   mlups, the summary's halo times (exchanges, read_wait_s, copies_s,
#   neighbour_wait_s, write_queue_s), wall_s and md5 prefixes of
#   av_vels.dat, final_state.dat, forces.csv, probes.csv; 1 rank runs
#   without mpirun (one process).
# Options:
#   --builds "A B"   build folders (d2q9-bgk, d2q9-mpi-bench, lib/ beside them), in the order
#                    each round runs them (default ".dev/old .dev/new")
#   --ranks "1 2"    rank counts (default "2"); --rounds R (default 2)
#   --env NAME=value a variant: each point of the last build runs again with it (repeatable)
#   --timeout S      seconds a point may take (default 120)
# Order: for each round, rank count, build (and the last build's variants).
# Environment: D2Q9_CACHE_DIR (default a fresh temporary folder), NVRTC_LIB (a
# folder put on LD_LIBRARY_PATH after each build's lib/, e.g. /usr/local/cuda/lib64).
set -u
case "${1:-}" in -h|--help|"") sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0"; [ -n "${1:-}" ]; exit $? ;; esac
mode=$1 out=${2:?usage: $0 bench|run OUT [options] -- ARGS}
shift 2
builds=".dev/old .dev/new" ranks=2 rounds=2 timeout_s=120 envs=()
while [ $# -gt 0 ]; do
  case $1 in
    --builds) builds=$2; shift 2 ;;
    --ranks) ranks=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --env) envs+=("$2"); shift 2 ;;
    --timeout) timeout_s=$2; shift 2 ;;
    --) shift; break ;;
    *) echo "$0: unknown option $1 (options end with --)" >&2; exit 2 ;;
  esac
done
case $mode in bench|run) ;; *) echo "$0: the mode is bench or run, not $mode" >&2; exit 2 ;; esac
mkdir -p "$out"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export D2Q9_CACHE_DIR=${D2Q9_CACHE_DIR:-$tmp/cache} OMPI_MCA_btl_vader_single_copy_mechanism=none
if [ $mode = bench ]; then
  csv=$out/bench.csv; [ -f "$csv" ] || echo "round,build,ranks,env,rc,seconds,mlups,launch,halos" > "$csv"
else
  csv=$out/runs.csv
  [ -f "$csv" ] || echo "round,build,ranks,env,rc,loop_s,mlups,exchanges,read_wait_s,copies_s,neighbour_wait_s,write_queue_s,wall_s,av_vels_md5,final_state_md5,forces_md5,probes_md5" > "$csv"
fi
md5() { [ -f "$1" ] && md5sum < "$1" | cut -c1-10 || echo -; }

point() {  # round build ranks [NAME=value]
  local r=$1 b=$2 n=$3 e=${4:-} x=() pre=()
  [ -n "$e" ] && x=(-x "${e%%=*}")
  local libs="$(cd "$b" && pwd)/lib${NVRTC_LIB:+:$NVRTC_LIB}"
  if [ $mode = bench ] || [ "$n" -gt 1 ]; then
    pre=(mpirun --allow-run-as-root --bind-to none -x LD_LIBRARY_PATH -x D2Q9_CACHE_DIR
         -x OMPI_MCA_btl_vader_single_copy_mechanism "${x[@]}" -np "$n")
  fi
  local d=$tmp/run; rm -rf "$d"; mkdir -p "$d"
  local t0=$(date +%s.%N) rc
  if [ $mode = bench ]; then
    env $e LD_LIBRARY_PATH=$libs timeout "$timeout_s" "${pre[@]}" "$b/d2q9-mpi-bench" "${ARGS[@]}" > "$d/out" 2> "$d/err"
    rc=$?
    local sec ml launch halos
    IFS=, read -r _ _ _ _ sec ml _ _ _ _ _ launch halos <<<"$(tail -1 "$d/out")"
    echo "$r,$b,$n,$e,$rc,$sec,$ml,$launch,$halos" >> "$csv"
    { echo "== r$r $b n$n $e: $sec s"; grep 'halo times' "$d/err"; } >> "$out/halo-times.txt"
  else
    # A build with --final-state writes a problem file's final state as
    # final_state.vti unless asked: the text, as older builds write it, for the md5s.
    local text=()
    LD_LIBRARY_PATH=$libs "$b/d2q9-bgk" --help 2>/dev/null | grep -q -- '--final-state' && text=(--final-state text)
    env $e LD_LIBRARY_PATH=$libs timeout "$timeout_s" "${pre[@]}" "$b/d2q9-bgk" "${ARGS[@]}" ${text[@]+"${text[@]}"} \
      --no-png -o "$d" --summary-json "$d/s.json" > "$d/out" 2> "$d/err"
    rc=$?
    local t1=$(date +%s.%N) j
    j=$(python3 -c "
import json; s=json.load(open('$d/s.json')); t=s['times']; h=t.get('halos', {})
print(','.join(str(v) for v in [t['loop_s'], s['mlups']] + [h.get(k, '') for k in
      ('exchanges', 'read_wait_s', 'copies_s', 'neighbour_wait_s', 'write_queue_s')]))" 2>/dev/null || echo ",,,,,,")
    echo "$r,$b,$n,$e,$rc,$j,$(python3 -c "print(round($t1 - $t0, 3))"),$(md5 "$d/av_vels.dat"),$(md5 "$d/final_state.dat"),$(md5 "$d/forces.csv"),$(md5 "$d/probes.csv")" >> "$csv"
  fi
  [ "$rc" = 0 ] || { echo "== r$r $b n$n $e rc=$rc"; tail -3 "$d/err"; } >> "$out/errors.txt"
}

ARGS=("$@")
last=${builds##* }
for r in $(seq 1 "$rounds"); do
  for n in $ranks; do
    for b in $builds; do point "$r" "$b" "$n"; done
    for e in "${envs[@]}"; do point "$r" "$last" "$n" "$e"; done
  done
  echo "$(date -u +%T) round $r done" >> "$out/log.txt"
done

#!/usr/bin/env bash
# The blocked kernel under MPI slabs on a GPU host: (a) byte identity of
# d2q9-bgk's av_vels.dat and final_state.dat, blocked on 1 process against
# blocked on 2 ranks, CUDA and OpenCL, for the coursework's obstacles; (b)
# d2q9-mpi-bench throughput of blocked (float and fp16s) on 1 rank against 2
# ranks at 4096^2 and 8192^2, fused alongside for reference. With two GPUs
# visible each rank takes one (node rank % GPUs); with one, both ranks share it.
#
#   scripts/device/mpi_blocked_check.sh BUILD_DIR     (BUILD_DIR holds d2q9-bgk, d2q9-mpi-bench and cl/)
#
# Each result line is appended to $OUT/mpi_blocked_check.txt as soon as it
# is known (a run cut short keeps what it had); $OUT defaults to
# ./mpi_blocked_check_out. Every command has its own timeout, and the script
# stops starting new ones after BUDGET_S seconds (default 420), so it ends
# well inside 8 minutes. BACKENDS and SIZES (default "cuda opencl" and
# "4096 8192") narrow it for a quick try, e.g. on a CPU.
case "${1:-}" in -h|--help) sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0 ;; esac
set -uo pipefail
cd "$(dirname "$0")/../.."

[ $# -eq 1 ] || { echo "usage: $0 BUILD_DIR" >&2; exit 2; }
build=$(cd "$1" && pwd)
solver=$build/d2q9-bgk
bench=$build/d2q9-mpi-bench
for exe in "$solver" "$bench"; do
  [ -x "$exe" ] || { echo "error: $exe not found (build with MPI and CUDA first)" >&2; exit 1; }
done
out=${OUT:-$PWD/mpi_blocked_check_out}
mkdir -p "$out"
log=$out/mpi_blocked_check.txt
budget=${BUDGET_S:-420}
# For a quick try elsewhere (a CPU: BACKENDS=opencl SIZES=256).
backends=${BACKENDS:-cuda opencl}
sizes=${SIZES:-4096 8192}

mpirun_args=(--bind-to none --oversubscribe)
[ "$(id -u)" -eq 0 ] && mpirun_args+=(--allow-run-as-root)
export OMPI_MCA_btl_vader_single_copy_mechanism=${OMPI_MCA_btl_vader_single_copy_mechanism:-none}

say() { echo "$*" | tee -a "$log"; }
in_budget() {
  if [ "$SECONDS" -ge "$budget" ]; then
    say "SKIPPED (past the ${budget}s budget): $*"
    return 1
  fi
}
# Runs `ranks` processes (1: no mpirun) of a command under a timeout; stderr to $tmp/err.
launch() {  # seconds ranks command...
  local seconds=$1 ranks=$2
  shift 2
  if [ "$ranks" -eq 1 ]; then
    timeout "$seconds" "$@" 2>"$tmp/err"
  else
    timeout "$seconds" mpirun "${mpirun_args[@]}" -np "$ranks" "$@" 2>"$tmp/err"
  fi
}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

say "== mpi_blocked_check $(date -u +%Y-%m-%dT%H:%MZ) on $(hostname), commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown), binaries $build"
command -v nvidia-smi >/dev/null && nvidia-smi -L 2>&1 | tee -a "$log"
say "mpirun: $(mpirun --version 2>&1 | head -1)"

# (a) Byte identity. The coursework's 128x128 box (10000 of its 40000 steps)
# and its 1024x1024 obstacles (1000 steps). The tile is the plan's, which is
# the same for 1 and 2 ranks here, so av_vels.dat must match too.
printf '128\n128\n10000\n10\n0.1\n0.005\n1.85\n' >"$tmp/cw128.params"
printf '1024\n1024\n1000\n10\n0.1\n0.01\n1.85\n' >"$tmp/cw1024.params"
identity() {  # backend precision size
  local b=$1 p=$2 n=$3 what="identity $1 $2 ${3}x${3}"
  in_budget "$what" || return 0
  local inputs=("$tmp/cw$n.params" "inputs/obstacles_${n}x${n}.dat")
  rm -rf "$tmp/one" "$tmp/two"
  mkdir -p "$tmp/one" "$tmp/two"
  local start=$SECONDS
  if ! launch 120 1 "$solver" -q --no-png -b "$b" -p "$p" --kernel-variant blocked -o "$tmp/one" "${inputs[@]}"; then
    say "$what: FAILED on 1 process: $(grep -m1 error "$tmp/err")"
    return 0
  fi
  if ! launch 120 2 "$solver" --no-png -b "$b" -p "$p" --kernel-variant blocked -o "$tmp/two" "${inputs[@]}" >"$tmp/summary"; then
    say "$what: FAILED on 2 ranks: $(grep -m1 error "$tmp/err")"
    return 0
  fi
  local av state
  cmp -s "$tmp/one/av_vels.dat" "$tmp/two/av_vels.dat" && av=identical || av=DIFFERENT
  cmp -s "$tmp/one/final_state.dat" "$tmp/two/final_state.dat" && state=identical || state=DIFFERENT
  say "$what: av_vels.dat $av, final_state.dat $state ($((SECONDS - start))s; $(grep -m1 '^Device:' "$tmp/summary" | cut -f2- | tr -s '\t' ' '))"
}
for b in $backends; do
  for p in float fp16s; do identity $b $p 128; done
  identity $b float 1024
done

# (b) Throughput: one CSV row per run (rank 0's), with the launch each ran.
say "ranks,nx,ny,steps,seconds,mlups,final_av_velocity,device,local_size,precision,solver,launch"
throughput() {  # backend variant precision size ranks
  local b=$1 v=$2 p=$3 n=$4 r=$5 what="bench $1 $2 $3 ${4}x${4} on $5 rank(s)"
  in_budget "$what" || return 0
  local steps=800  # about 0.15-0.3 s of blocked steps on an H100
  [ "$n" -ge 8192 ] && steps=400
  if launch 90 "$r" "$bench" -b "$b" --kernel-variant "$v" -p "$p" --nx "$n" --ny "$n" --steps $steps --warmup 20 \
    >"$tmp/row"; then
    say "$(tail -1 "$tmp/row")"
  else
    say "$what: FAILED: $(grep -m1 -i error "$tmp/err")"
  fi
}
for b in $backends; do
  for n in $sizes; do
    for p in float fp16s; do
      for r in 1 2; do throughput $b blocked $p $n $r; done
    done
  done
done
# One step per launch, for reference (what slabs ran before).
for b in $backends; do
  for r in 1 2; do throughput $b fused float "${sizes##* }" $r; done
done
say "== done in ${SECONDS}s"

#!/usr/bin/env bash
# Issue 45 on a host with several GPUs, in one call of under 10 minutes:
# build, the outputs' byte identity across rank counts (CUDA IPC halos and
# host staging), d2q9-bgk on an obstacle channel with forces and probes (1
# process against 4 ranks), then scripts/device/mpi_scaling.sh in what time is left.
#
#   scripts/device/mpi_gpu_checks.sh OUT_DIR        (from anywhere; runs in the repository root)
#
# Environment (all optional):
#   PHASES           what to run, in order (default "build checks channel scaling"; also
#                    "staged": CUDA float scaling with D2Q9_HALOS=host into scaling-staged/,
#                    STAGED_BUDGET_S seconds (default 150), to compare with cuda-ipc;
#                    "tests": builds d2q9_tests and runs its CUDA-under-mpirun case)
#   BUILD_DIR        binaries already built (d2q9-bgk, d2q9-mpi-bench, cl/); default: build
#                    them into build-gpu/ (cmake, Release, CUDA where the toolkit is)
#   TOTAL_BUDGET_S   the whole call's seconds (default 560): scaling gets what is left
#   GPUS_MAX         ranks of the largest runs (default: the host's GPUs, nvidia-smi -L; else 4)
#   BACKENDS, PRECISIONS, SIZES, STEPS, D2Q9_HALOS: passed on to mpi_scaling.sh
#   CHANNEL_N        the channel's cells per cylinder diameter (default 400: 8800 x 1642)
#   D2Q9_COMMIT      the commit to record where the tree has no .git
#
# Everything lands in OUT_DIR as it is known: env.txt, build.log,
# checks.txt (one line per check: "identical" / "DIFFERENT" / "FAILED ..."),
# channel.txt, scaling/ (mpi_scaling.csv, .md, .log), and summary.txt, the
# lines to read first. Exit status 0 even where a check failed: read
# summary.txt (a failed check says FAILED or DIFFERENT there).
case "${1:-}" in -h|--help) sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0 ;; esac
set -uo pipefail
cd "$(dirname "$0")/../.."
[ $# -eq 1 ] || { echo "usage: $0 OUT_DIR" >&2; exit 2; }
mkdir -p "$1" || exit 1
out=$(cd "$1" && pwd)
phases=${PHASES:-build checks channel scaling}
total_budget=${TOTAL_BUDGET_S:-560}
# The GPUs this host has (4 where nvidia-smi cannot say): the largest runs' ranks.
detected=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ')
[ "${detected:-0}" -ge 2 ] || detected=4
gpus_max=${GPUS_MAX:-$detected}
summary=$out/summary.txt
checks=$out/checks.txt
say() { echo "$*" | tee -a "$summary"; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# NVIDIA's OpenCL driver, where it is installed but not registered (containers).
if [ ! -e /etc/OpenCL/vendors/nvidia.icd ] && [ -e /usr/lib/libnvidia-opencl.so.1 ] && [ "$(id -u)" -eq 0 ]; then
  mkdir -p /etc/OpenCL/vendors && echo /usr/lib/libnvidia-opencl.so.1 >/etc/OpenCL/vendors/nvidia.icd
fi
export D2Q9_CACHE_DIR=${D2Q9_CACHE_DIR:-/tmp/d2q9-cache}
export OMPI_MCA_btl_vader_single_copy_mechanism=${OMPI_MCA_btl_vader_single_copy_mechanism:-none}
commit=${D2Q9_COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)}
export D2Q9_COMMIT=$commit

{
  echo "issue 45 checks, $(date -u +%Y-%m-%dT%H:%MZ), $(hostname), commit $commit, phases: $phases"
  command -v nvidia-smi >/dev/null && nvidia-smi -L && nvidia-smi topo -m &&
    nvidia-smi --query-gpu=name,driver_version,pcie.link.gen.current,pcie.link.width.current --format=csv
  echo "mpirun: $(mpirun --version 2>&1 | head -1)"
  echo "ompi_info (UCX, CUDA): $(ompi_info 2>/dev/null | grep -iE 'ucx|cuda' | tr -s ' ' | head -5 | tr '\n' ';')"
  echo "nproc $(nproc); $(grep -m1 'model name' /proc/cpuinfo)"
} >"$out/env.txt" 2>&1
: >"$summary"
say "== issue 45 checks on $(hostname), commit $commit ($(nvidia-smi -L 2>/dev/null | wc -l) GPUs)"

# --- build ---------------------------------------------------------------
B=${BUILD_DIR:-build-gpu}
if [[ " $phases " == *" build "* ]] && [ -z "${BUILD_DIR:-}" ]; then
  start=$SECONDS
  if cmake -S . -B "$B" -DCMAKE_BUILD_TYPE=Release >"$out/build.log" 2>&1 &&
     cmake --build "$B" -j"$(nproc)" --target d2q9-bgk d2q9-mpi-bench >>"$out/build.log" 2>&1; then
    say "build: ok in $((SECONDS - start)) s ($(grep -E 'CUDA backend|MPI found' "$out/build.log" | tr '\n' ' '))"
  else
    say "build: FAILED (see build.log): $(grep -m3 -E 'error|Error' "$out/build.log" | tr '\n' ' ')"
    exit 1
  fi
fi
B=$(cd "$B" 2>/dev/null && pwd) || { say "no build directory $B"; exit 1; }
[ -d "$B/lib" ] && export LD_LIBRARY_PATH=$B/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
bgk=$B/d2q9-bgk bench=$B/d2q9-mpi-bench
for exe in "$bgk" "$bench"; do [ -x "$exe" ] || { say "missing $exe"; exit 1; }; done
"$bgk" --version >>"$out/env.txt" 2>&1

mpirun_args=(--bind-to none)
[ "$(id -u)" -eq 0 ] && mpirun_args+=(--allow-run-as-root)
[ "$gpus_max" -gt "$(nproc)" ] && mpirun_args+=(--oversubscribe)
for name in LD_LIBRARY_PATH D2Q9_CACHE_DIR; do [ -n "${!name:-}" ] && mpirun_args+=(-x "$name"); done
# ranks (1: no mpirun, -1: mpirun -np 1) seconds env-assignment-or-"" command...;
# stdout to $tmp/stdout, stderr to $tmp/stderr
launch() {
  local ranks=$1 seconds=$2 env=$3
  shift 3
  local prefix=()
  [ -n "$env" ] && prefix=(env "$env")
  [ "$ranks" -eq -1 ] && ranks=1 && set -- mpirun "${mpirun_args[@]}" -np 1 "$@"
  if [ "$ranks" -eq 1 ]; then
    timeout "$seconds" "${prefix[@]}" "$@" >"$tmp/stdout" 2>"$tmp/stderr"
  else
    local x=()
    [ -n "$env" ] && x=(-x "${env%%=*}")
    timeout "$seconds" "${prefix[@]}" mpirun "${mpirun_args[@]}" "${x[@]}" -np "$ranks" "$@" >"$tmp/stdout" 2>"$tmp/stderr"
  fi
}
first_error() {  # the program's own line first ("error: rank R: ..."), else mpirun's
  { grep -m1 '^error:' "$tmp/stderr" || grep -m1 -iE 'error|abort|signal|killed' "$tmp/stderr"; } | cut -c1-240
  cat "$tmp/stderr" >>"$out/failures.log"
}

# --- checks: byte identity across rank counts ------------------------------
# The coursework's 1024^2 obstacles (1000 steps) and its 128^2 box (4000
# steps: 32-row slabs on 4 ranks, launches of a few hundred microseconds),
# each against one process with the same launch; the halo path each run took
# is its summary's "MPI ranks:" line.
printf '1024\n1024\n1000\n10\n0.1\n0.01\n1.85\n' >"$tmp/cw1024.params"
printf '128\n128\n4000\n10\n0.1\n0.005\n1.85\n' >"$tmp/cw128.params"
identity() {  # name ranks env params obstacles args...
  local name=$1 ranks=$2 env=$3 params=$4 obstacles=$5
  shift 5
  local what="identity $name: 1 process against $ranks ranks${env:+ ($env)}"
  rm -rf "$tmp/one" "$tmp/many" && mkdir -p "$tmp/one" "$tmp/many"
  if ! launch 1 120 "" "$bgk" --no-png "$@" -o "$tmp/one" "$params" "$obstacles"; then
    echo "$what: FAILED on 1 process: $(first_error)" | tee -a "$checks"
    return
  fi
  cp "$tmp/stdout" "$tmp/one.stdout"
  if ! launch "$ranks" 120 "$env" "$bgk" --no-png "$@" -o "$tmp/many" "$params" "$obstacles"; then
    echo "$what: FAILED on $ranks ranks: $(first_error)" | tee -a "$checks"
    return
  fi
  local av state note=""
  cmp -s "$tmp/one/av_vels.dat" "$tmp/many/av_vels.dat" && av=identical || av=DIFFERENT
  cmp -s "$tmp/one/final_state.dat" "$tmp/many/final_state.dat" && state=identical || state=DIFFERENT
  # CUDA ranks of one host should have taken the device-to-device path, and
  # OpenCL ranks the pinned shared memory, unless told not to.
  if [[ " $* " == *" -b cuda "* ]] && [ -z "$env" ] && ! grep -q '^MPI ranks:.*device to device' "$tmp/stdout"; then
    note="; HALOS NOT DEVICE TO DEVICE"
  fi
  if [[ " $* " == *" -b opencl "* ]] && [ -z "$env" ] && ! grep -q '^MPI ranks:.*(no host copies)' "$tmp/stdout"; then
    note="; HALOS COPIED ON THE HOST"
  fi
  # Different sums with the same distributions: the launches differed (a launch search or cache on one process?).
  [ "$av" = DIFFERENT ] && [ "$state" = identical ] &&
    note+="; launches: 1 process $(grep -m1 '^Device:' "$tmp/one.stdout" | tr -s '\t' ' ') $(grep -m1 '^Launch:' "$tmp/one.stdout" | tr -s '\t' ' '), ranks $(grep -m1 '^Device:' "$tmp/stdout" | tr -s '\t' ' ')"
  echo "$what: av_vels.dat $av, final_state.dat $state; $(grep -m1 '^MPI ranks:' "$tmp/stdout" | tr -s '\t' ' '); $(grep -m1 '^MLUPS' "$tmp/stdout" | tr -s '\t' ' ')$note" |
    tee -a "$checks"
}
# d2q9-mpi-bench: one rank's single-device solver, one rank's slab (its own
# neighbour: the IPC path with itself), 2 and 4 ranks: the same last average velocity.
bench_identity() {  # backend precision
  local b=$1 p=$2 ref="" line
  for cfg in "1" "1 --slabs-on-one-rank" "2" "$gpus_max"; do
    set -- $cfg
    local ranks=$1
    shift
    # d2q9-mpi-bench always starts MPI: under mpirun even for one rank.
    [ "$ranks" -eq 1 ] && ranks=-1
    if launch "$ranks" 120 "" "$bench" -b "$b" -p "$p" --nx 2048 --ny 2048 --steps 100 --warmup 10 "$@"; then
      line=$(tail -1 "$tmp/stdout")
      local av halos
      av=$(echo "$line" | cut -d, -f7) halos=$(echo "$line" | cut -d, -f13)
      [ -z "$ref" ] && ref=$av
      local note=""
      [ "$b" = cuda ] && [ "$halos" != none ] && [ "$halos" != cuda-ipc ] && note="; HALOS NOT DEVICE TO DEVICE"
      [ "$b" = opencl ] && [ "$halos" != none ] && [ "$halos" != host-shared ] && note="; HALOS COPIED ON THE HOST"
      echo "bench identity $b $p 2048^2, ${ranks#-} rank(s) $*: final_av_velocity $av ($([ "$av" = "$ref" ] && echo identical || echo DIFFERENT) to 1 rank), halos $halos, launch $(echo "$line" | cut -d, -f12)$note" |
        tee -a "$checks"
    else
      echo "bench identity $b $p, ${ranks#-} rank(s) $*: FAILED: $(first_error)" | tee -a "$checks"
    fi
  done
}
if [[ " $phases " == *" checks "* ]]; then
  start=$SECONDS
  : >"$checks"
  cw1024=("$tmp/cw1024.params" inputs/obstacles_1024x1024.dat)
  cw128=("$tmp/cw128.params" inputs/obstacles_128x128.dat)
  # The default launch (on CUDA, 1024^2 lives in the L2 cache: fused), then
  # blocked (4 halo rows of nine speeds each way), then fused 128x1 (one row
  # of three speeds); blocked's tile is the same on one process and on the
  # slabs here.
  identity "cuda default float 1024^2" "$gpus_max" "" "${cw1024[@]}" -b cuda
  identity "cuda blocked float 1024^2" "$gpus_max" "" "${cw1024[@]}" -b cuda --kernel-variant blocked
  identity "cuda blocked fp16s 1024^2" "$gpus_max" "" "${cw1024[@]}" -b cuda --kernel-variant blocked -p fp16s
  identity "cuda blocked float 1024^2" 2 "" "${cw1024[@]}" -b cuda --kernel-variant blocked
  identity "cuda blocked float 1024^2" 3 "" "${cw1024[@]}" -b cuda --kernel-variant blocked
  identity "cuda blocked float 1024^2" "$gpus_max" "D2Q9_HALOS=host" "${cw1024[@]}" -b cuda --kernel-variant blocked
  identity "cuda fused 128x1 float 1024^2" "$gpus_max" "" "${cw1024[@]}" -b cuda --kernel-variant fused -l 128x1
  identity "cuda blocked 16x8 float 128^2" "$gpus_max" "" "${cw128[@]}" -b cuda --kernel-variant blocked --tile 16x8
  identity "opencl blocked float 1024^2" "$gpus_max" "" "${cw1024[@]}" -b opencl --kernel-variant blocked
  identity "opencl blocked fp16s 1024^2" "$gpus_max" "" "${cw1024[@]}" -b opencl --kernel-variant blocked -p fp16s
  identity "opencl blocked float 1024^2" 2 "" "${cw1024[@]}" -b opencl --kernel-variant blocked
  identity "opencl blocked 16x8 float 128^2" "$gpus_max" "" "${cw128[@]}" -b opencl --kernel-variant blocked --tile 16x8
  identity "opencl blocked float 1024^2" "$gpus_max" "D2Q9_HALOS=copied" "${cw1024[@]}" -b opencl --kernel-variant blocked
  identity "opencl blocked float 1024^2" "$gpus_max" "D2Q9_HALOS=mpi" "${cw1024[@]}" -b opencl --kernel-variant blocked
  for b in ${CHECK_BENCH_BACKENDS:-cuda opencl}; do bench_identity "$b" float; done
  say "checks ($((SECONDS - start)) s): $(grep -c 'identical, final_state.dat identical' "$checks") of $(grep -c '^identity' "$checks") d2q9-bgk runs byte-identical; $(grep -c '(identical' "$checks") of $(grep -c '^bench identity' "$checks") bench runs; problems:"
  grep -E 'DIFFERENT|FAILED|NOT DEVICE' "$checks" | tee -a "$summary"
  grep -m3 'MPI ranks' "$checks" | sed 's/.*MPI ranks:/  halo path (MPI ranks line):/' | cut -c1-200 | tee -a "$summary"
fi

# --- channel: d2q9-bgk on a real problem ----------------------------------
# Schafer and Turek's channel with its cylinder (inputs/examples/
# cylinder-forces.toml) at CHANNEL_N cells per diameter, Re 100: inlet,
# outlet, an interpolated curved wall, forces every step and probes every
# 1000 steps; the default launch, 1 process against GPUS_MAX ranks. (Under
# mpirun each rank reads its own probe cells at a probe's step and the values
# travel up the ranks with the partial sums, never the whole grid.)
channel() {  # backend
  local b=$1 n=${CHANNEL_N:-400}
  local nx=$((22 * n)) ny=$(((41 * n + 5) / 10 + 2)) steps=${CHANNEL_STEPS:-3000}
  local nu
  nu=$(awk -v n="$n" 'BEGIN { printf "%.6f", 0.0666667 * n / 100 }')
  cat >"$tmp/channel.toml" <<EOF
[grid]
nx = $nx
ny = $ny
[flow]
steps = $steps
viscosity = $nu
collision = "trt"
[edges]
left = { inlet_velocity = { parabolic = 0.1 } }
right = { outlet_density = 1.0 }
bottom = "wall"
top = "wall"
[[obstacle]]
name = "cylinder"
boundary = "interpolated"
circle = { center = [$((2 * n)).0, $((2 * n)).5], radius = $((n / 2)).0 }
[forces]
velocity = 0.0666667
length = $n
[probes]
every = 1000
front = [$((3 * n / 2 - 2)), $((2 * n))]
back = [$((5 * n / 2 + 2)), $((2 * n))]
EOF
  local what="channel $b ${nx}x${ny} (cylinder, $n cells per diameter, Re 100, $steps steps, forces and probes)"
  local dirs=("$tmp/ch1" "$tmp/chN") mlups=()
  rm -rf "${dirs[@]}" && mkdir -p "${dirs[@]}"
  local i=0
  for ranks in 1 "$gpus_max"; do
    # The text final state (each rank writes its rows), compared below.
    if ! launch "$ranks" 240 "" "$bgk" -b "$b" --no-png --final-state text -o "${dirs[$i]}" "$tmp/channel.toml"; then
      echo "$what: FAILED on $ranks rank(s): $(first_error)" | tee -a "$out/channel.txt"
      return
    fi
    mlups+=("$(grep -m1 '^MLUPS' "$tmp/stdout" | awk '{print $2}')")
    cp "$tmp/stdout" "$out/channel-$b-$ranks.txt"
    i=$((i + 1))
  done
  local same="" f
  for f in av_vels.dat forces.csv probes.csv final_state.dat; do
    cmp -s "${dirs[0]}/$f" "${dirs[1]}/$f" && same+="$f identical, " || same+="$f DIFFERENT, "
  done
  local eff
  eff=$(awk -v a="${mlups[0]}" -v b="${mlups[1]}" -v n="$gpus_max" 'BEGIN { if (a > 0) printf "%.3f", b / (n * a); else print "?" }')
  echo "$what: 1 process ${mlups[0]} MLUPS, $gpus_max ranks ${mlups[1]} MLUPS: strong efficiency $eff; ${same%, }; $(grep -m1 '^MPI ranks:' "$out/channel-$b-$gpus_max.txt" | tr -s '\t' ' ')" |
    tee -a "$out/channel.txt"
}
if [[ " $phases " == *" channel "* ]]; then
  start=$SECONDS
  for b in ${CHANNEL_BACKENDS:-cuda}; do channel "$b"; done
  say "channel ($((SECONDS - start)) s):"
  cat "$out/channel.txt" >>"$summary"
fi

# --- tests: the test suite's CUDA-under-mpirun case --------------------------
if [[ " $phases " == *" tests "* ]]; then
  start=$SECONDS
  if cmake --build "$B" -j"$(nproc)" --target d2q9_tests >>"$out/build.log" 2>&1; then
    # 2 ranks (8x1) and 3 ranks (8x4, fp16s) of fused slabs against one CUDA process, byte for byte.
    (cd "$B" && timeout 300 ./d2q9_tests -tc="mpi runs: --backend cuda*") >"$out/tests.txt" 2>&1
    say "tests ($((SECONDS - start)) s): $(grep -E '^\[doctest\] (test cases|assertions)' "$out/tests.txt" | tr '\n' ' ')"
  else
    say "tests: d2q9_tests did not build (see build.log)"
  fi
fi

# --- scaling: what time is left ------------------------------------------
staged_budget=0
[[ " $phases " == *" staged "* ]] && staged_budget=$((${STAGED_BUDGET_S:-150} + 60))
if [[ " $phases " == *" scaling "* ]]; then
  left=$((total_budget - SECONDS - 100 - staged_budget))  # a point may run past the budget by its timeout
  [ "$left" -lt 60 ] && left=60
  say "scaling: ${left} s of points (BUDGET_S), then its tables in scaling/"
  BUDGET_S=$left GPUS="${SCALING_GPUS:-2 $gpus_max}" bash scripts/device/mpi_scaling.sh -b "$B" "$out/scaling"
  cat "$out/scaling/mpi_scaling.md" >>"$summary" 2>/dev/null
fi
if [[ " $phases " == *" staged "* ]]; then
  say "staged: CUDA float with D2Q9_HALOS=host, ${STAGED_BUDGET_S:-150} s of points, in scaling-staged/"
  D2Q9_HALOS=host BACKENDS=cuda PRECISIONS=float BUDGET_S=${STAGED_BUDGET_S:-150} GPUS="2 $gpus_max" \
    bash scripts/device/mpi_scaling.sh -b "$B" "$out/scaling-staged"
  cat "$out/scaling-staged/mpi_scaling.md" >>"$summary" 2>/dev/null
fi
say "== done in ${SECONDS} s"

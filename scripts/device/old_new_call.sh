#!/bin/bash
# One device call: OLD_BUILD against NEW_BUILD, alternately, on one GPU, for a
# change that must keep every byte and lose no speed. Writes into OUT as it
# goes (log.txt, box.csv, identity.csv, real-*/, coursework.csv, all.tgz):
#   - the 8192^2 box (d2q9-bench), CUDA float and fp16s, OpenCL float: ROUNDS rounds;
#   - the 4000x2400 cylinder with everything on and the staircase BGK channel
#     (scripts/device/real_problems.py), CUDA and OpenCL, outputs' md5 compared;
#   - the coursework's four problems (made by scripts/setup/make_inputs.sh) and
#     inputs/examples/*.toml, each backend, old and new outputs' md5 compared.
# Usage (repository root, on the device): device_old_new_call.sh OLD_BUILD NEW_BUILD OUT [ROUNDS]
#   Each build finds its own libd2q9 beside it (built with CMAKE_BUILD_RPATH_USE_ORIGIN=ON);
#   NVRTC from CUDA_LIB (default /usr/local/cuda/lib64), then LIBS (default .dev/lib) for what
#   the device lacks.
set -u
if [ "${1:-}" = --help ] || [ $# -lt 3 ]; then
  sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'
  [ "${1:-}" = --help ]; exit $?
fi
OLD=$1 NEW=$2 OUT=$3 ROUNDS=${4:-3}
CUDA_LIB=${CUDA_LIB:-/usr/local/cuda/lib64} LIBS=${LIBS:-$PWD/.dev/lib}
W=$(mktemp -d)
export D2Q9_CACHE_DIR=$W/cache
mkdir -p "$OUT"
log() { echo "$(date -u +%T) $*" >> "$OUT/log.txt"; }
pack() { (cd "$OUT" && tar czf "$W/all.tgz" --exclude all.tgz . && mv "$W/all.tgz" all.tgz); }
libs() { echo "$CUDA_LIB:$LIBS"; }
log "start: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)"
log "old: $(LD_LIBRARY_PATH=$(libs "$OLD") "$OLD/d2q9-bgk" --version 2>&1 | head -1)"
log "new: $(LD_LIBRARY_PATH=$(libs "$NEW") "$NEW/d2q9-bgk" --version 2>&1 | head -1)"

# Byte identity: each problem, each backend, old and new.
echo "problem,backend,build,rc,seconds,av_vels_md5,final_state_md5,forces_md5" > "$OUT/identity.csv"
scripts/setup/make_inputs.sh "$W/inputs" > /dev/null
identity() {  # name backend args...
  local name=$1 backend=$2; shift 2
  for which in old new; do
    local B=$OLD; [ $which = new ] && B=$NEW
    local o=$W/id-$which; rm -rf "$o"; mkdir -p "$o"
    local t0=$(date +%s.%N)
    # A build with --final-state writes a problem file's final state as
    # final_state.vti unless asked: the text, as older builds write it, for the md5s.
    local text=()
    LD_LIBRARY_PATH=$(libs "$B") "$B/d2q9-bgk" --help 2>/dev/null | grep -q -- '--final-state' && text=(--final-state text)
    LD_LIBRARY_PATH=$(libs "$B") timeout 120 "$B/d2q9-bgk" "$@" ${text[@]+"${text[@]}"} -b "$backend" -q --no-png \
      -o "$o" > /dev/null 2> "$o/err.txt"
    local rc=$? t1=$(date +%s.%N)
    local sums=""
    for f in av_vels.dat final_state.dat forces.csv; do sums="$sums,$( [ -f "$o/$f" ] && md5sum < "$o/$f" | cut -c1-12)"; done
    echo "$name,$backend,$which,$rc,$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')$sums" >> "$OUT/identity.csv"
    [ $rc = 0 ] || log "$name $backend $which: $(head -1 "$o/err.txt")"
  done
}
for backend in cuda opencl; do
  for p in 128x128 128x256 256x256 1024x1024; do
    identity "$p" "$backend" "$W/inputs/input_$p.params" "$W/inputs/obstacles_$p.dat"
  done
  for t in inputs/examples/*.toml; do identity "$(basename "$t" .toml)" "$backend" "$t"; done
done
log "identity done"; pack

# The box, alternately.
echo "build,round,precision,backend,line" > "$OUT/box.csv"
for round in $(seq 1 "$ROUNDS"); do
  for cfg in "cuda float" "cuda fp16s" "opencl float"; do
    set -- $cfg
    for which in old new; do
      B=$OLD; [ $which = new ] && B=$NEW
      rm -rf "$W/bench"
      LD_LIBRARY_PATH=$(libs "$B") timeout 120 "$B/d2q9-bench" --no-coursework --kernel-variant auto -b "$1" -p "$2" \
        --sizes 8192 -o "$W/bench" > "$W/bench.log" 2>&1
      for f in "$W"/bench/*.csv; do tail -n +2 "$f" | sed "s/^/$which,$round,$2,$1,/" >> "$OUT/box.csv"; done
    done
  done
done
log "box done"; pack

# The real problems, alternately, outputs compared.
for backend in cuda opencl; do
  LD_LIBRARY_PATH=$(libs "$NEW") python3 scripts/device/real_problems.py "$OUT/real-$backend" --bin "$NEW/d2q9-bgk" \
    --old "$OLD/d2q9-bgk" -b "$backend" --grid 4000x2400 --steps 20000 --box 3072 --cases all,staircase-bgk \
    --rounds 2 > "$OUT/real-$backend.log" 2>&1
  log "real $backend done (rc $?)"; pack
done
log "all done"; pack
rm -rf "$W"

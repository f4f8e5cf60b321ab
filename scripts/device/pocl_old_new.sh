#!/bin/bash
# OLD_BUILD against NEW_BUILD, alternately, on an OpenCL CPU device (PoCL):
# the coursework's 128x128 and 256x256 (made by scripts/setup/make_inputs.sh)
# and a 400x240 open cylinder (curved wall, TRT, sponge, forces, probes), each
# ROUNDS rounds of old then new, each a whole process. One CSV line per run
# into OUT_CSV: problem, build, round, rc, whole-process seconds, the loop's
# seconds (the summary's times.loop_s), md5 prefixes of av_vels.dat and
# final_state.dat.
# Usage (repository root): pocl_old_new.sh OLD_BUILD NEW_BUILD OUT_CSV [ROUNDS] [DEVICE]
#   DEVICE: the CPU device's index in --list-devices (default: the first whose
#   line says CPU). Each build finds its own libd2q9 beside it; LIBS (default
#   .dev/lib) is put on LD_LIBRARY_PATH for what the machine lacks.
set -u
if [ "${1:-}" = --help ] || [ $# -lt 3 ]; then
  sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'
  [ "${1:-}" = --help ]; exit $?
fi
OLD=$1 NEW=$2 CSV=$3 ROUNDS=${4:-3} DEVICE=${5:-}
export LD_LIBRARY_PATH=${LIBS:-$PWD/.dev/lib}:${LD_LIBRARY_PATH:-}
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
export D2Q9_CACHE_DIR=$W/cache
if [ -z "$DEVICE" ]; then
  DEVICE=$("$NEW/d2q9-bgk" --list-devices 2>/dev/null | grep -i "cpu" | grep -o '^ *[0-9]*' | head -1 | tr -d ' ')
fi
[ -n "$DEVICE" ] || { echo "no CPU device in --list-devices" >&2; exit 1; }
scripts/setup/make_inputs.sh "$W/inputs" > /dev/null
cat > "$W/cylinder.toml" <<'EOF'
[grid]
nx = 400
ny = 240
[flow]
steps = 2000
viscosity = 0.05
collision = "trt"
inlet_ramp = 400
[edges]
left = { inlet_velocity = [0.05, 0.0] }
right = { outlet_density = 1.0, sponge = 40 }
[[obstacle]]
name = "cylinder"
boundary = "interpolated"
circle = { center = [120.0, 120.3], radius = 10.0 }
[forces]
velocity = 0.05
length = 20
[probes]
every = 20
w1 = [140, 120]
w2 = [160, 120]
EOF
echo "problem,build,round,rc,wall_s,loop_s,av_vels_md5,final_state_md5" > "$CSV"
run() {  # problem build round args...
  local problem=$1 which=$2 round=$3; shift 3
  local B=$OLD; [ "$which" = new ] && B=$NEW
  local o=$W/out-$which; rm -rf "$o"; mkdir -p "$o"
  local t0 t1 rc loop
  t0=$(date +%s.%N)
  # A build with --final-state writes a problem file's final state as
  # final_state.vti unless asked: the text, as older builds write it, for the md5s.
  local text=()
  "$B/d2q9-bgk" --help 2>/dev/null | grep -q -- '--final-state' && text=(--final-state text)
  "$B/d2q9-bgk" "$@" ${text[@]+"${text[@]}"} -b opencl --device "$DEVICE" -q --no-png -o "$o" --summary-json s.json \
    > /dev/null 2> "$o/err.txt"
  rc=$?
  t1=$(date +%s.%N)
  loop=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['times']['loop_s'])" "$o/s.json" 2>/dev/null)
  echo "$problem,$which,$round,$rc,$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }'),$loop,$(md5sum < "$o/av_vels.dat" | cut -c1-12),$(md5sum < "$o/final_state.dat" | cut -c1-12)" >> "$CSV"
}
for round in $(seq 0 "$ROUNDS"); do  # round 0: each build's kernels compiled into its cache
  for which in old new; do
    for p in 128x128 256x256; do run "$p" "$which" "$round" "$W/inputs/input_$p.params" "$W/inputs/obstacles_$p.dat"; done
    run cylinder "$which" "$round" "$W/cylinder.toml"
  done
done

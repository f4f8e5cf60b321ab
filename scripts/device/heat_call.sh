#!/bin/bash
# One device call for heat on one GPU (BUILD: a kit with d2q9-bgk, d2q9-bench,
# libd2q9 and cl/). Writes into OUT as it goes (log.txt, *.log, each script's
# data, all.tgz):
#   - the thermal box against the isothermal one, 8192^2, CUDA and OpenCL,
#     float and double (d2q9-bench --heat-sizes), default launch and fused;
#   - the heated cavity against de Vahl Davis at Ra 1e3-1e6, CUDA, double
#     (validation/heated_cavity.py), grid convergence at Ra 1e5 and 1e6, and
#     Ra 1e6 with TRT on the temperature;
#   - the Rayleigh-Benard onset and the BGK/TRT ringing, full versions.
# Usage (repository root, on the device): heat_call.sh BUILD OUT
#   NVRTC from CUDA_LIB (default /usr/local/cuda/lib64), then LIBS (default .dev/lib);
#   BENCH=0 skips the boxes, VALIDATE=0 the validations; PRECISIONS (default
#   float,double) the boxes' precisions.
set -u
if [ "${1:-}" = --help ] || [ $# -lt 2 ]; then
  sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'
  [ "${1:-}" = --help ]; exit $?
fi
BUILD=$1 OUT=$2
CUDA_LIB=${CUDA_LIB:-/usr/local/cuda/lib64} LIBS=${LIBS:-$PWD/.dev/lib}
export LD_LIBRARY_PATH=$CUDA_LIB:$LIBS:$BUILD D2Q9_CACHE_DIR=$(mktemp -d)
mkdir -p "$OUT"
log() { echo "$(date -u +%T) $*" >> "$OUT/log.txt"; }
pack() { (cd "$OUT" && tar czf /tmp/all.tgz --exclude all.tgz . && mv /tmp/all.tgz all.tgz); }
log "start: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)"
log "build: $("$BUILD/d2q9-bgk" --version 2>&1 | head -1)"
for b in $([ "${BENCH:-1}" = 0 ] || echo cuda opencl); do
  "$BUILD/d2q9-bench" -b $b --sizes 8192 --heat-sizes 8192 --no-coursework -p "${PRECISIONS:-float,double}" -o "$OUT/bench-$b" \
    > "$OUT/bench-$b.log" 2>&1
  log "bench $b (rc $?)"
  "$BUILD/d2q9-bench" -b $b --sizes 8192 --heat-sizes 8192 --no-coursework -p float --kernel-variant fused \
    -o "$OUT/bench-fused-$b" > "$OUT/bench-fused-$b.log" 2>&1
  log "bench fused $b (rc $?)"
done
pack
[ "${VALIDATE:-1}" = 0 ] && { log "all done"; exit 0; }
V="--backend cuda --exe $BUILD/d2q9-bgk"
python3 validation/heated_cavity.py $V --ra all --out "$OUT/cavity" > "$OUT/cavity.log" 2>&1
log "cavity all (rc $?)"; pack
python3 validation/heated_cavity.py $V --ra 1e5 --convergence --grids 32,64,128,256 --out "$OUT/cavity-1e5-grids" \
  > "$OUT/cavity-1e5-grids.log" 2>&1
log "cavity 1e5 grids (rc $?)"; pack
python3 validation/heated_cavity.py $V --ra 1e6 --convergence --grids 64,128,256 --transits 1500 \
  --out "$OUT/cavity-1e6-grids" > "$OUT/cavity-1e6-grids.log" 2>&1
log "cavity 1e6 grids (rc $?)"; pack
python3 validation/heated_cavity.py $V --ra 1e6 --collision trt --out "$OUT/cavity-1e6-trt" \
  > "$OUT/cavity-1e6-trt.log" 2>&1
log "cavity 1e6 trt (rc $?)"; pack
python3 validation/rayleigh_benard.py $V --out "$OUT/rayleigh-benard" > "$OUT/rayleigh-benard.log" 2>&1
log "rayleigh-benard (rc $?)"; pack
python3 validation/thermal_ringing.py $V --out "$OUT/ringing" > "$OUT/ringing.log" 2>&1
log "ringing (rc $?)"
find "$OUT" \( -name final_state.dat -o -name final_state.vti \) -size +20M -delete
log "all done"; pack

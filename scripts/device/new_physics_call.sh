#!/bin/bash
# One device call for moving walls and the subgrid model on one GPU, NEW_BUILD alone
# (an older build refuses their keys). Writes into OUT as it goes (log.txt, real-*/,
# cavity-re1000/, circular-couette/, all.tgz):
#   - the 4000x2400 cylinder (scripts/device/real_problems.py): everything on, turning at half
#     the inflow speed, with Smagorinsky C = 0.1, the staircase BGK channel with and without it,
#     beside the 3072^2 box, round by round; CUDA (3 rounds) and OpenCL (1 round);
#   - the lid-driven cavity at Re 1000 on 258^2 with and without C = 0.1 (validation/cavity.py);
#   - circular Couette flow on three grids, double (validation/circular_couette.py).
# Usage (repository root, on the device): new_physics_call.sh NEW_BUILD OUT
#   NVRTC from CUDA_LIB (default /usr/local/cuda/lib64), then LIBS (default .dev/lib).
set -u
if [ "${1:-}" = --help ] || [ $# -lt 2 ]; then
  sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'
  [ "${1:-}" = --help ]; exit $?
fi
NEW=$1 OUT=$2
CUDA_LIB=${CUDA_LIB:-/usr/local/cuda/lib64} LIBS=${LIBS:-$PWD/.dev/lib}
export LD_LIBRARY_PATH=$CUDA_LIB:$LIBS D2Q9_CACHE_DIR=$(mktemp -d)
mkdir -p "$OUT"
log() { echo "$(date -u +%T) $*" >> "$OUT/log.txt"; }
pack() { (cd "$OUT" && tar czf /tmp/all.tgz --exclude all.tgz . && mv /tmp/all.tgz all.tgz); }
log "start: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)"
log "new: $("$NEW/d2q9-bgk" --version 2>&1 | head -1)"
CASES=all,rotating,smagorinsky,staircase-bgk,staircase-bgk-smagorinsky
python3 scripts/device/real_problems.py "$OUT/real-cuda" --bin "$NEW/d2q9-bgk" -b cuda --grid 4000x2400 \
  --steps 20000 --box 3072 --cases "$CASES" --rounds 3 > "$OUT/real-cuda.log" 2>&1
log "real cuda done (rc $?)"; pack
python3 scripts/device/real_problems.py "$OUT/real-opencl" --bin "$NEW/d2q9-bgk" -b opencl --grid 4000x2400 \
  --steps 20000 --box 3072 --cases "$CASES" --rounds 1 > "$OUT/real-opencl.log" 2>&1
log "real opencl done (rc $?)"; pack
python3 validation/cavity.py --re 1000 --smagorinsky 0.1 --backend cuda --exe "$NEW/d2q9-bgk" \
  --out "$OUT/cavity-re1000" > "$OUT/cavity-re1000.log" 2>&1
log "cavity done (rc $?)"; pack
python3 validation/circular_couette.py --backend cuda --exe "$NEW/d2q9-bgk" --out "$OUT/circular-couette" \
  > "$OUT/circular-couette.log" 2>&1
log "circular couette done (rc $?)"
find "$OUT" \( -name final_state.dat -o -name final_state.vti \) -size +20M -delete
log "all done"; pack

#!/bin/bash
# The real-problem benchmark (scripts/device/real_problems.py) of an old and a new
# build on a GPU, in one call: the coursework's bytes old against new, the
# open cylinder at 1000x600 and 4000x2400 with each feature on and off beside
# the box, and (with NCU=1) Nsight Compute's account of one blocked launch of
# the cylinder with each feature. Everything streams into OUT_DIR as it comes.
# Usage (repository root): real_problems_call.sh OLD_BUILD NEW_BUILD OUT_DIR [BACKENDS]
#   A build folder holds d2q9-bgk and d2q9-bench with cl/ beside them and
#   lib/ for shared libraries the machine lacks. REGISTER_NVIDIA_ICD=1
#   registers NVIDIA's OpenCL driver first (a bare machine); NCU=1 profiles;
#   LOG=FILE puts the running log elsewhere (default OUT_DIR/log.txt);
#   CASES_SMALL / CASES_LARGE: real_problems.py --cases for 1000x600 / 4000x2400.
case "${1:-}" in -h|--help) sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0 ;; esac
set -u
OLD=$1 NEW=$2 OUT_DIR=$3 BACKENDS=${4:-cuda opencl}
mkdir -p "$OUT_DIR"
if [ "${REGISTER_NVIDIA_ICD:-0}" = 1 ]; then
  mkdir -p /etc/OpenCL/vendors && echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
fi
export D2Q9_CACHE_DIR=${D2Q9_CACHE_DIR:-/tmp/d2q9-cache}
here=$(cd "$(dirname "$0")" && pwd)
log=${LOG:-$OUT_DIR/log.txt}
echo "old $OLD ($(LD_LIBRARY_PATH=$OLD/lib $OLD/d2q9-bgk --version 2>&1 | head -1)); new $NEW ($(LD_LIBRARY_PATH=$NEW/lib $NEW/d2q9-bgk --version 2>&1 | head -1)); $(date -u +%FT%TZ)" >> "$log"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader >> "$log" 2>&1

# The coursework's outputs: the same bytes, old against new (one round).
"$here/coursework_old_new.sh" "$OLD" "$NEW" "$OUT_DIR/coursework.csv" "128x128 1024x1024" "$BACKENDS" 1 >> "$log" 2>&1

for be in $BACKENDS; do
  LD_LIBRARY_PATH=$NEW/lib:${LD_LIBRARY_PATH:-} python3 "$here/real_problems.py" "$OUT_DIR/$be-1000x600" --bin "$NEW/d2q9-bgk" \
    --old "$OLD/d2q9-bgk" -b "$be" --grid 1000x600 --steps 100000 --box 1024 \
    --cases "${CASES_SMALL:-all,probes-every-step,no-probes,no-probes-forces-sponge,staircase-bgk}" >> "$log" 2>&1
  LD_LIBRARY_PATH=$NEW/lib:${LD_LIBRARY_PATH:-} python3 "$here/real_problems.py" "$OUT_DIR/$be-4000x2400" --bin "$NEW/d2q9-bgk" \
    --old "$OLD/d2q9-bgk" -b "$be" --grid 4000x2400 --steps 20000 --box 3072 --cases "${CASES_LARGE:-}" >> "$log" 2>&1
done

if [ "${NCU:-0}" = 1 ] && command -v ncu > /dev/null; then
  # One blocked launch (the 30th) of a 4000x2400 cylinder, 200 steps, per feature set.
  for c in staircase-bgk staircase-trt no-probes-forces-sponge no-probes-forces no-probes; do
    p=$OUT_DIR/cuda-4000x2400/runs/$c-new/problem.toml
    [ -f "$p" ] || continue
    sed 's/^steps = .*/steps = 200/' "$p" > /tmp/ncu-$c.toml
    LD_LIBRARY_PATH=$NEW/lib:${LD_LIBRARY_PATH:-} ncu --clock-control none -k regex:propagate --launch-skip 30 --launch-count 1 \
      --section SpeedOfLight --section LaunchStats --section Occupancy --section WarpStateStats --section InstructionStats \
      --section MemoryWorkloadAnalysis "$NEW/d2q9-bgk" -b cuda -q --no-png -o /tmp/ncu-out-$c /tmp/ncu-$c.toml \
      > "$OUT_DIR/ncu-$c.txt" 2>&1
  done
fi
echo "done $(date -u +%FT%TZ)" >> "$log"

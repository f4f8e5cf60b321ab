#!/bin/bash
# Byte-identity of whole runs between two kernel sources: every variant and
# precision, on problems that exercise each kernel feature (TRT, regularised,
# body force, moving wall, inlet ramp, outlet, curved walls, measured bodies,
# probes). For a kernel change that must not move a bit: run the same binary
# with the old and the new cl/ folder.
# Usage: scripts/checks/kernel_identity.sh EXE OLD_KERNELS_DIR NEW_KERNELS_DIR [BACKEND] [quick]
case "${1:-}" in -h|--help) sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0 ;; esac
set -u
exe=$1 orig=$2 new=$3 backend=${4:-opencl}
here=$(cd "$(dirname "$0")/../.." && pwd)
P=$here/tests/problems/identity
out=$(mktemp -d)
cases=(
  "full|cw|$P/cw.params $here/inputs/obstacles_128x128.dat"
  "full|fw_reg|$P/forced_wall.toml --collision regularised"
  "full|fw_trt|$P/forced_wall.toml --collision trt:0.1875"
  "full|cc_trt|$P/channel_curved.toml"
  "full|if_bgk|$P/inlet_forced.toml"
  "lite|fw_bgk|$P/forced_wall.toml"
  "lite|cc_reg|$P/channel_curved.toml --collision regularised"
  "lite|cc_bgk|$P/channel_curved.toml --collision bgk"
  "lite|if_trt|$P/inlet_forced.toml --collision trt"
  "lite|if_reg|$P/inlet_forced.toml --collision regularised"
)
variants="split fused fused-rows blocked"
[ "$backend" = cuda ] && variants="split fused blocked"
precisions="float double fp16s fp16c"
fail=0; n=0
for c in "${cases[@]}"; do
  depth=${c%%|*}; c=${c#*|}; name=${c%%|*}; args=${c#*|}
  vs=$variants; ps=$precisions
  if [ $depth = lite ]; then vs="fused blocked"; ps="float fp16c"; fi
  [ "${5:-}" = quick ] && [ $depth = lite ] && continue
  for v in $vs; do
    shape="-l 8x4"; extra=""
    [ $v = fused-rows ] && shape=""
    [ $v = blocked ] && extra="--block-steps 3 --tile 8x6"
    for p in $ps; do
      id=$name.$v.$p
      for k in orig new; do
        kd=$orig; [ $k = new ] && kd=$new
        mkdir -p $out/$id/$k
        $exe $args -b $backend --kernel-variant $v -p $p $shape $extra --kernels-dir $kd -o $out/$id/$k -q --no-png \
          > $out/$id/$k.log 2>&1 || { echo "RUNFAIL $id $k: $(tail -2 $out/$id/$k.log)"; fail=1; }
      done
      for f in $(cd $out/$id/orig && ls); do
        case $f in *.json|*.log) continue;; esac
        if ! cmp -s $out/$id/orig/$f $out/$id/new/$f; then echo "DIFF $id $f"; fail=1; fi
      done
      [ "$(cd $out/$id/orig && ls | sort)" = "$(cd $out/$id/new && ls | sort)" ] || { echo "FILESETS $id"; fail=1; }
      n=$((n+1))
    done
  done
done
echo "$backend: compared $n runs of the two kernel sources; fail=$fail"
rm -rf "$out"
exit $fail

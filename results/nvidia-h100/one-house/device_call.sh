#!/bin/bash
# Old (OLD_BUILD) against new (NEW_BUILD) binaries on the coursework problems,
# alternately, 3 rounds, CUDA and OpenCL: output bytes and times; then the
# new default launch ("auto") at the sizes whose default changed.
# Usage (device machine, repository root): device_call.sh OLD_BUILD NEW_BUILD
mkdir -p /etc/OpenCL/vendors && echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export D2Q9_CACHE_DIR=/tmp/d2q9-cache
OLD=$1 NEW=$2
for p in 128x128 128x256 256x256 1024x1024; do
  for b in cuda opencl; do
    for which in old new; do  # a first (cold) run of each, untimed here
      B=$OLD; [ $which = new ] && B=$NEW
      $B/d2q9-bgk inputs/input_$p.params inputs/obstacles_$p.dat -b $b --no-png -q -o /tmp/warm-$which > /dev/null
    done
    for round in 1 2 3; do
      for which in old new; do
        B=$OLD; [ $which = new ] && B=$NEW
        out=/tmp/run-$which-$p-$b; rm -rf $out; mkdir -p $out
        t0=$(date +%s.%N)
        $B/d2q9-bgk inputs/input_$p.params inputs/obstacles_$p.dat -b $b --no-png -o $out > $out/stdout.txt
        t1=$(date +%s.%N)
        loop=$(grep "^Elapsed time" $out/stdout.txt | awk '{print $3}')
        sums=$(cat $out/av_vels.dat | md5sum | cut -c1-12),$(cat $out/final_state.dat | md5sum | cut -c1-12)
        echo "$p,$b,$which,$round,$(awk "BEGIN{printf \"%.3f\", $t1 - $t0}"),$loop,$sums"
      done
    done
  done
done > $OUT/coursework.csv
for b in cuda opencl; do
  $NEW/d2q9-bench -b $b -p float,fp16s,double --kernel-variant auto --no-coursework --sizes 256,512,1024,2048,8192 \
    --min-seconds 0.3 -o /tmp/auto-$b > $OUT/auto-$b.log 2>&1
done

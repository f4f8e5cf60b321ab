#!/bin/bash
# One device call after the one-copy blocked kernel (7747b49): (1) the
# coursework problems, BASE against NEW alternately (bytes, whole-process
# and loop times), CUDA and OpenCL; (2) float tiles at 128^2/256^2; (3) the
# launch table's data, blocked against fused, every precision, 128^2..8192^2,
# one d2q9-bench process per (backend, variant). Each line or log goes to
# $OUT as it comes; the CSVs as one tar at the end.
# Usage (device machine, repository root): final_call.sh BASE_BUILD NEW_BUILD
mkdir -p /etc/OpenCL/vendors && echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
OLD=$1 NEW=$2
export D2Q9_CACHE_DIR=/tmp/d2q9-cache
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total --format=csv > $OUT/progress.txt
for p in 128x128 128x256 256x256 1024x1024; do
  for b in cuda opencl; do
    for which in old new; do  # a first (cold) run of each, untimed
      B=$OLD; [ $which = new ] && B=$NEW
      LD_LIBRARY_PATH=$B/lib $B/d2q9-bgk inputs/input_$p.params inputs/obstacles_$p.dat -b $b --no-png -q -o /tmp/warm-$which > /dev/null
    done
    for round in 1 2 3; do
      for which in old new; do
        B=$OLD; [ $which = new ] && B=$NEW
        out=/tmp/run-$which-$p-$b; rm -rf $out; mkdir -p $out
        t0=$(date +%s.%N)
        LD_LIBRARY_PATH=$B/lib $B/d2q9-bgk inputs/input_$p.params inputs/obstacles_$p.dat -b $b --no-png -o $out > $out/stdout.txt
        t1=$(date +%s.%N)
        loop=$(grep "^Elapsed time" $out/stdout.txt | awk '{print $3}')
        launch=$(grep "^Launch" $out/stdout.txt | head -1 | cut -c1-60 | tr ',' ';')
        sums=$(md5sum < $out/av_vels.dat | cut -c1-12),$(md5sum < $out/final_state.dat | cut -c1-12)
        echo "$p,$b,$which,$round,$(awk "BEGIN{printf \"%.3f\", $t1 - $t0}"),$loop,$sums,$launch" >> $OUT/coursework.csv
      done
    done
  done
done
echo "coursework done $(date +%T)" >> $OUT/progress.txt
for b in cuda opencl; do
  for t in auto 17x17 14x14 16x16 8x8; do
    LD_LIBRARY_PATH=$NEW/lib timeout 100 $NEW/d2q9-bench -b $b -p float --kernel-variant blocked --tile $t --no-coursework \
      --sizes 128,256 --min-seconds 0.25 --copy-mib 256 -o /tmp/small 2>&1 | grep -E "^box_|error" | sed "s/^/$b $t /" >> $OUT/small.txt
  done
done
echo "small done $(date +%T)" >> $OUT/progress.txt
D=/tmp/launch-table; mkdir -p $D
for b in cuda opencl; do
  for v in blocked fused; do
    LD_LIBRARY_PATH=$NEW/lib timeout 240 $NEW/d2q9-bench -b $b -p float,fp16s,fp16c,double --kernel-variant $v \
      --no-coursework --sizes 128,256,512,1024,2048,4096,8192 --min-seconds 0.3 -o $D/csv-$b-$v > $OUT/$b-$v.log 2>&1
    echo "$b $v: exit $? $(date +%T)" >> $OUT/progress.txt
    tar czf $OUT/csv.tgz -C $D .
  done
done

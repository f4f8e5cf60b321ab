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
bash scripts/coursework_old_new.sh $OLD $NEW $OUT/coursework.csv
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

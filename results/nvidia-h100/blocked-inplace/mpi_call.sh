#!/bin/bash
# One device call on two GPUs: (1) the small coursework problems, BASE
# against NEW (d7b4e12's small-grid tiles) alternately on GPU 0, CUDA and
# OpenCL; (2) scripts/mpi_blocked_check.sh NEW: blocked under MPI, 1 process
# against 2 ranks (bytes), 1 rank against 2 (throughput).
# Usage (device machine, repository root): mpi_call.sh BASE_BUILD NEW_BUILD
mkdir -p /etc/OpenCL/vendors && echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
OLD=$1 NEW=$2
export D2Q9_CACHE_DIR=/tmp/d2q9-cache
for p in 128x128 128x256 256x256; do
  for b in cuda opencl; do
    for which in old new; do
      B=$OLD; [ $which = new ] && B=$NEW
      CUDA_VISIBLE_DEVICES=0 LD_LIBRARY_PATH=$B/lib $B/d2q9-bgk inputs/input_$p.params inputs/obstacles_$p.dat -b $b --no-png -q -o /tmp/warm-$which > /dev/null
    done
    for round in 1 2 3; do
      for which in old new; do
        B=$OLD; [ $which = new ] && B=$NEW
        out=/tmp/run-$which-$p-$b; rm -rf $out; mkdir -p $out
        t0=$(date +%s.%N)
        CUDA_VISIBLE_DEVICES=0 LD_LIBRARY_PATH=$B/lib $B/d2q9-bgk inputs/input_$p.params inputs/obstacles_$p.dat -b $b --no-png -o $out > $out/stdout.txt
        t1=$(date +%s.%N)
        loop=$(grep "^Elapsed time" $out/stdout.txt | awk '{print $3}')
        launch=$(grep "^Launch" $out/stdout.txt | head -1 | cut -c1-60 | tr ',' ';')
        sums=$(md5sum < $out/av_vels.dat | cut -c1-12),$(md5sum < $out/final_state.dat | cut -c1-12)
        echo "$p,$b,$which,$round,$(awk "BEGIN{printf \"%.3f\", $t1 - $t0}"),$loop,$sums,$launch" >> $OUT/coursework-small.csv
      done
    done
  done
done
LD_LIBRARY_PATH=$NEW/lib BUDGET_S=${BUDGET_S:-360} bash scripts/mpi_blocked_check.sh $NEW

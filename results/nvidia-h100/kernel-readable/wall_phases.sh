#!/bin/bash
# Where the whole-process time of the 128x128 coursework goes, old binary
# against new, alternately: the summary JSON's phases and the wall clock.
# Usage (device, repository root): wall_phases.sh OLD_BUILD NEW_BUILD BACKEND
mkdir -p /etc/OpenCL/vendors && echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
OLD=$1 NEW=$2 b=$3
export D2Q9_CACHE_DIR=/tmp/d2q9-cache
for which in old new; do B=$OLD; [ $which = new ] && B=$NEW
  LD_LIBRARY_PATH=$B/lib $B/d2q9-bgk inputs/input_128x128.params inputs/obstacles_128x128.dat -b $b --no-png -q -o /tmp/p-warm > /dev/null; done
echo "binary,round,process_wall_s,inputs_s,context_s,compile_s,upload_s,setup_s,loop_s,outputs_s,run_wall_s"
for round in $(seq 1 8); do
  for which in old new; do
    B=$OLD; [ $which = new ] && B=$NEW
    out=/tmp/p-$which; rm -rf $out; mkdir -p $out
    t0=$(date +%s.%N)
    LD_LIBRARY_PATH=$B/lib $B/d2q9-bgk inputs/input_128x128.params inputs/obstacles_128x128.dat -b $b --no-png -q -o $out --summary-json $out/s.json
    t1=$(date +%s.%N)
    python3 -c "
import json,sys; t=json.load(open('$out/s.json'))['times']
print('$which,$round,%.3f,' % ($t1-$t0) + ','.join('%.4f' % t.get(k,0) for k in ['inputs_s','context_s','compile_s','upload_s','setup_s','loop_s','outputs_s','wall_s']))"
  done
done

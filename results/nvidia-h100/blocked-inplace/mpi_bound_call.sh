#!/bin/bash
# One call on two GPUs, the final kernel (unrolled, 60a3820+): blocked under
# MPI at 8192^2, CUDA, float and fp16s: 1 rank on the whole grid, 1 rank on
# half of it (8192x4096: what each of 2 ranks owns) and 2 ranks (a GPU each),
# 800 steps after 20; and one byte-identity check (1024^2, 1 against 2 ranks).
# Usage (device machine, repository root): mpi_bound_call.sh BUILD
mkdir -p /etc/OpenCL/vendors && echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
B=$1; export LD_LIBRARY_PATH=$B/lib OMPI_MCA_btl_vader_single_copy_mechanism=none
M="mpirun --allow-run-as-root --bind-to none --oversubscribe"
for p in float fp16s; do
  for cfg in "1 8192" "1 4096" "2 8192"; do
    set -- $cfg
    run=$B/d2q9-mpi-bench; [ $1 = 2 ] && run="$M -np 2 $B/d2q9-mpi-bench"
    timeout 90 $run -b cuda --kernel-variant blocked -p $p --nx 8192 --ny $2 --steps 800 --warmup 20 2>&1 | tail -1 >> $OUT/mpi_bound.txt
  done
done
printf '1024\n1024\n1000\n10\n0.1\n0.01\n1.85\n' > /tmp/cw.params
timeout 60 $B/d2q9-bgk /tmp/cw.params inputs/obstacles_1024x1024.dat -b cuda -q --no-png -o /tmp/one
timeout 60 $M -np 2 $B/d2q9-bgk /tmp/cw.params inputs/obstacles_1024x1024.dat -b cuda -q --no-png -o /tmp/two
echo "identity cuda float 1024^2 1000 steps, 1 against 2 ranks: av_vels $(cmp -s /tmp/one/av_vels.dat /tmp/two/av_vels.dat && echo identical || echo DIFFERENT), final_state $(cmp -s /tmp/one/final_state.dat /tmp/two/final_state.dat && echo identical || echo DIFFERENT)" >> $OUT/mpi_bound.txt

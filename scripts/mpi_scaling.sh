#!/usr/bin/env bash
# Strong and weak scaling of the MPI slab decomposition on one host's GPUs,
# plus a byte-identity check of d2q9-bgk's files across rank counts.
#
#   scripts/mpi_scaling.sh [-b BUILD_DIR] [-B opencl|cuda] [-s STEPS] [-l WxH] [-p float|double] [-n SIZE]
#                          [-o DIR] [-k] GPUS
#
# -n SIZE: SIZE x SIZE per GPU instead of 8192 (a quick try on a CPU: -n 256 -s 20 -k);
# -k: skip the byte-identity check (20000 steps of 1024x1024 per rank count);
# -B: the backend every run uses (default opencl); -o: where the results go.
#
# Strong: the 8192x8192 box on 1..GPUS ranks. Weak: 8192 x (8192*N) on N
# ranks, 8192^2 cells per GPU. One rank runs the backend's single-device
# solver (fused variant, same work-group shape): the baseline every efficiency
# is measured against (strong: T1 / (N * TN), weak: T1 / TN, per step).
#
# Writes DIR/mpi_scaling_<device>_<backend>_<SIZE>.csv and .txt (environment,
# identity check, the commands). Every run is a fresh mpirun.
set -euo pipefail
cd "$(dirname "$0")/.."

build=build backend=opencl steps=1000 local_size=128x1 precision=float size=8192 out=results check_identity=yes
usage="usage: $0 [-b BUILD_DIR] [-B opencl|cuda] [-s STEPS] [-l WxH] [-p float|double] [-n SIZE] [-o DIR] [-k] GPUS"
while getopts "b:B:s:l:p:n:o:k" opt; do
  case $opt in
    b) build=$OPTARG ;;
    B) backend=$OPTARG ;;
    o) out=$OPTARG ;;
    s) steps=$OPTARG ;;
    l) local_size=$OPTARG ;;
    p) precision=$OPTARG ;;
    n) size=$OPTARG ;;
    k) check_identity=no ;;
    *) echo "$usage" >&2; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
[ $# -eq 1 ] || { echo "$usage" >&2; exit 2; }
gpus=$1
bench=$build/d2q9-mpi-bench
solver=$build/d2q9-bgk
for exe in "$bench" "$solver"; do
  [ -x "$exe" ] || { echo "error: $exe not found: build with MPI (libopenmpi-dev) first" >&2; exit 1; }
done

mpirun_args=(--bind-to none)
[ "$(id -u)" -eq 0 ] && mpirun_args+=(--allow-run-as-root)
[ "$gpus" -gt "$(nproc)" ] && mpirun_args+=(--oversubscribe)
# Containers often forbid the ptrace-based single copy of Open MPI's shared-memory transport.
export OMPI_MCA_btl_vader_single_copy_mechanism=${OMPI_MCA_btl_vader_single_copy_mechanism:-none}

nx=$size per_gpu_rows=$size
run_bench() {  # ranks ny -> CSV row
  mpirun "${mpirun_args[@]}" -np "$1" "$bench" --nx $nx --ny "$2" --steps "$steps" --warmup 50 \
    -l "$local_size" -p "$precision" -b "$backend"
}

rows=()
echo "strong scaling, ${nx}x${per_gpu_rows}, $steps steps:" >&2
for ((n = 1; n <= gpus; n++)); do
  row=$(run_bench $n $per_gpu_rows); echo "  $row" >&2
  rows+=("strong,$row")
done
echo "weak scaling, ${nx}x(${per_gpu_rows}*N), $steps steps:" >&2
rows+=("weak,${rows[0]#strong,}")  # N = 1 is the same run
for ((n = 2; n <= gpus; n++)); do
  row=$(run_bench $n $((per_gpu_rows * n))); echo "  $row" >&2
  rows+=("weak,$row")
done

# Byte identity on these GPUs: the 1024x1024 coursework problem (20000 steps).
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
identity=()
[ $check_identity = yes ] || gpus_checked=1
mkdir "$tmp/1"
[ $check_identity = yes ] && "$solver" -q -b "$backend" -l "$local_size" -p "$precision" --kernel-variant fused -o "$tmp/1" \
  inputs/input_1024x1024.params inputs/obstacles_1024x1024.dat
for ((n = 2; n <= ${gpus_checked:-$gpus}; n++)); do
  mkdir "$tmp/$n"
  mpirun "${mpirun_args[@]}" -np $n "$solver" -q -b "$backend" -l "$local_size" -p "$precision" -o "$tmp/$n" \
    inputs/input_1024x1024.params inputs/obstacles_1024x1024.dat
  if cmp -s "$tmp/1/av_vels.dat" "$tmp/$n/av_vels.dat" && cmp -s "$tmp/1/final_state.dat" "$tmp/$n/final_state.dat"; then
    identity+=("1024x1024, $n ranks: av_vels.dat and final_state.dat byte-identical to one device")
  else
    identity+=("1024x1024, $n ranks: DIFFERENT from one device")
  fi
done

device=$(echo "${rows[0]}" | cut -d, -f9)
slug=$(echo "$device" | tr -c 'A-Za-z0-9\n' '_' | tr -s _ | sed 's/_$//')
mkdir -p "$out"
name=$out/mpi_scaling_${slug}_${backend}_${size}
csv=$name.csv
echo "scaling,ranks,nx,ny,steps,seconds,mlups,efficiency,final_av_velocity,device,local_size,precision" >"$csv"
t1=$(echo "${rows[0]}" | cut -d, -f6)
av1=$(echo "${rows[0]}" | cut -d, -f8)
same_av="yes"
for row in "${rows[@]}"; do
  IFS=, read -r kind ranks rnx rny rsteps seconds mlups av dev ls prec _solver <<<"$row"
  if [ "$kind" = strong ]; then
    eff=$(awk -v t1="$t1" -v t="$seconds" -v n="$ranks" 'BEGIN { printf "%.3f", t1 / (n * t) }')
    [ "$av" = "$av1" ] || same_av="no"
  else
    eff=$(awk -v t1="$t1" -v t="$seconds" 'BEGIN { printf "%.3f", t1 / t }')
  fi
  echo "$kind,$ranks,$rnx,$rny,$rsteps,$seconds,$mlups,$eff,$av,$dev,$ls,$prec" >>"$csv"
done

{
  echo "MPI scaling on $(hostname), $(date -u +%Y-%m-%dT%H:%MZ), commit ${D2Q9_COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)}"
  echo "command: $0 -b $build -B $backend -s $steps -l $local_size -p $precision -n $size -o $out $gpus"
  echo "mpirun: $(mpirun --version 2>&1 | head -1); args: ${mpirun_args[*]}"
  command -v nvidia-smi >/dev/null && nvidia-smi -L && nvidia-smi topo -m 2>/dev/null | head -$((gpus + 1))
  echo "strong-scaling runs end on the same average velocity as one device: $same_av"
  [ $check_identity = yes ] && printf '%s\n' "${identity[@]}"
  [ $check_identity = yes ] || echo "byte-identity check of d2q9-bgk's files skipped (-k)"
  echo
  if command -v column >/dev/null; then column -s, -t <"$csv"; else cat "$csv"; fi
} | tee "$name.txt"
echo "wrote $csv" >&2
